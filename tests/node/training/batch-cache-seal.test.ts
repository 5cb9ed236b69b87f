// A cached batch proves itself on read: it carries the position it was made for and the CRC-32 of its bytes, so two
// swapped batch files or a flipped byte are tokenized afresh (said once), never trained on; and the tokenizer's
// fingerprint covers its whole definition, so a cache made by a tokenizer with another normaliser is not reused.
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchShape } from '../../../src/contract/training/data-sources.ts';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { tokenizerFingerprint } from '../../../src/io/tokenizer/tokenizer-fingerprint.ts';
import { createTokenizerJsonTokenizer } from '../../../src/io/tokenizer/tokenizer-json.ts';
import { loadTokenizer } from '../../../src/io/tokenizer/tokenizer-load.ts';
import { memoryTripletSource } from '../../../src/io/triplets/triplet-source.ts';
import { parseTriplets, type Triplet } from '../../../src/io/triplets/triplets.ts';
import { wordPieceTokenizerJson } from '../../../src/io/tokenizer/wordpiece.ts';
import { CachedBatches, CachedBatchMismatchError } from '../../../src/train/splade/batch-cache.ts';
import { createFolderBatchCache } from '../../../src/train/splade/batch-cache-node.ts';
import { TripletBatches } from '../../../src/train/splade/batches.ts';
import { fixturePath } from '../../helpers/fixtures.ts';
import { generatedTriplets } from '../../helpers/generated-data.ts';

const SHAPE: BatchShape = { batchSize: 4, queryLength: 12, documentLength: 20 };
const DATA = { name: 'triplets.tsv', triplets: 100, crc32: 99 };
const tokenizerPromise = loadTokenizer(createFolderSource(fixturePath('tokenizers/bert-base-uncased')));

let root: string;
let triplets: Triplet[];
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-batch-seal-'));
  const tsv = generatedTriplets();
  triplets = parseTriplets(await readFile(tsv), tsv).triplets;
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** A folder cache filled with the first `count` batches, and a fresh reader of it that records its notes. */
async function filledCache(name: string, count: number) {
  const tokenizer = await tokenizerPromise;
  const store = createFolderBatchCache(join(root, name));
  const identity = { data: DATA, shape: SHAPE, seed: 3, tokenizer: tokenizerFingerprint(tokenizer) };
  const batches = () => new TripletBatches(memoryTripletSource(triplets), tokenizer, SHAPE, 3);
  const filling = new CachedBatches(store, batches(), true, identity, null);
  await filling.fill(count);
  const notes: string[] = [];
  const reader = new CachedBatches(store, batches(), true, identity, null, (note) => notes.push(note));
  const folder = join(root, name, filling.fingerprint);
  return { store, reader, notes, folder, plain: batches(), fingerprint: filling.fingerprint };
}

describe('sealed cached batches', () => {
  it('two swapped batch files are tokenized afresh, and the run is told once', async () => {
    const { reader, notes, folder, plain } = await filledCache('swapped', 3);
    const [a, b] = [join(folder, '0-0.batch'), join(folder, '0-4.batch')];
    const [bytesA, bytesB] = [await readFile(a), await readFile(b)];
    await writeFile(a, bytesB);
    await writeFile(b, bytesA);
    for (let i = 0; i < 3; i++) expect(await reader.next(), `batch ${i}`).toEqual(await plain.next());
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/holds the batch of epoch 0, row 4 where epoch 0, row 0 was asked for.*tokenized again/);
  });

  it('a flipped byte fails the checksum: the batch is made again and cached over', async () => {
    const { store, reader, notes, folder, plain, fingerprint } = await filledCache('flipped', 2);
    const path = join(folder, '0-4.batch');
    const bytes = await readFile(path);
    bytes[bytes.length - 30] ^= 1;
    await writeFile(path, bytes);
    await expect(store.get(fingerprint, { epoch: 0, index: 4 })).rejects.toThrow(CachedBatchMismatchError);
    for (let i = 0; i < 2; i++) expect(await reader.next()).toEqual(await plain.next());
    expect(notes).toEqual([expect.stringMatching(/do not match its checksum/)]);
    expect(await store.get(fingerprint, { epoch: 0, index: 4 })).not.toBeNull(); // cached over, sound again
    expect((await readdir(folder)).filter((f) => f.endsWith('.batch'))).toHaveLength(2);
  });

  it('a batch of an older layout is damaged, not misread', async () => {
    const { store, folder, fingerprint } = await filledCache('older', 1);
    const path = join(folder, '0-0.batch');
    await writeFile(path, (await readFile(path)).subarray(16)); // as a 2-word header would have started
    await expect(store.get(fingerprint, { epoch: 0, index: 0 })).rejects.toThrow(/is damaged/);
  });
});

