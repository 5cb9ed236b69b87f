// Browser checkpoint store in IndexedDB (idb-keyval): keys [run, checkpoint, file]; one transaction per checkpoint write.
import { createStore, promisifyRequest, type UseStore } from 'idb-keyval';
import type { CheckpointStore } from './training-checkpoint.ts';

/** Every key of one checkpoint: [run, name, <any file>] (arrays sort after strings, so [run, name, []] ends the range). */
function checkpointRange(run: string, name: string): IDBKeyRange {
  return IDBKeyRange.bound([run, name], [run, name, []]);
}

/**
 * Checkpoints of one run (`run` keeps several runs apart in one database). A write deletes the old files of that name
 * and puts the new ones in a single readwrite transaction, so a checkpoint is replaced whole or not at all.
 */
export function createIdbCheckpointStore(run: string, dbName = 'splade-lab', storeName = 'checkpoints'): CheckpointStore {
  const store: UseStore = createStore(dbName, storeName);
  return {
    label: `IndexedDB ${dbName}/${storeName} run "${run}"`,
    async list() {
      const keys = await store('readonly', (s) => promisifyRequest(s.getAllKeys(IDBKeyRange.bound([run], [run, []]))));
      const names = new Set<string>();
      for (const key of keys) if (Array.isArray(key) && typeof key[1] === 'string') names.add(key[1]);
      return [...names];
    },
    async read(name, file) {
      const value = await store('readonly', (s) => promisifyRequest<unknown>(s.get([run, name, file])));
      if (value === undefined) return null;
      if (!(value instanceof Uint8Array))
        throw new Error(`IndexedDB ${dbName}/${storeName}: [${run}, ${name}, ${file}] is not a byte array`);
      return value;
    },
    async write(name, files) {
      try {
        await store('readwrite', (s) => {
          s.delete(checkpointRange(run, name));
          for (const [file, bytes] of files) s.put(bytes, [run, name, file]);
          return promisifyRequest(s.transaction);
        });
      } catch (error) {
        if ((error as { name?: string } | null)?.name !== 'QuotaExceededError') throw error;
        const bytes = [...files.values()].reduce((sum, b) => sum + b.byteLength, 0);
        throw new Error(
          `The browser's storage is full: checkpoint ${name} (${(bytes / 2 ** 20).toFixed(1)} MiB) of run "${run}" was not ` +
            'saved, and the previous checkpoint is kept. Free space (older runs, other sites) and train again from it.',
          { cause: error },
        );
      }
    },
    async remove(name) {
      await store('readwrite', (s) => {
        s.delete(checkpointRange(run, name));
        return promisifyRequest(s.transaction);
      });
    },
  };
}

/**
 * A run's trained model in IndexedDB, keys [run, file]: the earlier model of the run is replaced in the same
 * transaction, so a reader sees the old files or the new ones, never a mix. Returns where it was stored.
 */
export async function writeIdbModel(
  run: string,
  files: Map<string, Uint8Array>,
  dbName = 'splade-lab-models',
  storeName = 'models',
): Promise<string> {
  const store = createStore(dbName, storeName);
  try {
    await store('readwrite', (s) => {
      s.delete(IDBKeyRange.bound([run], [run, []]));
      for (const [file, bytes] of files) s.put(bytes, [run, file]);
      return promisifyRequest(s.transaction);
    });
  } catch (error) {
    if ((error as { name?: string } | null)?.name !== 'QuotaExceededError') throw error;
    const bytes = [...files.values()].reduce((sum, b) => sum + b.byteLength, 0);
    throw new Error(
      `The browser's storage is full: the trained model of run "${run}" (${(bytes / 2 ** 20).toFixed(1)} MiB) was not saved; its checkpoints are kept. Free space and save it again.`,
      { cause: error },
    );
  }
  return `IndexedDB ${dbName}/${storeName} run "${run}"`;
}

/** Removes a run's trained model from IndexedDB (nothing happens when it has none). */
export async function removeIdbModel(run: string, dbName = 'splade-lab-models', storeName = 'models'): Promise<void> {
  const store = createStore(dbName, storeName);
  await store('readwrite', (s) => {
    s.delete(IDBKeyRange.bound([run], [run, []]));
    return promisifyRequest(s.transaction);
  });
}

/** A run's trained model files from IndexedDB (path inside the model folder -> bytes); empty when it has none. */
export async function readIdbModel(
  run: string,
  dbName = 'splade-lab-models',
  storeName = 'models',
): Promise<Map<string, Uint8Array>> {
  const store = createStore(dbName, storeName);
  const range = IDBKeyRange.bound([run], [run, []]);
  const [keys, values] = await store('readonly', (s) =>
    Promise.all([promisifyRequest(s.getAllKeys(range)), promisifyRequest(s.getAll(range))]),
  );
  const files = new Map<string, Uint8Array>();
  keys.forEach((key, i) => {
    if (Array.isArray(key) && typeof key[1] === 'string' && values[i] instanceof Uint8Array) files.set(key[1], values[i]);
  });
  return files;
}
