// The training-data options every training command shares (--triplets, --subset, --split), read through the
// application layer: a local TSV, JSONL or Parquet file (TSV and JSONL streamed), or a Hub dataset id.
import { withTrainingData, type TrainingDataRead } from '../../app/training/training-data-node.ts';
import type { Args, OptionSpec } from '../command.ts';

export const TRIPLETS_OPTIONS: Record<string, OptionSpec> = {
  triplets: {
    value: 'file-or-dataset',
    help:
      'training rows: a TSV (query<TAB>positive<TAB>negative[<TAB>more negatives] per line), JSONL (query or anchor, positive, negative or negative_1..) ' +
      'or Parquet file, or a Hub dataset id "org/name" (its Parquet files, each at most 1 GiB; see --subset, --split), ' +
      'taken as one only when no such local path exists',
    required: true,
  },
  subset: {
    value: 'name',
    help: "a Hub dataset's subset (its folder), e.g. triplet for sentence-transformers/msmarco-msmarco-MiniLM-L-6-v3",
  },
  split: { value: 'name', help: "a Hub dataset's split", default: 'train' },
};

/** Reads --triplets and runs `use` with the rows; a streamed file stays open for the rows `use` reads. */
export function withTripletsOption<T>(args: Args, use: (read: TrainingDataRead) => Promise<T>): Promise<T> {
  const options = {
    subset: args.string('subset'),
    split: args.string('split'),
    say: (line: string) => process.stderr.write(`${line}\n`),
  };
  return withTrainingData(args.required('triplets'), options, use);
}
