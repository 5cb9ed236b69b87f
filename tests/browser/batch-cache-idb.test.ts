// The IndexedDB batch cache in Chromium: batches (and their teacher labels) read back as the typed arrays written, per
// fingerprint and position; entries listed newest first; one fingerprint cleared without touching another, then all; a
// record moved to another position or with a changed byte fails its seal. And the masked-LM sequence cache's blobs.
import { createStore, get, set } from 'idb-keyval';
import { createIdbBatchCache } from '../../src/train/splade/batch-cache-idb.ts';
import { createIdbSequenceCache } from '../../src/train/mlm/mlm-sequence-cache-idb.ts';
import type { BatchCacheEntry } from '../../src/contract/training/data-sources.ts';

const batch = (seed: number) => ({
  queryIds: Int32Array.from([seed, 2, 3, 0]),
  queryMask: Uint8Array.from([1, 1, 1, 0]),
  documentIds: Int32Array.from([seed, 5, 6, 7, 8, 0, 0, 0]),
  documentMask: Uint8Array.from([1, 1, 1, 1, 1, 0, 0, 0]),
});

const entry = (fingerprint: string, updated: number): BatchCacheEntry => ({
  fingerprint,
  data: { name: 'x.tsv', triplets: 4, crc32: 1 },
  shape: { batchSize: 1, queryLength: 4, documentLength: 4 },
  seed: 1,
  tokenizer: 't',
  batches: 2,
  bytes: 48,
  updated,
});

describe('IndexedDB batch cache', () => {
  it('puts, gets, lists and clears batches per fingerprint', async () => {
    const cache = createIdbBatchCache(`splade-lab-batches-test-${Date.now()}`);
    await cache.put('a', { epoch: 0, index: 0 }, batch(11));
    await cache.put('a', { epoch: 1, index: 3 }, batch(12));
    await cache.put('b', { epoch: 0, index: 0 }, batch(21));
    await cache.describe(entry('a', 1));
    await cache.describe(entry('b', 2));
    const back = await cache.get('a', { epoch: 1, index: 3 });
    if (!(back?.queryIds instanceof Int32Array) || back.queryIds[0] !== 12 || back.documentMask.join() !== '1,1,1,1,1,0,0,0')
      throw new Error(`read back ${JSON.stringify(back)}`);
    if ((await cache.get('a', { epoch: 0, index: 1 })) !== null) throw new Error('an absent batch is not null');
    if ((await cache.list()).map((e) => e.fingerprint).join() !== 'b,a') throw new Error('entries not listed newest first');
    await cache.clear('a');
    if (
      (await cache.get('a', { epoch: 0, index: 0 })) !== null ||
      (await cache.get('b', { epoch: 0, index: 0 }))?.queryIds[0] !== 21
    )
      throw new Error('clearing a touched b');
    if ((await cache.list()).map((e) => e.fingerprint).join() !== 'b') throw new Error('entry a not cleared');
    await cache.clear();
    if ((await cache.list()).length !== 0 || (await cache.get('b', { epoch: 0, index: 0 })) !== null)
      throw new Error('clear() left something');
  });

  it('a batch moved to another position, or with a changed byte, fails its seal', async () => {
    const db = `splade-lab-batches-seal-${Date.now()}`;
    const cache = createIdbBatchCache(db);
    await cache.put('a', { epoch: 0, index: 0 }, batch(11));
    await cache.put('a', { epoch: 0, index: 4 }, batch(12));
    const raw = createStore(db, 'batches');
    const second = await get(['batch', 'a', 0, 4], raw);
    await set(['batch', 'a', 0, 0], second, raw); // as if two records were swapped
    const failure = await cache.get('a', { epoch: 0, index: 0 }).then(
      () => null,
      (error: Error) => error,
    );
    if (failure?.name !== 'CachedBatchMismatchError' || !/row 4 where epoch 0, row 0 was asked for/.test(failure.message))
      throw new Error(`a moved batch was read: ${failure?.message}`);
    second.documentIds[1] = 99;
    await set(['batch', 'a', 0, 4], second, raw);
    const flipped = await cache.get('a', { epoch: 0, index: 4 }).then(
      () => null,
      (error: Error) => error,
    );
    if (!flipped || !/do not match its checksum/.test(flipped.message)) throw new Error('a changed batch was read');
  });

  it('teacher labels are stored with their batch and sealed', async () => {
    const cache = createIdbBatchCache(`splade-lab-batches-labels-${Date.now()}`);
    await cache.put('a', { epoch: 0, index: 0 }, { ...batch(11), teacher: Float32Array.from([2.5, -1]) });
    const back = await cache.get('a', { epoch: 0, index: 0 });
    if (!(back?.teacher instanceof Float32Array) || back.teacher.join() !== '2.5,-1') throw new Error('labels not read back');
  });
});

describe('IndexedDB sequence cache of masked-LM runs', () => {
  it("keeps a text's sequences under their key; an absent key is null", async () => {
    const cache = createIdbSequenceCache(`splade-lab-sequences-test-${Date.now()}`);
    const bytes = Uint8Array.from([83, 76, 77, 49, 7, 8, 9]);
    await cache.put('k1', bytes);
    const back = await cache.get('k1');
    if (!(back instanceof Uint8Array) || back.join() !== bytes.join()) throw new Error(`read back ${String(back)}`);
    if ((await cache.get('k2')) !== null) throw new Error('an absent key is not null');
  });
});
