// The page's batch cache in IndexedDB (idb-keyval): batches under ['batch', fingerprint, epoch, index] (their typed
// arrays stored as they are, with a seal: the position they were made for and the CRC-32 of their bytes, checked on
// read), descriptions under ['entry', fingerprint].
import { createStore, promisifyRequest, type UseStore } from 'idb-keyval';
import type { DataPosition } from '../../contract/training/training-report.ts';
import { CachedBatchMismatchError, checkSeal, sealOf, type BatchCacheStore, type BatchSeal } from './batch-cache.ts';
import type { BatchCacheEntry } from '../../contract/training/data-sources.ts';
import type { TripletBatch } from './trainer.ts';

function isBatch(value: unknown): value is TripletBatch & { seal: BatchSeal } {
  const b = value as (TripletBatch & { seal?: BatchSeal }) | null;
  return (
    !!b &&
    !!b.seal &&
    b.queryIds instanceof Int32Array &&
    b.documentIds instanceof Int32Array &&
    b.queryMask instanceof Uint8Array &&
    b.documentMask instanceof Uint8Array &&
    (b.teacher === undefined || b.teacher instanceof Float32Array)
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
      const where = `${label}: the batch at epoch ${epoch}, row ${index} of ${fingerprint}`;
      if (!isBatch(value)) throw new CachedBatchMismatchError(`${where} is damaged`);
      const { queryIds, queryMask, documentIds, documentMask, teacher, seal } = value;
      const batch: TripletBatch = { queryIds, queryMask, documentIds, documentMask };
      if (teacher) batch.teacher = teacher;
      checkSeal(seal, batch, { epoch, index }, where);
      return batch;
    },
    async put(fingerprint, { epoch, index }, batch) {
      const { queryIds, queryMask, documentIds, documentMask, teacher } = batch;
      await store('readwrite', (s) => {
        const seal = sealOf(batch, { epoch, index });
        const value = { queryIds, queryMask, documentIds, documentMask, seal, ...(teacher ? { teacher } : {}) };
        s.put(value, ['batch', fingerprint, epoch, index]);
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
