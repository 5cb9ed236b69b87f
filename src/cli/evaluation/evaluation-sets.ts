// The --beir / --nanobeir options that name the sets a command evaluates its runs on, read into dataset references.
import { nanoBeirSelection, type DatasetRef } from '../../app/evaluation/datasets.ts';
import { folderRef } from '../../app/platform/platform-node.ts';
import { UsageError, type Args, type OptionSpec } from '../command.ts';

export const EVALUATION_SET_OPTIONS: Record<'beir' | 'nanobeir', OptionSpec> = {
  beir: { value: 'dir', help: "evaluate each finished run's model on this BEIR folder" },
  nanobeir: { value: 'name,...|all', help: 'or on these NanoBEIR sets' },
};

export function evaluationRefs(args: Args): DatasetRef[] {
  const beir = args.string('beir');
  const nano = args.string('nanobeir');
  if (beir !== undefined && nano !== undefined) throw new UsageError('give --beir or --nanobeir, not both');
  if (beir !== undefined) return [{ kind: 'beir', files: folderRef(beir), name: beir }];
  return nano === undefined
    ? []
    : nanoBeirSelection(nano).map((set) => ({ kind: 'nanobeir', set, hubUrl: process.env.SPLADE_LAB_HUB_URL }));
}