describe('the tokenizer fingerprint', () => {
  it('differs between tokenizers whose normalisers differ on no probe text', async () => {
    const vocab = (await readFile(fixturePath('tokenizers/bert-base-uncased/vocab.txt'), 'utf8')).toString();
    const plain = wordPieceTokenizerJson(vocab);
    const replacing = {
      ...plain,
      normalizer: {
        type: 'Sequence',
        normalizers: [plain.normalizer, { type: 'Replace', pattern: { String: 'qq' }, content: 'q' }],
      },
    };
    const [a, b] = [createTokenizerJsonTokenizer(plain), createTokenizerJsonTokenizer(replacing)];
    expect(a.encode('aqqb').ids).not.toEqual(b.encode('aqqb').ids); // they do tokenize differently
    expect(tokenizerFingerprint(a)).not.toBe(tokenizerFingerprint(b));
    expect(tokenizerFingerprint(createTokenizerJsonTokenizer(wordPieceTokenizerJson(vocab)))).toBe(tokenizerFingerprint(a));
  });

  it('teacher labels travel with their batch and are sealed; a 6-word file of the layout before labels still reads', async () => {
    const tokenizer = await tokenizerPromise;
    const store = createFolderBatchCache(join(root, 'labelled'));
    const labelled = triplets.slice(0, 8).map((t, i) => ({ ...t, label: [i + 0.5, -i] }));
    const { batch } = await new TripletBatches(memoryTripletSource(labelled), tokenizer, SHAPE, 3).next();
    expect(Array.from(batch.teacher ?? [])).toHaveLength(8);
    await store.put('f', { epoch: 0, index: 0 }, batch);
    expect(await store.get('f', { epoch: 0, index: 0 })).toEqual(batch);
    const path = join(root, 'labelled', 'f', '0-0.batch');
    const bytes = await readFile(path);
    bytes[bytes.length - 2] ^= 1; // inside the last label
    await writeFile(path, bytes);
    await expect(store.get('f', { epoch: 0, index: 0 })).rejects.toThrow(/do not match its checksum/);
    // the older layout: "SLB2", no label count, no labels
    const { batch: plain } = await new TripletBatches(memoryTripletSource(triplets), tokenizer, SHAPE, 3).next();
    await store.put('g', { epoch: 0, index: 0 }, plain);
    const current = await readFile(join(root, 'labelled', 'g', '0-0.batch'));
    const words = new DataView(current.buffer, current.byteOffset);
    // "SLB2": magic, epoch, row, CRC-32, the two id counts (today's 9-word header has 64-bit positions and a label count)
    const older = new Uint8Array(current.length - 12);
    [0x32424c53, 0, 0, ...[5, 6, 7].map((i) => words.getUint32(4 * i, true))].forEach((w, i) =>
      new DataView(older.buffer).setUint32(4 * i, w, true),
    );
    older.set(current.subarray(36), 24);
    await writeFile(join(root, 'labelled', 'g', '0-0.batch'), older);
    expect(await store.get('g', { epoch: 0, index: 0 })).toEqual(plain);
  });
});
