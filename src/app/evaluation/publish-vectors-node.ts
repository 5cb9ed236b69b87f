// `publish --vectors <folder>`: the corpus's document vectors kept in a folder as they are encoded, a chunk of
// documents a file (written beside and renamed), under a provenance file naming what made them (the model's weights,
// k, document length, pruning, the corpus). A publish that finds them reads them instead of encoding again: a killed
// publish resumes where it stopped, and publishing again with other folder options (weights, cap, shards) encodes
// nothing. Vectors of another model, k, length, pruning or corpus are refused, never overwritten.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomically } from '../../io/durable-write-node.ts';
import { makeFolders } from '../../io/make-folders-node.ts';
import { crc32 } from '../../util/crc32.ts';
import type { SparseVector } from '../../util/sparse-vector.ts';
import type { EncodeProgress, ModelSession } from '../model/model-session.ts';
import { weightsFingerprint } from '../model/open-model.ts';

export const VECTORS_FILE = 'vectors.json';
const FORMAT = 'splade-lab document vectors';
const VERSION = 1;
const MAGIC = 0x31564c53; // "SLV1", little-endian

/** What made the vectors: a folder's vectors are read only under the same provenance. */
export interface VectorProvenance {
  /** The model's name and a CRC-32 of its config.json and every parameter. */
  model: string;
  k: number;
  documentLength: number;
  prune: number;
  /** The corpus's fingerprint ("sha256:..."), and its documents. */
  corpus: string;
  documents: number;
  /** Documents per chunk file. */
  chunkSize: number;
}

export class VectorFolderError extends Error {
  override name = 'VectorFolderError';
}

const chunkFile = (chunk: number) => `chunk-${String(chunk).padStart(5, '0')}.bin`;

/** One chunk's vectors as bytes: magic, count, then each vector's nnz, ids and values; a CRC-32 of all that last. */
export function encodeVectorChunk(vectors: readonly SparseVector[]): Uint8Array {
  const words = 2 + vectors.reduce((sum, v) => sum + 1 + 2 * v.indices.length, 0);
  const buffer = new ArrayBuffer(4 * words + 4);
  const view = new DataView(buffer);
  let at = 0;
  const u32 = (value: number) => (view.setUint32(at, value, true), (at += 4));
  u32(MAGIC);
  u32(vectors.length);
  for (const v of vectors) {
    u32(v.indices.length);
    for (let i = 0; i < v.indices.length; i++) u32(v.indices[i]);
    for (let i = 0; i < v.values.length; i++) view.setFloat32((at += 4) - 4, v.values[i], true);
  }
  view.setUint32(at, crc32(new Uint8Array(buffer, 0, at)), true);
  return new Uint8Array(buffer);
}

/** The vectors of one chunk file; an error saying what is wrong with it (the caller encodes the chunk again). */
export function decodeVectorChunk(bytes: Uint8Array, expected: number): SparseVector[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 12 || view.getUint32(0, true) !== MAGIC) throw new Error('not a chunk of document vectors');
  const body = bytes.length - 4;
  if (crc32(bytes.subarray(0, body)) !== view.getUint32(body, true)) throw new Error('its checksum does not match');
  const count = view.getUint32(4, true);
  if (count !== expected) throw new Error(`${count} vectors where ${expected} belong`);
  const vectors: SparseVector[] = [];
  let at = 8;
  for (let d = 0; d < count; d++) {
    const nnz = at + 4 <= body ? view.getUint32(at, true) : -1;
    at += 4;
    if (nnz < 0 || at + 8 * nnz > body) throw new Error(`vector ${d} runs past the end`);
    const indices = new Uint32Array(nnz);
    const values = new Float32Array(nnz);
    for (let i = 0; i < nnz; i++) indices[i] = view.getUint32(at + 4 * i, true);
    for (let i = 0; i < nnz; i++) values[i] = view.getFloat32(at + 4 * (nnz + i), true);
    at += 8 * nnz;
    vectors.push({ indices, values });
  }
  if (at !== body) throw new Error('bytes left after the last vector');
  return vectors;
}

/** Which fields of two provenances differ, in words ("k 2 here, 1 asked"). */
function differences(found: Partial<VectorProvenance>, asked: VectorProvenance): string[] {
  return (Object.keys(asked) as (keyof VectorProvenance)[])
    .filter((key) => found[key] !== asked[key])
    .map((key) => `${key} ${JSON.stringify(found[key] ?? null)} there, ${JSON.stringify(asked[key])} asked`);
}

/** The vectors folder opened for `asked`: the chunks it holds (and any it cannot read), and a writer for the rest. */
export class VectorFolder {
  private constructor(
    readonly dir: string,
    readonly provenance: VectorProvenance,
  ) {}

