// Files where a file is expected: only regular files are read (a folder, /dev/zero, a FIFO or a socket is refused at
// once, naming what it is), up to a size cap where the file is small by nature; an output file is checked the same way
// before any work.
import { constants, type Stats } from 'node:fs';
import { access, open, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { formatBytes } from '../util/format-bytes.ts';

/** The most any file is read whole (Node's buffers stop near 2 GiB). */
const MAX_WHOLE_READ = 2 ** 31 - 1;

/** What a path that is not a regular file is, in words. */
export function fileKind(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** "`what` <path> is a folder, not a file" when `stats` is not a regular file. */
function notAFile(path: string, stats: Stats, what: string): Error {
  return new Error(`${what} ${path} is ${fileKind(stats)}, not a file: give the path of a regular file`);
}

/** The stats of `path`, refused unless it is a regular file (a missing one is the file system's ENOENT error). */
export async function statRegularFile(path: string, what: string): Promise<Stats> {
  const stats = await stat(path);
  if (!stats.isFile()) throw notAFile(path, stats, what);
  return stats;
}

export interface RegularFileOptions {
  /** How the file is named in messages ("--run", "the run record"); default "the file". */
  what?: string;
  /** Larger files are refused (a file that is small by nature, such as a run record). */
  maxBytes?: number;
}

/**
 * Reads a regular file whole. A path that is not one (a folder, a device, a FIFO: reading them would fail late, never
 * end, or block) is refused before it is opened, and so is a file over `maxBytes`; a missing file is the file
 * system's ENOENT error (its `code` kept), for callers to whom a missing file means something.
 */
export async function readRegularFile(path: string, options: RegularFileOptions = {}): Promise<Uint8Array> {
  const what = options.what ?? 'the file';
  const cap = Math.min(options.maxBytes ?? Infinity, MAX_WHOLE_READ);
  const stats = await statRegularFile(path, what);
  const tooLarge = (bytes: number) =>
    new Error(
      `${what} ${path} is ${formatBytes(bytes)}${bytes > stats.size ? ' or more' : ''}, more than ${formatBytes(cap)}` +
        (cap === options.maxBytes ? ': such a file is never this large; is it the right file?' : ', the most read whole'),
    );
  if (stats.size > cap) throw tooLarge(stats.size);
  // O_NONBLOCK: should the path have become a FIFO since, opening it does not wait for a writer
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) throw notAFile(path, opened, what);
    // read up to the cap and one byte more: a file that grows (or whose size the system under-reports) stays bounded
    const chunks: Uint8Array[] = [];
    let total = 0;
    while (total <= cap) {
      const chunk = new Uint8Array(Math.min(Math.max(opened.size - total, 64 * 1024), cap + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
    }
    if (total > cap) throw tooLarge(total);
    if (chunks.length === 1) return chunks[0];
    const bytes = new Uint8Array(total);
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    return bytes;
  } finally {
    await handle.close();
  }
}

/**
 * Checks an output file before any work is done: its folder exists and is a folder, the path is not a folder (nor a
 * FIFO, a socket or a block device: writing to them blocks or fails late; a character device such as /dev/null is
 * fine), and it can be written; so a typo fails at once instead of after an evaluation, an encoding or a lesson.
 * `what` names it in messages ("--run").
 */
export async function checkOutputFile(path: string, what: string): Promise<void> {
  const where = `${what} ${path}`;
  const statOrNull = (target: string) =>
    stat(target).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
      throw new Error(`${where}: ${target} cannot be examined (${error.message}); check the path`, { cause: error });
    });
  const target = await statOrNull(path);
  if (target?.isDirectory()) throw new Error(`${where} is a folder; give the path of a file (new or to replace)`);
  if (target && !target.isFile() && !target.isCharacterDevice())
    throw new Error(`${where} is ${fileKind(target)}; give the path of a file (new or to replace)`);
  const folder = dirname(resolve(path));
  const parent = await statOrNull(folder);
  if (!parent) throw new Error(`${where}: the folder ${folder} does not exist; create it first, or write elsewhere`);
  if (!parent.isDirectory()) throw new Error(`${where}: ${folder} is not a folder; give a path inside a folder`);
  await access(target ? path : folder, constants.W_OK).catch(() => {
    throw new Error(`${where}: ${target ? 'the file' : `the folder ${folder}`} cannot be written; write elsewhere`);
  });
}
