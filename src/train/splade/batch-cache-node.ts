// The CLI's batch cache in a folder: <root>/<fingerprint>/<epoch>-<index>.batch (a 9-word header: a magic word, the
// batch's own epoch and row as 64-bit words (any safe integer: a row past 2^32 never aliases another), the CRC-32 of
// its bytes and its three lengths; then the ids, the masks and the teacher labels, if any; the 7-word "SLB3" file of
// an older run, 32-bit positions, and the 6-word "SLB2", without labels, are still read) and
// <root>/<fingerprint>/entry.json, listed only when it describes the batches of its own folder (else ignored, said
// once); every file written to a temporary name and renamed into place.
import { readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { makeFolders } from '../../io/make-folders-node.ts';
import { join } from 'node:path';
import type { DataPosition } from '../../contract/training/training-report.ts';
import { CachedBatchMismatchError, checkSeal, entryProblem, sealOf, type BatchCacheStore } from './batch-cache.ts';
import type { BatchCacheEntry } from '../../contract/training/data-sources.ts';
import type { TripletBatch } from './trainer.ts';
import { printable } from '../../util/printable.ts';

/** Little-endian magic words: "SLB4" this layout; "SLB3" the 7-word one (32-bit positions); "SLB2" 6 words, no labels. */
const MAGIC = 0x34424c53;
const MAGIC_32_BIT_POSITIONS = 0x33424c53;
const MAGIC_WITHOUT_LABELS = 0x32424c53;
const HEADER = 36;

/** Each layout's header: its bytes, whether positions are 64-bit, the words of the CRC and of the three lengths (-1: absent). */
const LAYOUTS = new Map([
  [MAGIC, { header: HEADER, wide: true, crc: 5, lengths: [6, 7, 8] }],
  [MAGIC_32_BIT_POSITIONS, { header: 28, wide: false, crc: 3, lengths: [4, 5, 6] }],
  [MAGIC_WITHOUT_LABELS, { header: 24, wide: false, crc: 3, lengths: [4, 5, -1] }],
]);

function encode(batch: TripletBatch, position: DataPosition): Uint8Array {
  const { queryIds, documentIds, queryMask, documentMask } = batch;
  const teacher = batch.teacher ?? new Float32Array(0);
  const out = new Uint8Array(
    HEADER + 4 * (queryIds.length + documentIds.length) + queryMask.length + documentMask.length + teacher.byteLength,
  );
  const view = new DataView(out.buffer);
  const seal = sealOf(batch, position);
  const wide = (value: number) => [value % 2 ** 32, Math.floor(value / 2 ** 32)];
  const words = [
    MAGIC,
    ...wide(seal.epoch),
    ...wide(seal.index),
    seal.crc32,
    queryIds.length,
    documentIds.length,
    teacher.length,
  ];
  words.forEach((word, i) => view.setUint32(4 * i, word, true));
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
  const layout = LAYOUTS.get(word(0));
  const header = layout?.header ?? -1;
  // a length the layout does not hold (SLB2's label count) is 0
  const [q, d, t] = layout?.lengths.map((i) => (i < 0 ? 0 : word(i))) ?? [0, 0, 0];
  if (!layout || q < 0 || d < 0 || t < 0 || bytes.length !== header + 5 * (q + d) + 4 * t)
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
  const [epoch, index] = layout.wide ? [word(1) + 2 ** 32 * word(2), word(3) + 2 ** 32 * word(4)] : [word(1), word(2)];
  checkSeal({ epoch, index, crc32: word(layout.crc) }, batch, position, where);
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
export function createFolderBatchCache(
  root: string,
  /** Told of each entry.json that is ignored (default: a line on stderr). */
  onNote: (note: string) => void = (note) => void process.stderr.write(`splade-lab: ${note}\n`),
): BatchCacheStore {
  const label = `the batch cache ${root}`;
  const file = (fingerprint: string, { epoch, index }: DataPosition) => join(root, fingerprint, `${epoch}-${index}.batch`);
  let off = false;
  const noted = new Set<string>();
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
        const path = join(root, name, 'entry.json');
        const text = await readFile(path, 'utf8').catch(() => null);
        if (text === null) continue;
        let entry: unknown;
        try {
          entry = JSON.parse(text);
        } catch {
          entry = undefined;
        }
        // an entry of another folder's batches (copied, or written for other data or another tokenizer) is not ours
        const problem = entry === undefined ? 'it is not JSON' : entryProblem(entry, name);
        if (problem === null) entries.push(entry as BatchCacheEntry);
        else if (!noted.has(path)) {
          noted.add(path);
          onNote(`${printable(path)} is ignored: ${problem}; the batches beside it are still checked one by one`);
        }
      }
      return entries.sort((a, b) => b.updated - a.updated);
    },
    async clear(fingerprint) {
      await rm(fingerprint === undefined ? root : join(root, fingerprint), { recursive: true, force: true });
    },
  };
}
