// Runs in Node: each run folder holds its record as run.json beside checkpoint/ and model/, rewritten whole (a
// temporary file renamed over it), so that `splade-lab runs` can read any run folder back (checked as it is read).
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseRunRecord } from '../../contract/run-record-check.ts';
import type { RunStore } from '../../contract/runs.ts';

export const RUN_FILE = 'run.json';

export function createFolderRunStore(): RunStore {
  return {
    async get(id) {
      let text: string;
      try {
        text = await readFile(join(resolve(id), RUN_FILE), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw new Error(`${join(id, RUN_FILE)} cannot be read: ${(error as Error).message}`, { cause: error });
      }
      return parseRunRecord(text, join(id, RUN_FILE));
    },
    async put(record) {
      const path = join(resolve(record.id), RUN_FILE);
      const temp = `${path}.partial-${process.pid}`;
      await writeFile(temp, JSON.stringify(record, null, 1) + '\n');
      await rename(temp, path);
    },
  };
}
