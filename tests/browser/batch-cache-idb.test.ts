// The IndexedDB batch cache in Chromium: batches (and their teacher labels) read back as the typed arrays written, per
// fingerprint and position; entries listed newest first; one fingerprint cleared without touching another, then all; a
// record moved to another position or with a changed byte fails its seal. And the masked-LM sequence cache's blobs.
import { createStore, get, set } from 'idb-keyval';
import { createIdbBatchCache } from '../../src/train/splade/batch-cache-idb.ts';
import { createIdbSequenceCache } from '../../src/train/mlm/mlm-sequence-cache-idb.ts';
import type { BatchCacheEntry } from '../../src/contract/training/data-sources.ts';
import { expect } from './expect.ts';

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
    expect(back?.queryIds, `read back ${JSON.stringify(back)}`).toBeInstanceOf(Int32Array);
    expect(back!.queryIds[0], `read back ${JSON.stringify(back)}`).toBe(12);
    expect(back!.documentMask.join(), `read back ${JSON.stringify(back)}`).toBe('1,1,1,1,1,0,0,0');
    expect(await cache.get('a', { epoch: 0, index: 1 }), 'an absent batch is not null').toBeNull();
    expect((await cache.list()).map((e) => e.fingerprint).join(), 'entries not listed newest first').toBe('b,a');
    await cache.clear('a');
    expect(await cache.get('a', { epoch: 0, index: 0 }), 'clearing a touched b').toBeNull();
    expect((await cache.get('b', { epoch: 0, index: 0 }))?.queryIds[0], 'clearing a touched b').toBe(21);
    expect((await cache.list()).map((e) => e.fingerprint).join(), 'entry a not cleared').toBe('b');
    await cache.clear();
    expect(await cache.list(), 'clear() left something').toHaveLength(0);
    expect(await cache.get('b', { epoch: 0, index: 0 }), 'clear() left something').toBeNull();
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
    expect(failure?.name, `a moved batch was read: ${failure?.message}`).toBe('CachedBatchMismatchError');
    expect(failure!.message, `a moved batch was read: ${failure?.message}`).toMatch(/row 4 where epoch 0, row 0 was asked for/);
    second.documentIds[1] = 99;
    await set(['batch', 'a', 0, 4], second, raw);
    const flipped = await cache.get('a', { epoch: 0, index: 4 }).then(
      () => null,
      (error: Error) => error,
    );
    expect(flipped, 'a changed batch was read').toBeTruthy();
    expect(flipped!.message, 'a changed batch was read').toMatch(/do not match its checksum/);
  });

  it('teacher labels are stored with their batch and sealed', async () => {
    const cache = createIdbBatchCache(`splade-lab-batches-labels-${Date.now()}`);
    await cache.put('a', { epoch: 0, index: 0 }, { ...batch(11), teacher: Float32Array.from([2.5, -1]) });
    const back = await cache.get('a', { epoch: 0, index: 0 });
    expect(back?.teacher, 'labels not read back').toBeInstanceOf(Float32Array);
    expect(back!.teacher!.join(), 'labels not read back').toBe('2.5,-1');
  });
});

describe('IndexedDB sequence cache of masked-LM runs', () => {
  it("keeps a text's sequences under their key; an absent key is null", async () => {
    const cache = createIdbSequenceCache(`splade-lab-sequences-test-${Date.now()}`);
    const bytes = Uint8Array.from([83, 76, 77, 49, 7, 8, 9]);
    await cache.put('k1', bytes);
    const back = await cache.get('k1');
    expect(back, `read back ${String(back)}`).toBeInstanceOf(Uint8Array);
    expect(back!.join(), `read back ${String(back)}`).toBe(bytes.join());
    expect(await cache.get('k2'), 'an absent key is not null').toBeNull();
  });
});
