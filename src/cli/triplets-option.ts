// The training-data options every training command shares (--triplets, --subset, --split), and reading them: a local
// TSV, JSONL or Parquet file (TSV and JSONL streamed), or a Hub dataset id whose split's Parquet files are read.
import { stat } from 'node:fs/promises';
import { nodePlatform } from '../app/platform-node.ts';
import { readHubTrainingData, readTrainingFile, type ReadTrainingData } from '../app/training-data.ts';
import { isHubRepoId } from '../io/hub.ts';
import { openRandomAccessFile } from '../io/random-access-node.ts';
import { UsageError, type Args, type OptionSpec } from './command.ts';

export const TRIPLETS_OPTIONS: Record<string, OptionSpec> = {
  triplets: {
    value: 'file-or-dataset',
    help:
      'training rows: a TSV (query<TAB>positive<TAB>negative[<TAB>more negatives] per line), JSONL (query or anchor, positive, negative or negative_1..) ' +
      'or Parquet file, or a Hub dataset id (its Parquet files; see --subset, --split)',
    required: true,
  },
  subset: { value: 'name', help: "a Hub dataset's subset (its folder), e.g. triplet for sentence-transformers/msmarco-msmarco-MiniLM-L-6-v3" },
  split: { value: 'name', help: "a Hub dataset's split", default: 'train' },
};

async function isFile(path: string): Promise<boolean> {
  return stat(path).then((s) => s.isFile(), () => false);
}

type TripletsRead = ReadTrainingData & { where: string };

/**
 * Reads --triplets, a local file (streamed when it is text) or a Hub dataset id (SPLADE_LAB_HUB_URL, HF_TOKEN), and
 * runs `use` with it; a streamed file stays open for the rows `use` reads, and is closed after.
 */
export async function withTripletsOption<T>(args: Args, use: (read: TripletsRead) => Promise<T>): Promise<T> {
  const value = args.required('triplets');
  if (await isFile(value)) {
    const file = await openRandomAccessFile(value);
    try {
      return await use({ ...(await readTrainingFile(file)), where: value });
    } finally {
      await file.close();
    }
  }
  return use(await readHubTriplets(args, value));
}

async function readHubTriplets(args: Args, value: string): Promise<TripletsRead> {
  if (!isHubRepoId(value) || !value.includes('/')) throw new UsageError(`--triplets ${value}: no such file, and not a Hub dataset id ("org/name")`);
  const ref = { repo: value, subset: args.string('subset'), split: args.string('split') };
  const read = await readHubTrainingData(nodePlatform, ref, { baseUrl: process.env.SPLADE_LAB_HUB_URL, token: process.env.HF_TOKEN });
  return { ...read, where: `${read.summary.name} (${read.paths.join(', ')})` };
}
