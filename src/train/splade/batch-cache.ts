// The batch cache, the training design's centre: tokenized, padded batches kept (IndexedDB in the page, a folder in
// Node) under a fingerprint of everything that made them (data, tokenizer, lengths, batch size, negatives, seed, data
// order) and their position (epoch, index); training reads them from there, tokenizing only what is missing, so a
// reloaded tab resumes from its cached batches without the file, and a sweep tokenizes its data once.
import type { DataFingerprint, DataPosition } from '../../contract/training/training-report.ts';
import type { NumberedBatch, TripletBatches } from './batches.ts';
import { type BatchShape, BatchCacheEntry } from '../../contract/training/data-sources.ts';
import type { TripletBatch } from './trainer.ts';
import { crc32 } from '../../util/crc32.ts';

/** Where batches are kept. `put` may throw a storage's quota error; batches already stored stay. */
export interface BatchCacheStore {
  readonly label: string;
  get(fingerprint: string, position: DataPosition): Promise<TripletBatch | null>;
  put(fingerprint: string, position: DataPosition, batch: TripletBatch): Promise<void>;
  /** Writes (or replaces) an entry's description. */
  describe(entry: BatchCacheEntry): Promise<void>;
  list(): Promise<BatchCacheEntry[]>;
  /** Removes one fingerprint's batches (or every one). */
  clear(fingerprint?: string): Promise<void>;
}

/** A stored batch that is not the one asked for: another position's (files swapped), or damaged bytes. */
export class CachedBatchMismatchError extends Error {
  override name = 'CachedBatchMismatchError';
}

/** What a store keeps beside a batch to prove it on read: the position it was made for and the CRC-32 of its bytes. */
export interface BatchSeal {
  epoch: number;
  index: number;
  crc32: number;
}

/** CRC-32 of a batch's bytes: the query ids, the document ids, both masks, then the teacher labels if it has them. */
function batchCrc({ queryIds, documentIds, queryMask, documentMask, teacher }: TripletBatch): number {
  let crc = 0;
  for (const part of [queryIds, documentIds, queryMask, documentMask, ...(teacher ? [teacher] : [])])
    crc = crc32(new Uint8Array(part.buffer, part.byteOffset, part.byteLength), crc);
  return crc >>> 0;
}

/** The seal a store writes with the batch made for `position` (epoch and row: counts, at most 2^53 - 1). */
export function sealOf(batch: TripletBatch, position: DataPosition): BatchSeal {
  for (const [name, value] of [
    ['epoch', position.epoch],
    ['row', position.index],
  ] as const)
    if (!Number.isSafeInteger(value) || value < 0)
      throw new RangeError(`a batch's ${name} must be a whole number from 0 to 2^53 - 1, got ${value}`);
  return { epoch: position.epoch, index: position.index, crc32: batchCrc(batch) };
}

/** Checks a stored batch against its seal and the position asked for; a mismatch names what differs. */
export function checkSeal(seal: BatchSeal, batch: TripletBatch, position: DataPosition, where: string): void {
  if (seal.epoch !== position.epoch || seal.index !== position.index)
    throw new CachedBatchMismatchError(
      `${where} holds the batch of epoch ${seal.epoch}, row ${seal.index} where epoch ${position.epoch}, row ${position.index} was asked for`,
    );
  if (batchCrc(batch) !== seal.crc32) throw new CachedBatchMismatchError(`${where}: the batch's bytes do not match its checksum`);
}

/** The cache would exceed the storage's quota: names what was needed and what is kept. */
export class BatchCacheFullError extends Error {
  override name = 'BatchCacheFullError';
  constructor(
    readonly where: string,
    /** Bytes the batches still to cache need. */
    readonly bytesNeeded: number,
    /** Batches of this data already cached (kept). */
    readonly batchesKept: number,
    options?: ErrorOptions,
  ) {
    super(
      `${where} is full: caching this run's batches needs about ${formatMiB(bytesNeeded)} more. The ${batchesKept} batch${batchesKept === 1 ? '' : 'es'} ` +
        'already cached are kept. Free space (clear other cached data, older runs or other sites) or train a shorter run, then start again.',
      options,
    );
  }
}

