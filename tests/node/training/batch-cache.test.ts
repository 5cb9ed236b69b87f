// The batch cache: batches read through it equal TripletBatches' bit for bit and advance the same positions; a second
// pass reads them all from the cache without touching the rows; a cache-only run (a reloaded page) trains from it and
// names the file when a batch is missing; a full storage names the bytes still needed and keeps what was cached; the
// folder store reads back what it wrote; a training run through the CLI fills the folder cache, and a rerun is
// bit-identical with the batches read from it.
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTokenizer } from '../../../src/io/tokenizer/tokenizer-load.ts';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { cacheOnlySource, memoryTripletSource, type TripletSource } from '../../../src/io/triplets/triplet-source.ts';
import { parseTriplets, type Triplet } from '../../../src/io/triplets/triplets.ts';
import { tokenizerFingerprint } from '../../../src/io/tokenizer/tokenizer-fingerprint.ts';
import { TripletBatches } from '../../../src/train/splade/batches.ts';
import type { BatchShape, BatchCacheEntry } from '../../../src/contract/training/data-sources.ts';
import { type DataPosition } from '../../../src/contract/training/training-report.ts';
import { BatchCacheFullError, CachedBatches, batchBytes, type BatchCacheStore } from '../../../src/train/splade/batch-cache.ts';
import { createFolderBatchCache } from '../../../src/train/splade/batch-cache-node.ts';
import type { TripletBatch } from '../../../src/train/splade/trainer.ts';
import { runCli } from '../../helpers/cli.ts';
import { fixturePath } from '../../helpers/fixtures.ts';
import { generatedTriplets } from '../../helpers/generated-data.ts';
import { writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';

const TSV = generatedTriplets();

const SHAPE: BatchShape = { batchSize: 8, queryLength: 16, documentLength: 32 };

const DATA = { name: 'triplets.tsv', triplets: 100, crc32: 1234 };

/** A cache in memory, counting puts; it throws a quota error once `quota` batches are stored. */
function memoryCache(quota = Infinity): BatchCacheStore & { puts: number; batches: Map<string, TripletBatch> } {
  const batches = new Map<string, TripletBatch>();
  const entries = new Map<string, BatchCacheEntry>();
  const key = (fp: string, p: DataPosition) => `${fp}/${p.epoch}/${p.index}`;
  return {
    label: 'the test cache',
    puts: 0,
    batches,
    async get(fp, p) {
      return batches.get(key(fp, p)) ?? null;
    },
    async put(fp, p, batch) {
      if (batches.size >= quota) throw new DOMException('quota', 'QuotaExceededError');
      this.puts++;
      batches.set(key(fp, p), batch);
    },
    async describe(entry) {
      entries.set(entry.fingerprint, entry);
    },
    async list() {
      return [...entries.values()];
    },
    async clear() {
      batches.clear();
      entries.clear();
    },
  };
}

/** Counts the rows a source is asked for. */
function counting(triplets: Triplet[]): TripletSource & { reads: number } {
  const inner = memoryTripletSource(triplets);
  const source = {
    count: inner.count,
    negatives: inner.negatives,
    reads: 0,
    read: async (indices: readonly number[]) => ((source.reads += indices.length), inner.read(indices)),
  };
  return source;
}

let root: string;

let triplets: Triplet[];

const tokenizerPromise = loadTokenizer(createFolderSource(fixturePath('tokenizers/bert-base-uncased')));
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-batch-cache-'));
  triplets = parseTriplets(await readFile(TSV), TSV).triplets;
});
afterAll(() => rm(root, { recursive: true, force: true }));

async function cachedBatches(cache: BatchCacheStore, source: TripletSource, start?: DataPosition) {
  const tokenizer = await tokenizerPromise;
  const identity = { data: DATA, shape: SHAPE, seed: 5, tokenizer: tokenizerFingerprint(tokenizer) };
  return new CachedBatches(cache, new TripletBatches(source, tokenizer, SHAPE, 5, start), !source.cacheOnly, identity, null);
}

