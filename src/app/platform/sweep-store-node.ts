// Sweep plans in Node: the sweep folder's sweep.json (runs live in sub-folders beside it), rewritten whole after
// every finished run, so that `splade-lab sweep --resume` continues the queue.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { SweepStore, SweepPlan } from '../../contract/sweep-plan.ts';
export const SWEEP_FILE = 'sweep.json';

/** The plan of the sweep in `dir` (its id is the folder). */
export function createFolderSweepStore(dir: string): SweepStore {
  const path = join(resolve(dir), SWEEP_FILE);
  return {
    async get() {
      try {
        return JSON.parse(await readFile(path, 'utf8')) as SweepPlan;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw new Error(`${path} cannot be read: ${(error as Error).message}`, { cause: error });
      }
    },
    async put(plan) {
      const temp = `${path}.partial-${process.pid}`;
      await writeFile(temp, JSON.stringify(plan, null, 1) + '\n');
      await rename(temp, path);
    },
  };
}