function formatMiB(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

/** Whether an error is a storage quota error (IndexedDB's QuotaExceededError, a full disk). */
export function isQuotaError(error: unknown): boolean {
  const e = error as { name?: string; code?: string } | null;
  return e?.name === 'QuotaExceededError' || e?.code === 'ENOSPC' || e?.code === 'EDQUOT';
}

/** Bumped whenever how a batch is made changes (tokenization, padding, row order), so that older cached batches are never read. */
const BATCH_FORMAT = 2;

/** The key of every batch made from this data, tokenizer, shape and seed. */
export function batchFingerprint(data: DataFingerprint, tokenizer: string, shape: BatchShape, seed: number): string {
  const made = {
    format: BATCH_FORMAT,
    data: { triplets: data.triplets, crc32: data.crc32 >>> 0 },
    tokenizer,
    batchSize: shape.batchSize,
    queryLength: shape.queryLength,
    documentLength: shape.documentLength,
    negatives: shape.negatives ?? 1,
    dataOrder: shape.dataOrder ?? 'shuffle',
    seed,
  };
  return `${crc32(new TextEncoder().encode(JSON.stringify(made)))
    .toString(16)
    .padStart(8, '0')}-${data.triplets}-${shape.batchSize}`;
}

/** Bytes of one stored batch (ids as 32-bit words, masks as bytes). */
export function batchBytes(batch: TripletBatch): number {
  const { queryIds, documentIds, queryMask, documentMask, teacher } = batch;
  return (
    queryIds.byteLength + documentIds.byteLength + queryMask.byteLength + documentMask.byteLength + (teacher?.byteLength ?? 0)
  );
}

/** What an entry says of its batches that differs from this run's (its data, tokenizer, shape or seed), or null. */
function differences(entry: BatchCacheEntry, ours: BatchCacheEntry): string | null {
  const made = (e: BatchCacheEntry) => ({
    triplets: e.data.triplets,
    crc32: e.data.crc32 >>> 0,
    tokenizer: e.tokenizer,
    seed: e.seed,
    batchSize: e.shape.batchSize,
    queryLength: e.shape.queryLength,
    documentLength: e.shape.documentLength,
    negatives: e.shape.negatives ?? 1,
    dataOrder: e.shape.dataOrder ?? 'shuffle',
  });
  const [theirs, mine] = [made(entry), made(ours)];
  const differ = (Object.keys(mine) as (keyof typeof mine)[]).filter((key) => theirs[key] !== mine[key]);
  return differ.length === 0
    ? null
    : `it was written for other batches (${differ.map((key) => `${key} ${theirs[key]}, not ${mine[key]}`).join('; ')})`;
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isSize = (value: unknown) => Number.isSafeInteger(value) && (value as number) > 0;

/**
 * Why `value` (an entry.json as read) is not the description of the batches kept under `fingerprint`, or null when
 * it is: it must have an entry's shape, name that fingerprint, and its data, tokenizer, shape and seed must make it
 * (an entry copied from another folder, or written for other data or another tokenizer, is not this folder's).
 */
export function entryProblem(value: unknown, fingerprint: string): string | null {
  const entry = value as Partial<BatchCacheEntry> | null;
  const { data, shape } = entry ?? {};
  const shaped =
    typeof entry === 'object' &&
    entry !== null &&
    typeof entry.fingerprint === 'string' &&
    typeof entry.tokenizer === 'string' &&
    Number.isSafeInteger(entry.seed) &&
    isCount(entry.batches) &&
    isCount(entry.bytes) &&
    Number.isFinite(entry.updated) &&
    typeof data?.name === 'string' &&
    isCount(data.triplets) &&
    Number.isSafeInteger(data.crc32) &&
    isSize(shape?.batchSize) &&
    isSize(shape?.queryLength) &&
    isSize(shape?.documentLength) &&
    (shape?.negatives === undefined || isSize(shape.negatives)) &&
    (shape?.dataOrder === undefined || shape.dataOrder === 'file');
  if (!shaped) return "it is not a batch-cache entry's shape";
  const complete = entry as BatchCacheEntry;
  if (complete.fingerprint !== fingerprint)
    return `it describes the batches of ${JSON.stringify(complete.fingerprint.slice(0, 80))}, not those of ${fingerprint}`;
  const made = batchFingerprint(complete.data, complete.tokenizer, complete.shape, complete.seed);
  return made === fingerprint
    ? null
    : `its data, tokenizer, shape and seed make the fingerprint ${made}, not ${fingerprint}: it was written for other batches`;
}

/**
 * Batches for a run, read from the cache first. A missing batch is made from the data (when the run has it) and
 * cached before it is used; without the data, a missing batch is an error that asks for the file. Positions advance
 * exactly as TripletBatches' do, so checkpoints and resumes are the same with or without the cache.
 */
export class CachedBatches {
  private entry: BatchCacheEntry;

  constructor(
    private readonly cache: BatchCacheStore,
    private readonly batches: TripletBatches,
    /** Whether the data can be read (false: a reloaded page that has only the cache). */
    private readonly hasData: boolean,
    identity: Omit<BatchCacheEntry, 'fingerprint' | 'batches' | 'bytes' | 'updated'>,
    known: BatchCacheEntry | null,
    /** Told once when a cached batch did not match its seal (it is tokenized again from the data). */
    private readonly onNote?: (note: string) => void,
  ) {
    const fingerprint = batchFingerprint(identity.data, identity.tokenizer, identity.shape, identity.seed);
    const fresh = { ...identity, fingerprint, batches: 0, bytes: 0, updated: Date.now() };
    // an entry is ours only if it describes this run's batches: one written for other data or another tokenizer is not
    const foreign = known && (entryProblem(known, fingerprint) ?? differences(known, fresh));
    if (foreign) this.onNote?.(`${this.cache.label}: the entry found for ${fingerprint} is ignored: ${foreign}`);
    this.entry = known && !foreign ? known : fresh;
  }

  get fingerprint(): string {
    return this.entry.fingerprint;
  }

  get position(): DataPosition {
    return this.batches.position;
  }

  get documentsPerBatch(): number {
    return this.batches.documentsPerBatch;
  }

  /** The next batch: from the cache, or made from the data and cached first. */
  async next(): Promise<NumberedBatch> {
    const start = this.batches.position;
    const cached = await this.proven(start);
    if (cached) {
      const skipped = this.batches.skip();
      return { batch: cached, triplets: skipped, start };
    }
    if (!this.hasData) {
      throw new Error(
        `${this.cache.label} holds no batch at epoch ${start.epoch}, row ${start.index} for ${this.entry.data.name}: the cached batches end there. ` +
          'Pick the file again to go on.',
      );
    }
    const made = await this.batches.next();
    await this.store(start, made.batch, 1);
    return made;
  }

  /**
   * Caches the next `count` batches ahead of training (those already cached are skipped), from the current position,
   * without moving it; reports progress. A full storage stops with BatchCacheFullError; what was cached is kept.
   */
  async fill(count: number, onProgress?: (done: number, total: number) => void, signal?: AbortSignal): Promise<void> {
    for await (const { done, total } of this.filling(count, signal)) onProgress?.(done, total);
  }

  /** `fill` as progress events: the batches cached (or found cached) so far, of `count`. */
  async *filling(count: number, signal?: AbortSignal): AsyncGenerator<{ done: number; total: number }> {
    const ahead = this.batches.fork();
    let perBatch = 0;
    for (let i = 0; i < count; i++) {
      if (signal?.aborted)
        throw signal.reason instanceof Error ? signal.reason : new DOMException('caching was cancelled', 'AbortError');
      const start = ahead.position;
      if (await this.proven(start)) {
        ahead.skip();
      } else {
        if (!this.hasData) break;
        const { batch } = await ahead.next();
        perBatch = batchBytes(batch);
        await this.store(start, batch, count - i);
      }
      yield { done: i + 1, total: count };
    }
    if (perBatch) await this.cache.describe(this.entry);
  }

  private noted = false;

  /**
   * The cached batch at `start`, or null when there is none or it fails its seal (swapped files, damaged bytes): then
   * it is made again from the data and cached over, and the run is told once. Without the data, a failed seal is an
   * error that asks for the file.
   */
  private async proven(start: DataPosition): Promise<TripletBatch | null> {
    try {
      return await this.cache.get(this.entry.fingerprint, start);
    } catch (error) {
      if (!(error instanceof CachedBatchMismatchError)) throw error;
      if (!this.hasData)
        throw new Error(`${error.message}; pick the file again so that the batch is tokenized afresh`, { cause: error });
      if (!this.noted) {
        this.noted = true;
        this.onNote?.(`${error.message}: such batches are tokenized again from the data (said once)`);
      }
      return null;
    }
  }

  /** Puts one batch; on a quota error, names the bytes the `left` batches still to cache need. */
  private async store(position: DataPosition, batch: TripletBatch, left: number): Promise<void> {
    try {
      await this.cache.put(this.entry.fingerprint, position, batch);
    } catch (error) {
      if (!isQuotaError(error)) throw error;
      await this.cache.describe({ ...this.entry, updated: Date.now() }).catch(() => undefined);
      throw new BatchCacheFullError(this.cache.label, left * batchBytes(batch), this.entry.batches, { cause: error });
    }
    this.entry = {
      ...this.entry,
      batches: this.entry.batches + 1,
      bytes: this.entry.bytes + batchBytes(batch),
      updated: Date.now(),
    };
    if (this.entry.batches % 64 === 1) await this.cache.describe(this.entry);
  }

  /** Records the entry as it stands (after a run, or before leaving). */
  /** The run's steps are done: write what is still held. */
  finish(): Promise<void> {
    return this.flush();
  }

  flush(): Promise<void> {
    return this.cache.describe(this.entry);
  }
}