describe('the batch cache', () => {
  it('gives the batches and positions of TripletBatches; a second pass reads every batch from the cache, no row from the data', async () => {
    const tokenizer = await tokenizerPromise;
    const cache = memoryCache();
    const plain = new TripletBatches(memoryTripletSource(triplets), tokenizer, SHAPE, 5);
    const first = await cachedBatches(cache, counting(triplets));
    for (let i = 0; i < 15; i++) {
      const [a, b] = [await first.next(), await plain.next()];
      expect(a).toEqual(b);
      expect(first.position).toEqual(plain.position);
    }
    expect(cache.puts).toBe(15);
    const source = counting(triplets);
    const again = await cachedBatches(cache, source);
    const replay = new TripletBatches(memoryTripletSource(triplets), tokenizer, SHAPE, 5);
    for (let i = 0; i < 15; i++) expect((await again.next()).batch).toEqual((await replay.next()).batch);
    expect(source.reads).toBe(0);
    expect(cache.puts).toBe(15);
  });

  it('fills ahead without moving; a cache-only run then trains from it, and names the file where the cache ends', async () => {
    const cache = memoryCache();
    const filler = await cachedBatches(cache, memoryTripletSource(triplets));
    const progress: number[] = [];
    await filler.fill(6, (done) => progress.push(done));
    expect(progress).toEqual([1, 2, 3, 4, 5, 6]);
    expect(filler.position).toEqual({ epoch: 0, index: 0 });
    expect((await cache.list())[0]).toMatchObject({ batches: 6, data: DATA });
    const reloaded = await cachedBatches(cache, cacheOnlySource(100, 1, 'triplets.tsv'));
    for (let i = 0; i < 6; i++) await reloaded.next();
    await expect(reloaded.next()).rejects.toThrow(/holds no batch at epoch 0, row 48 for triplets.tsv.*Pick the file again/);
  });

  it('a full storage names the bytes still needed and keeps the batches already cached', async () => {
    const cache = memoryCache(3);
    const batches = await cachedBatches(cache, memoryTripletSource(triplets));
    const error = await batches.fill(10).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BatchCacheFullError);
    const one = batchBytes([...cache.batches.values()][0]);
    expect((error as BatchCacheFullError).bytesNeeded).toBe(7 * one);
    expect((error as Error).message).toContain(
      `needs about ${((7 * one) / 2 ** 20).toFixed(1)} MiB more. The 3 batches already cached are kept`,
    );
    expect(cache.batches.size).toBe(3);
    const reloaded = await cachedBatches(cache, cacheOnlySource(100, 1, 'triplets.tsv'));
    for (let i = 0; i < 3; i++) await reloaded.next();
  });

  it('the folder store reads back what it wrote, lists and clears', async () => {
    const store = createFolderBatchCache(join(root, 'folder'));
    const batches = await cachedBatches(store, memoryTripletSource(triplets));
    await batches.fill(3);
    const made = await new TripletBatches(memoryTripletSource(triplets), await tokenizerPromise, SHAPE, 5).next();
    expect(await store.get(batches.fingerprint, { epoch: 0, index: 0 })).toEqual(made.batch);
    expect((await store.list()).map((e) => [e.batches, e.bytes])).toEqual([[3, 3 * batchBytes(made.batch)]]);
    await store.clear(batches.fingerprint);
    expect(await store.list()).toEqual([]);
  });
});

describe('the CLI and the batch cache', () => {
  it('a run fills the cache folder; the same run again ends bit-identical and writes no batch; --no-batch-cache writes nothing', async () => {
    const model = join(root, 'tiny');
    await writeTinySpladeModel(model);
    const cacheDir = join(root, 'cli-cache');
    const saved = process.env.SPLADE_LAB_BATCH_CACHE;
    process.env.SPLADE_LAB_BATCH_CACHE = cacheDir;
    try {
      const train = (out: string, ...extra: string[]) =>
        runCli(
          'train',
          '--model',
          model,
          '--triplets',
          TSV,
          '--out',
          join(root, out),
          '--steps',
          '3',
          '--batch',
          '2',
          '--grad-accum',
          '2',
          '--query-length',
          '8',
          '--doc-length',
          '12',
          '--probe-every',
          '0',
          ...extra,
        );
      expect((await train('first')).code).toBe(0);
      const [fingerprint] = await readdir(cacheDir);
      expect((await readdir(join(cacheDir, fingerprint))).filter((f) => f.endsWith('.batch'))).toHaveLength(6);
      const files = async () => (await readdir(join(cacheDir, fingerprint))).filter((f) => f.endsWith('.batch')).sort();
      const before = await files();
      expect((await train('second')).code).toBe(0);
      expect(await files()).toEqual(before); // every batch of the rerun was there already
      const weights = async (out: string) => readFile(join(root, out, 'model', 'model.safetensors'));
      expect((await weights('second')).equals(await weights('first'))).toBe(true);
      await rm(cacheDir, { recursive: true });
      expect((await train('third', '--no-batch-cache')).code).toBe(0);
      await expect(readdir(cacheDir)).rejects.toThrow();
      // a cache folder that cannot be made (here: under a file) turns the cache off, with one line; training goes on
      await writeFile(join(root, 'a-file'), 'x');
      process.env.SPLADE_LAB_BATCH_CACHE = join(root, 'a-file', 'batches');
      const unwritable = await train('fourth');
      expect(unwritable.code).toBe(0);
      expect(unwritable.stderr).toMatch(/batch cache .* cannot be written \(ENOTDIR\); batches are tokenized afresh/);
      expect((await weights('fourth')).equals(await weights('first'))).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.SPLADE_LAB_BATCH_CACHE;
      else process.env.SPLADE_LAB_BATCH_CACHE = saved;
    }
  });
});
