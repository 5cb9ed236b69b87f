// The folder batch cache at positions past 32 bits and with entry.json files that are not its own (issue 42, round 2's
// leftovers): a batch at row 2^31 - 1, 2^32 + 5 or epoch 2^32 reads back as itself and never as another row's (the
// header holds 64-bit positions; a file of the older 32-bit layout still reads); an entry.json that is not JSON, that
// was copied from another folder, or that was written for other data or another tokenizer is ignored with a note,
// never read as this run's.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchCacheEntry, BatchShape } from '../../../src/contract/training/data-sources.ts';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { tokenizerFingerprint } from '../../../src/io/tokenizer/tokenizer-fingerprint.ts';
import { loadTokenizer } from '../../../src/io/tokenizer/tokenizer-load.ts';
import { memoryTripletSource } from '../../../src/io/triplets/triplet-source.ts';
import { parseTriplets, type Triplet } from '../../../src/io/triplets/triplets.ts';
import { CachedBatches, sealOf } from '../../../src/train/splade/batch-cache.ts';
import { createFolderBatchCache } from '../../../src/train/splade/batch-cache-node.ts';
import { TripletBatches } from '../../../src/train/splade/batches.ts';
import type { TripletBatch } from '../../../src/train/splade/trainer.ts';
import { fixturePath } from '../../helpers/fixtures.ts';
import { generatedTriplets } from '../../helpers/generated-data.ts';

const SHAPE: BatchShape = { batchSize: 4, queryLength: 12, documentLength: 20 };
const DATA = { name: 'triplets.tsv', triplets: 100, crc32: 99 };

let root: string;
let triplets: Triplet[];
let batch: TripletBatch;
let tokenizer: Awaited<ReturnType<typeof loadTokenizer>>;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-batch-positions-'));
  const tsv = generatedTriplets();
  triplets = parseTriplets(await readFile(tsv), tsv).triplets;
  tokenizer = await loadTokenizer(createFolderSource(fixturePath('tokenizers/bert-base-uncased')));
  batch = (await new TripletBatches(memoryTripletSource(triplets), tokenizer, SHAPE, 3).next()).batch;
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('positions past 32 bits', () => {
  it.each([
    [0, 2 ** 31 - 1],
    [0, 2 ** 32 + 5],
    [2 ** 32, 3],
    [1, Number.MAX_SAFE_INTEGER],
  ])('a batch at epoch %d, row %d reads back as itself, never as a row its low 32 bits name', async (epoch, index) => {
    const store = createFolderBatchCache(join(root, 'wide'));
    await store.put('f', { epoch, index }, batch);
    expect(await store.get('f', { epoch, index })).toEqual(batch);
    // the same file under the row its low 32 bits name: the seal says whose it is
    const low = { epoch: epoch % 2 ** 32, index: index % 2 ** 32 };
    if (low.epoch === epoch && low.index === index) return;
    await cp(join(root, 'wide', 'f', `${epoch}-${index}.batch`), join(root, 'wide', 'f', `${low.epoch}-${low.index}.batch`));
    await expect(store.get('f', low)).rejects.toThrow(
      `holds the batch of epoch ${epoch}, row ${index} where epoch ${low.epoch}, row ${low.index} was asked for`,
    );
  });

  it.each([-1, 1.5, 2 ** 53, NaN])('a row of %d is refused, not wrapped', (index) => {
    expect(() => sealOf(batch, { epoch: 0, index })).toThrow(
      `a batch's row must be a whole number from 0 to 2^53 - 1, got ${index}`,
    );
  });

  it('a file of the older 7-word layout (32-bit positions) still reads', async () => {
    const store = createFolderBatchCache(join(root, 'older'));
    await store.put('f', { epoch: 2, index: 8 }, batch);
    const path = join(root, 'older', 'f', '2-8.batch');
    const current = await readFile(path);
    const words = new DataView(current.buffer, current.byteOffset);
    const older = new Uint8Array(current.length - 8);
    const view = new DataView(older.buffer);
    // "SLB3": magic, epoch, row, CRC-32, then the three lengths; the body unchanged
    [0x33424c53, 2, 8, ...[5, 6, 7, 8].map((i) => words.getUint32(4 * i, true))].forEach((w, i) =>
      view.setUint32(4 * i, w, true),
    );
    older.set(current.subarray(36), 28);
    await writeFile(path, older);
    expect(await store.get('f', { epoch: 2, index: 8 })).toEqual(batch);
  });
});

