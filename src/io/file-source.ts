// Where checkpoint and tokenizer files come from: one small interface for a folder, picked files, the Hub or memory.
// Reads can carry a size cap (maxFileBytes) that every source checks before or while reading.
import { clip } from './format-error.ts';
import { decodeUtf8Strict } from './text-decode.ts';

export interface ReadProgress {
  file: string;
  loaded: number;
  /** Null when the size is not known in advance. */
  total: number | null;
}

export interface ReadOptions {
  onProgress?: (progress: ReadProgress) => void;
  signal?: AbortSignal;
  /**
   * Refuse (FileTooLargeError) a file larger than this many bytes: from its size before reading where the source
   * knows it (folder, picked file, Content-Length), otherwise as soon as the bytes read pass it.
   */
  maxFileBytes?: number;
  /** What to do about a file over maxFileBytes, for its error (default: check that the file belongs to the model). */
  tooLargeAdvice?: string;
}

/** A file is larger than the reader allows (a config.json-derived budget, or the cap on JSON files). */
export class FileTooLargeError extends Error {
  override name = 'FileTooLargeError';
  constructor(
    readonly location: string,
    readonly bytes: number,
    readonly limit: number,
    advice = FILE_TOO_LARGE_ADVICE,
  ) {
    super(`${location} is ${describeSize(bytes)}, over the ${describeSize(limit)} allowed here; ${advice}`);
  }
}

const FILE_TOO_LARGE_ADVICE = "check that the file belongs to this model (its config.json fixes the model's size)";

function describeSize(bytes: number): string {
  return bytes < 2 ** 20 ? `${bytes} bytes` : `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

/** Throws a FileTooLargeError when `bytes` exceeds the read's maxFileBytes. */
export function checkFileSize(location: string, bytes: number, options: ReadOptions | undefined): void {
  const limit = options?.maxFileBytes;
  if (limit !== undefined && bytes > limit) throw new FileTooLargeError(location, bytes, limit, options?.tooLargeAdvice);
}

/** config.json, shard indexes, tokenizer.json and vocab.txt larger than this are refused (the largest real tokenizer.json is ~35 MB). */
export const MAX_CONFIG_FILE_BYTES = 64 * 2 ** 20;

export interface FileSource {
  /** Says where the files come from, for error messages ("folder /models/bert-tiny", "hub org/name@main"). */
  readonly label: string;
  /** The whole file, or null when the source has no file of that name. */
  readFile(name: string, options?: ReadOptions): Promise<Uint8Array | null>;
  /** `length` bytes from `start` (fewer at the end of the file) and the file's size, or null when absent. */
  readRange?(
    name: string,
    start: number,
    length: number,
    options?: ReadOptions,
  ): Promise<{ bytes: Uint8Array; fileSize: number } | null>;
}

/** Where a saver puts files (a folder in Node; the page can collect them in memory). */
export interface FileSink {
  writeFile(name: string, bytes: Uint8Array): Promise<void>;
}

/** Files held in memory: tests, and models built or saved in the page. */
export function createMemorySource(files: Map<string, Uint8Array>, label = 'memory'): FileSource & FileSink {
  return {
    label,
    async readFile(name, options) {
      const bytes = files.get(name) ?? null;
      if (bytes) checkFileSize(`${label}/${name}`, bytes.length, options);
      return bytes;
    },
    async readRange(name, start, length) {
      const bytes = files.get(name);
      return bytes ? { bytes: bytes.subarray(start, start + length), fileSize: bytes.length } : null;
    },
    async writeFile(name, bytes) {
      files.set(name, bytes);
    },
  };
}

/** A file a reader cannot do without is absent. */
export class MissingFileError extends Error {
  override name = 'MissingFileError';
}

/** Where a file of a source is, for error messages: "<source label>/<name>". */
export function fileLocation(source: FileSource, name: string): string {
  return `${source.label}/${name}`;
}

/** Reads a file that must exist; a MissingFileError names it otherwise. */
export async function readRequiredFile(source: FileSource, name: string, options?: ReadOptions): Promise<Uint8Array> {
  const bytes = await source.readFile(name, options);
  if (bytes === null) throw new MissingFileError(`${fileLocation(source, name)} not found`);
  return bytes;
}

/**
 * Awaits all reads, then reports the first failure in argument order (not whichever failed first), so a folder
 * with several bad files always gives the same error.
 */
export async function allInOrder<T extends readonly unknown[]>(reads: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(reads);
  for (const result of settled) if (result.status === 'rejected') throw result.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/**
 * Reads and parses a JSON file (strict UTF-8, at most MAX_CONFIG_FILE_BYTES unless the options say less); null when
 * absent, an error naming the file and source when it is not JSON.
 */
export async function readJsonFile(source: FileSource, name: string, options?: ReadOptions): Promise<unknown | null> {
  const maxFileBytes = Math.min(options?.maxFileBytes ?? MAX_CONFIG_FILE_BYTES, MAX_CONFIG_FILE_BYTES);
  const bytes = await source.readFile(name, { ...options, maxFileBytes });
  if (bytes === null) return null;
  checkFileSize(fileLocation(source, name), bytes.length, { maxFileBytes });
  const text = decodeUtf8Strict(bytes, fileLocation(source, name));
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(
      `${name} in ${source.label} is not valid JSON: ${clip(error instanceof Error ? error.message : String(error), 200)}`,
      { cause: error },
    );
  }
}

/** Throws when a signal is aborted, with the signal's own reason. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw signal.reason instanceof Error ? signal.reason : new DOMException('The read was cancelled', 'AbortError');
}
