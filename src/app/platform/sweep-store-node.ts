// Sweep plans in Node: the sweep folder's sweep.json (runs live in sub-folders beside it), rewritten whole and
// atomically after every finished run and checked when read back, so that `splade-lab sweep --resume` continues the queue.
import { join, resolve } from 'node:path';
import type { SweepStore } from '../../contract/experiments/sweep-plan.ts';
import { checkSweepPlan } from '../../contract/experiments/stored-records.ts';
import { readRecordFile, writeRecordFile } from './record-file-node.ts';

export const SWEEP_FILE = 'sweep.json';

/** A plan of at most a dozen runs is a few KiB. */
const MAX_SWEEP_FILE_BYTES = 16 * 2 ** 20;

/** The plan of the sweep in `dir` (its id is the folder). */
export function createFolderSweepStore(dir: string): SweepStore {
  const path = join(resolve(dir), SWEEP_FILE);
  const advice =
    `The runs' folders beside it do not depend on it: restore it, or move it away (to ${path}.bad, say) and start the ` +
    'sweep again with the same options (runs that finished resume from their checkpoints without training again)';
  return {
    async get() {
      const json = await readRecordFile(path, MAX_SWEEP_FILE_BYTES, 'the sweep plan', advice);
      return json === null ? null : checkSweepPlan(json, path, advice);
    },
    put: (plan) => writeRecordFile(path, plan),
  };
}
