// Runs in the page: one IndexedDB record per run (idb-keyval), listed for the runs table; removing a run also
// removes its checkpoints and its saved model; the storage the origin uses is read from the browser's estimate.
import { createStore, del, entries, get, set, type UseStore } from 'idb-keyval';
import { createIdbCheckpointStore, removeIdbModel } from '../../train/checkpoint-store-idb.ts';
import { listCheckpoints } from '../../train/training-checkpoint.ts';
import type { RunRecord, RunStore } from '../../contract/experiments/runs.ts';
import { checkRunRecord } from '../../contract/experiments/stored-records.ts';

let store: UseStore | null = null;

function runs(): UseStore {
  store ??= createStore('splade-lab-runs', 'runs');
  return store;
}

export interface RunCatalog extends RunStore {
  /** Every run, newest first. */
  list(): Promise<RunRecord[]>;
  /** Removes a run with its checkpoints and its saved model. */
  remove(id: string): Promise<void>;
  /** Bytes this origin stores (runs, checkpoints, models, cached downloads), or null when the browser does not say. */
  usedBytes(): Promise<number | null>;
}

export const idbRunCatalog: RunCatalog = {
  async get(id) {
    const record = await get<unknown>(id, runs());
    return record === undefined
      ? null
      : checkRunRecord(
          record,
          `run "${id}" in this browser's storage`,
          'Its checkpoints are kept; remove the run and train it again',
        );
  },
  async put(record) {
    try {
      await set(record.id, record, runs());
    } catch (error) {
      if ((error as { name?: string } | null)?.name !== 'QuotaExceededError') throw error;
      throw new Error(
        `The browser's storage is full: run "${record.id}" could not be updated. Delete older runs, then resume it.`,
        { cause: error },
      );
    }
  },
  async list() {
    const all = (await entries<string, RunRecord>(runs())).map(([, record]) => record);
    return all.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  },
  async remove(id) {
    const checkpoints = createIdbCheckpointStore(id);
    for (const { name } of await listCheckpoints(checkpoints)) await checkpoints.remove(name);
    await removeIdbModel(id);
    await del(id, runs());
  },
  async usedBytes() {
    const estimate = await globalThis.navigator?.storage?.estimate?.();
    return estimate?.usage ?? null;
  },
};
