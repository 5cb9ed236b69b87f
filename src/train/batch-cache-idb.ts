// The page's batch cache in IndexedDB (idb-keyval): batches under ['batch', fingerprint, epoch, index] (their typed
// arrays stored as they are), descriptions under ['entry', fingerprint].
import { createStore, promisifyRequest, type UseStore } from 'idb-keyval';
import type { DataPosition } from '../contract/training-report.ts';
import type { BatchCacheStore } from './batch-cache.ts';
import type { BatchCacheEntry } from '../contract/data-sources.ts';
import type { TripletBatch } from './trainer.ts';

function isBatch(value: unknown): value is TripletBatch {
  const b = value as TripletBatch | null;
  return (
    !!b &&
    b.queryIds instanceof Int32Array &&
    b.documentIds instanceof Int32Array &&
    b.queryMask instanceof Uint8Array &&
    b.documentMask instanceof Uint8Array
  );
}

export function createIdbBatchCache(dbName = 'splade-lab-batches', storeName = 'batches'): BatchCacheStore {
  const store: UseStore = createStore(dbName, storeName);
  const label = `the browser's batch cache (IndexedDB ${dbName})`;
  return {
    label,
    async get(fingerprint, { epoch, index }: DataPosition) {
      const value = await store('readonly', (s) => promisifyRequest<unknown>(s.get(['batch', fingerprint, epoch, index])));
      if (value === undefined) return null;
      if (!isBatch(value))
        throw new Error(
          `${label}: the batch at epoch ${epoch}, row ${index} of ${fingerprint} is damaged; clear the cached batches`,
        );
      return value;
    },
    async put(fingerprint, { epoch, index }, batch) {
      const { queryIds, queryMask, documentIds, documentMask } = batch;
      await store('readwrite', (s) => {
        s.put({ queryIds, queryMask, documentIds, documentMask }, ['batch', fingerprint, epoch, index]);
        return promisifyRequest(s.transaction);
      });
    },
    async describe(entry) {
      await store('readwrite', (s) => {
        s.put(entry, ['entry', entry.fingerprint]);
        return promisifyRequest(s.transaction);
      });
    },
    async list() {
      const values = await store('readonly', (s) =>
        promisifyRequest<unknown[]>(s.getAll(IDBKeyRange.bound(['entry'], ['entry', []]))),
      );
      return (values as BatchCacheEntry[]).sort((a, b) => b.updated - a.updated);
    },
    async clear(fingerprint) {
      await store('readwrite', (s) => {
        if (fingerprint === undefined) s.clear();
        else {
          s.delete(IDBKeyRange.bound(['batch', fingerprint], ['batch', fingerprint, []]));
          s.delete(['entry', fingerprint]);
        }
        return promisifyRequest(s.transaction);
      });
    },
  };
}
