// The CLI's batch cache in a folder: <root>/<fingerprint>/<epoch>-<index>.batch (a 7-word header: a magic word, the
// batch's own epoch and row, the CRC-32 of its bytes and its three lengths; then the ids, the masks and the teacher
// labels, if any; a 6-word "SLB2" file of an older run, without labels, is still read) and
// <root>/<fingerprint>/entry.json; every file written to a temporary name and renamed into place.
import { readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { makeFolders } from '../io/make-folders-node.ts';
import { join } from 'node:path';
import type { DataPosition } from '../contract/training-report.ts';
import { CachedBatchMismatchError, checkSeal, sealOf, type BatchCacheStore } from './batch-cache.ts';
import type { BatchCacheEntry } from '../contract/data-sources.ts';
import type { TripletBatch } from './trainer.ts';

/** "SLB3" read as a little-endian word: a batch file of this layout; "SLB2": the older one, 6 words, no labels. */
const MAGIC = 0x33424c53;
const MAGIC_WITHOUT_LABELS = 0x32424c53;
const HEADER = 28;

function encode(batch: TripletBatch, position: DataPosition): Uint8Array {
  const { queryIds, documentIds, queryMask, documentMask } = batch;
  const teacher = batch.teacher ?? new Float32Array(0);
  const out = new Uint8Array(
    HEADER + 4 * (queryIds.length + documentIds.length) + queryMask.length + documentMask.length + teacher.byteLength,
  );
  const view = new DataView(out.buffer);
  const seal = sealOf(batch, position);
  [MAGIC, seal.epoch, seal.index, seal.crc32, queryIds.length, documentIds.length, teacher.length].forEach((word, i) =>
    view.setUint32(4 * i, word, true),
  );
  let at = HEADER;
  for (const ids of [queryIds, documentIds]) {
    out.set(new Uint8Array(ids.buffer, ids.byteOffset, ids.byteLength), at);
    at += ids.byteLength;
  }
  out.set(queryMask, at);
  out.set(documentMask, at + queryMask.length);
  out.set(new Uint8Array(teacher.buffer, teacher.byteOffset, teacher.byteLength), at + queryMask.length + documentMask.length);
  return out;
}

function decode(bytes: Uint8Array, where: string, position: DataPosition): TripletBatch {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const word = (i: number) => (bytes.length >= 4 * (i + 1) ? view.getUint32(4 * i, true) : -1);
  const header = word(0) === MAGIC ? HEADER : word(0) === MAGIC_WITHOUT_LABELS ? 24 : -1;
  const [q, d, t] = [word(4), word(5), header === HEADER ? word(6) : 0];
  if (header < 0 || bytes.length !== header + 5 * (q + d) + 4 * t)
    throw new CachedBatchMismatchError(`${where} is damaged (${bytes.length} bytes, not a batch of this layout)`);
  const words = (from: number, n: number) => new Int32Array(bytes.slice(from, from + 4 * n).buffer);
  const queryIds = words(header, q);
  const documentIds = words(header + 4 * q, d);
  const masks = header + 4 * (q + d);
  const labels = masks + q + d;
  const batch: TripletBatch = {
    queryIds,
    documentIds,
    queryMask: bytes.slice(masks, masks + q),
    documentMask: bytes.slice(masks + q, labels),
  };
  if (t > 0) batch.teacher = new Float32Array(bytes.slice(labels, labels + 4 * t).buffer);
  checkSeal({ epoch: word(1), index: word(2), crc32: word(3) }, batch, position, where);
  return batch;
}

async function writeAtomically(path: string, bytes: Uint8Array | string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, bytes);
  await rename(temporary, path);
}

/** Errors reading a cached batch that mean the folder cannot be used: the batch counts as not cached. */
const UNWRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR']);

/**
 * A folder that cannot be written (a read-only home, a sandbox, a path such as /proc/x where no folder can be made, a
 * full disk) does not stop training: the first such error turns the cache off for the process, with one line on
 * stderr, and batches are tokenized afresh.
 */
export function createFolderBatchCache(root: string): BatchCacheStore {
  const label = `the batch cache ${root}`;
  const file = (fingerprint: string, { epoch, index }: DataPosition) => join(root, fingerprint, `${epoch}-${index}.batch`);
  let off = false;
  const writing = async (write: () => Promise<void>) => {
    if (off) return;
    try {
      await write();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (!code) throw error; // not the file system's: a bug to report
      off = true;
      process.stderr.write(
        `splade-lab: ${label} cannot be written (${code}); batches are tokenized afresh (SPLADE_LAB_BATCH_CACHE moves it)\n`,
      );
    }
  };
  return {
    label,
    async get(fingerprint, position) {
      const path = file(fingerprint, position);
      const bytes = await readFile(path).catch((error: NodeJS.ErrnoException) =>
        error.code === 'ENOENT' || UNWRITABLE.has(error.code ?? '') ? null : Promise.reject(error),
      );
      return bytes ? decode(new Uint8Array(bytes), path, position) : null;
    },
    async put(fingerprint, position, batch) {
      await writing(async () => {
        await makeFolders(join(root, fingerprint));
        await writeAtomically(file(fingerprint, position), encode(batch, position));
      });
    },
    async describe(entry) {
      await writing(async () => {
        await makeFolders(join(root, entry.fingerprint));
        await writeAtomically(join(root, entry.fingerprint, 'entry.json'), JSON.stringify(entry, null, 2) + '\n');
      });
    },
    async list() {
      const names = await readdir(root).catch(() => [] as string[]);
      const entries: BatchCacheEntry[] = [];
      for (const name of names) {
        const text = await readFile(join(root, name, 'entry.json'), 'utf8').catch(() => null);
        if (text) entries.push(JSON.parse(text) as BatchCacheEntry);
      }
      return entries.sort((a, b) => b.updated - a.updated);
    },
    async clear(fingerprint) {
      await rm(fingerprint === undefined ? root : join(root, fingerprint), { recursive: true, force: true });
    },
  };
}