describe("entry.json files that are not the folder's own", () => {
  /** A cache filled with 2 batches of `identity`, its folder and its entry as written. */
  async function filled(name: string, data = DATA) {
    const notes: string[] = [];
    const store = createFolderBatchCache(join(root, name), (note) => notes.push(note));
    const identity = { data, shape: SHAPE, seed: 3, tokenizer: tokenizerFingerprint(tokenizer) };
    const cached = new CachedBatches(
      store,
      new TripletBatches(memoryTripletSource(triplets), tokenizer, SHAPE, 3),
      true,
      identity,
      null,
    );
    await cached.fill(2);
    const folder = join(root, name, cached.fingerprint);
    const entry = JSON.parse(await readFile(join(folder, 'entry.json'), 'utf8')) as BatchCacheEntry;
    return { store, notes, identity, folder, entry, fingerprint: cached.fingerprint };
  }

  it('one that is not JSON, or not an entry, is ignored with a note (listing goes on)', async () => {
    const { store, notes, folder, entry } = await filled('damaged');
    expect(await store.list()).toEqual([entry]);
    await writeFile(join(folder, 'entry.json'), '{"fingerprint": "x", ');
    expect(await store.list()).toEqual([]);
    await writeFile(join(folder, 'entry.json'), JSON.stringify({ ...entry, batches: -1 }));
    expect(await store.list()).toEqual([]);
    expect(notes).toEqual([
      `${join(folder, 'entry.json')} is ignored: it is not JSON; the batches beside it are still checked one by one`,
    ]);
    expect(await createFolderBatchCache(join(root, 'damaged'), (note) => notes.push(note)).list()).toEqual([]);
    expect(notes[1]).toBe(
      `${join(folder, 'entry.json')} is ignored: it is not a batch-cache entry's shape; the batches beside it are still checked one by one`,
    );
  });

  it("one copied from another fingerprint's folder, or written for other data under this one, is ignored with a note", async () => {
    const ours = await filled('copied');
    const other = await filled('copied', { ...DATA, crc32: 12345 });
    expect(other.fingerprint).not.toBe(ours.fingerprint);
    // the other data's entry copied over ours
    await cp(join(other.folder, 'entry.json'), join(ours.folder, 'entry.json'));
    const notes: string[] = [];
    const store = createFolderBatchCache(join(root, 'copied'), (note) => notes.push(note));
    expect((await store.list()).map((e) => e.fingerprint)).toEqual([other.fingerprint]);
    expect(notes).toEqual([
      `${join(ours.folder, 'entry.json')} is ignored: it describes the batches of "${other.fingerprint}", not those of ${ours.fingerprint}; the batches beside it are still checked one by one`,
    ]);
    // the other data's entry renamed to our fingerprint: its data does not make it
    await writeFile(join(ours.folder, 'entry.json'), JSON.stringify({ ...other.entry, fingerprint: ours.fingerprint }));
    const again = createFolderBatchCache(join(root, 'copied'), (note) => notes.push(note)); // each path is said once per store
    expect((await again.list()).map((e) => e.fingerprint)).toEqual([other.fingerprint]);
    expect(notes[1]).toMatch(
      new RegExp(
        `is ignored: its data, tokenizer, shape and seed make the fingerprint ${other.fingerprint}, not ${ours.fingerprint}: it was written for other batches`,
      ),
    );
  });

  it('a run handed an entry of other data under its fingerprint starts its own, with a note', async () => {
    const { store, identity, entry, fingerprint } = await filled('handed');
    const notes: string[] = [];
    const forged = { ...entry, data: { ...entry.data, triplets: 7, crc32: 1 }, tokenizer: 'feedbeef', batches: 50 };
    const batches = new TripletBatches(memoryTripletSource(triplets), tokenizer, SHAPE, 3);
    const run = new CachedBatches(store, batches, true, identity, forged, (note) => notes.push(note));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain(
      `the entry found for ${fingerprint} is ignored: its data, tokenizer, shape and seed make the fingerprint`,
    );
    await run.flush();
    const [kept] = await store.list();
    expect([kept.data, kept.tokenizer, kept.batches]).toEqual([DATA, identity.tokenizer, 0]);
    // an entry that is this run's is taken up as it is
    const taken: string[] = [];
    new CachedBatches(store, batches, true, identity, entry, (note) => taken.push(note));
    expect(taken).toEqual([]);
  });
});