  /**
   * Opens (or starts) `dir` for vectors made as `asked`; refuses a folder of other vectors or one that is not a
   * vectors folder, naming what differs, and leaves it as it was.
   */
  static async open(dir: string, asked: VectorProvenance): Promise<VectorFolder> {
    const info = await stat(dir).catch(() => null);
    if (info && !info.isDirectory()) throw new VectorFolderError(`--vectors ${dir} is a file, not a folder`);
    const file = join(dir, VECTORS_FILE);
    const text = info ? await readFile(file, 'utf8').catch(() => null) : null;
    if (info && text === null && (await readdir(dir)).some((name) => !name.endsWith('.partial')))
      throw new VectorFolderError(
        `--vectors ${dir} holds files but no ${VECTORS_FILE}: it is not a folder of vectors this command wrote`,
      );
    if (text !== null) {
      let found: Partial<VectorProvenance> & { format?: string; version?: number };
      try {
        found = JSON.parse(text) as typeof found;
      } catch {
        throw new VectorFolderError(
          `${file} is not JSON: the folder's vectors cannot be told apart; give another --vectors folder`,
        );
      }
      if (found.format !== FORMAT || found.version !== VERSION)
        throw new VectorFolderError(`${file} is not a version ${VERSION} "${FORMAT}" file`);
      const differ = differences(found, asked);
      if (differ.length)
        throw new VectorFolderError(
          `--vectors ${dir} holds other vectors (${differ.join('; ')}): give another folder, or remove it to encode again`,
        );
    } else {
      await makeFolders(dir);
      await writeFileAtomically(file, JSON.stringify({ format: FORMAT, version: VERSION, ...asked }, null, 2) + '\n');
    }
    return new VectorFolder(dir, asked);
  }

  get chunks(): number {
    return Math.ceil(this.provenance.documents / this.provenance.chunkSize);
  }

  /** The documents of chunk `c` (its first and how many). */
  range(c: number): { first: number; count: number } {
    const first = c * this.provenance.chunkSize;
    return { first, count: Math.min(this.provenance.chunkSize, this.provenance.documents - first) };
  }

  /** Chunk `c`'s vectors, null when its file is missing; `onBad` hears of a file that cannot be read (then null). */
  async read(c: number, onBad: (problem: string) => void): Promise<SparseVector[] | null> {
    const path = join(this.dir, chunkFile(c));
    const bytes = await readFile(path).catch(() => null);
    if (!bytes) return null;
    try {
      return decodeVectorChunk(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), this.range(c).count);
    } catch (error) {
      onBad(`${path}: ${(error as Error).message}; its documents are encoded again`);
      return null;
    }
  }

  /** Writes chunk `c` beside its name and renames it there. */
  async write(c: number, vectors: readonly SparseVector[]): Promise<void> {
    await writeFileAtomically(join(this.dir, chunkFile(c)), encodeVectorChunk(vectors));
  }
}

/** How many of the corpus's vectors came from the folder and how many were encoded (and written there). */
export interface VectorFolderReport {
  read: number;
  encoded: number;
  /** Chunk files that could not be read (each encoded again), in words. */
  problems: string[];
}

/**
 * The document vectors of `texts` under `session`, read from `dir` where it holds them and encoded (and written there,
 * a chunk at a time) where it does not. `request` is publish's: k, document length and pruning.
 */
export async function vectorsThroughFolder(
  session: ModelSession,
  dir: string,
  texts: readonly string[],
  request: { k: number; documentLength: number; prune: number },
  corpus: string,
  chunkSize: number,
  progress: EncodeProgress = {},
): Promise<{ vectors: SparseVector[]; report: VectorFolderReport }> {
  const { model } = session;
  const folder = await VectorFolder.open(dir, {
    model: `${model.name} #${weightsFingerprint(model.hfConfig, model.params).toString(16)}`,
    k: request.k,
    documentLength: session.fittedLength(request.documentLength),
    prune: request.prune,
    corpus,
    documents: texts.length,
    chunkSize,
  });
  const report: VectorFolderReport = { read: 0, encoded: 0, problems: [] };
  const vectors: SparseVector[] = [];
  for (let c = 0; c < folder.chunks; c++) {
    const { first, count } = folder.range(c);
    let chunk = await folder.read(c, (problem) => report.problems.push(problem));
    if (chunk) report.read += count;
    else {
      const done = vectors.length;
      chunk = await session.encode(
        texts.slice(first, first + count),
        { k: request.k, maxLength: request.documentLength, topK: request.prune },
        { ...progress, onProgress: (d) => progress.onProgress?.(done + d, texts.length) },
      );
      await folder.write(c, chunk);
      report.encoded += count;
    }
    vectors.push(...chunk);
    progress.onProgress?.(vectors.length, texts.length);
  }
  return { vectors, report };
}
