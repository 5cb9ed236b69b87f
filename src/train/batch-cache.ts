// The batch cache, the training design's centre: tokenized, padded batches kept (IndexedDB in the page, a folder in
// Node) under a fingerprint of everything that made them (data, tokenizer, lengths, batch size, negatives, seed, data
// order) and their position (epoch, index); training reads them from there, tokenizing only what is missing, so a
// reloaded tab resumes from its cached batches without the file, and a sweep tokenizes its data once.
import type { DataFingerprint, DataPosition } from '../contract/training-report.ts';
import type { NumberedBatch, TripletBatches } from './batches.ts';
import { type BatchShape, BatchCacheEntry } from '../contract/data-sources.ts';
import type { TripletBatch } from './trainer.ts';
import { crc32 } from '../util/crc32.ts';

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

/** The seal a store writes with the batch made for `position`. */
export function sealOf(batch: TripletBatch, position: DataPosition): BatchSeal {
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
    this.entry = known ?? { ...identity, fingerprint, batches: 0, bytes: 0, updated: Date.now() };
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
      onProgress?.(i + 1, count);
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
