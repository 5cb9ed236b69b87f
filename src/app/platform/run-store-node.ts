// Runs in Node: each run folder holds its record as run.json beside checkpoint/ and model/, rewritten whole and
// atomically, and checked field by field when read back, so that `splade-lab runs` can read any run folder back.
import { join, resolve } from 'node:path';
import type { RunRecord, RunStore } from '../../contract/experiments/runs.ts';
import { checkRunRecord } from '../../contract/experiments/stored-records.ts';
import { readRecordFile, writeRecordFile } from './record-file-node.ts';

export const RUN_FILE = 'run.json';

/** A run record is never near this large (a long run with probes at every report stays under a few tens of MiB). */
const MAX_RUN_FILE_BYTES = 256 * 2 ** 20;

/** What to do with a run.json that cannot be used: the checkpoints beside it do not depend on it. */
function advice(path: string): string {
  return (
    `The run's checkpoints do not depend on it: move it away (to ${path}.bad, say) and run the command again ` +
    '(a resumed run starts a new record from its checkpoint)'
  );
}

/**
 * Reads a run record file, checked; null when it does not exist. A run folder's run.json by default; a file an option
 * names (`what`, e.g. "--measured") says what to give instead in `instead`.
 */
export async function readRunRecordFile(path: string, option?: { what: string; instead: string }): Promise<RunRecord | null> {
  const what = option?.what ?? 'the run record';
  const json = await readRecordFile(path, MAX_RUN_FILE_BYTES, what, option?.instead ?? advice(path));
  return json === null ? null : checkRunRecord(json, path, option?.instead ?? advice(path));
}

export function createFolderRunStore(): RunStore {
  return {
    get: (id) => readRunRecordFile(join(id, RUN_FILE)),
    put: (record) => writeRecordFile(join(resolve(record.id), RUN_FILE), record),
  };
}
