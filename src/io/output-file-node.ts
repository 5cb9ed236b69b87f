// The one rule every command writes its output files by: checked before any work (a folder, FIFO or socket refused;
// the same file as one of the command's inputs, or a file inside an input folder, refused), then written beside and
// renamed over, so that a full disk or a kill leaves the previous file whole; a character device (/dev/null,
// /dev/stdout) is written in place, never renamed over. ENOSPC and EDQUOT name the path.
import { constants } from 'node:fs';
import { open, realpath, rm, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { writeFileAtomically } from './durable-write-node.ts';
import { checkOutputFile } from './regular-file-node.ts';

/** A file or folder a command reads, named by its option ("--corpus", "--model"). */
export interface CommandInput {
  option: string;
  path: string;
}

async function realOrNull(path: string): Promise<string | null> {
  return realpath(path).catch(() => null);
}

/**
 * Checks `path` as an output of option `what` before any work: checkOutputFile's checks, and none of `inputs` may be
 * the same file (same device and inode, through any link), nor may the output replace a file inside an input folder
 * (a model's own weights). Inputs that do not exist (a Hub id, a file to be made) are passed over.
 */
export async function checkOutputPath(path: string, what: string, inputs: readonly CommandInput[] = []): Promise<void> {
  await checkOutputFile(path, what);
  const target = await stat(path).catch(() => null);
  if (!target?.isCharacterDevice()) await probeFolder(path, what);
  if (!target) return;
  const real = await realOrNull(path);
  for (const input of inputs) {
    const source = await stat(input.path).catch(() => null);
    if (!source) continue;
    const same = source.dev === target.dev && source.ino === target.ino;
    const inputReal = source.isDirectory() ? await realOrNull(input.path) : null;
    const inside = inputReal !== null && real !== null && real.startsWith(inputReal + sep);
    if (same || inside)
      throw new Error(
        `${what} ${path} is ${same ? `the same file as ${input.option} ${input.path}` : `a file of ${input.option} ${input.path}`}: ` +
          'refusing to write over an input; give another output path',
      );
  }
}

/**
 * Makes and removes the temporary file the write will use beside `path`: a folder that takes no new file (/proc, a
 * read-only mount, root's access() saying yes where the file system says no) fails now, before the work.
 */
async function probeFolder(path: string, what: string): Promise<void> {
  const probe = `${resolve(path)}.partial-${process.pid}`;
  try {
    const handle = await open(probe, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
    await handle.close();
  } catch (error) {
    if ((error as NodeJS.ErrnoException)?.code === 'EEXIST') return; // a leftover of this process: the folder takes files
    throw new Error(`${what} ${path}: no file can be made there (${(error as Error).message}); write elsewhere`, {
      cause: error,
    });
  }
  await rm(probe, { force: true });
}

/** A disk-full error rewritten to name the file and say that the previous one is whole. */
function writeError(error: unknown, path: string, what: string, atomic: boolean): Error {
  const code = (error as NodeJS.ErrnoException)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ENOSPC' || code === 'EDQUOT')
    return new Error(
      `${what} ${path}: the disk is full (${code})${atomic ? '; the previous file is untouched' : ''}; free space or write elsewhere`,
      { cause: error },
    );
  return new Error(`${what} ${path} could not be written (${message})`, { cause: error });
}

/** Writes a command's output file by the one rule (checkOutputPath first, at the start of the command). */
export async function writeOutputFile(path: string, bytes: Uint8Array | string, what: string): Promise<void> {
  const target = await stat(path).catch(() => null);
  const data = typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes;
  if (target && !target.isFile()) {
    if (!target.isCharacterDevice()) throw new Error(`${what} ${path} is not a regular file nor a character device: refused`);
    // a device is written in place: renaming a file over /dev/null would replace the device node
    let handle;
    try {
      handle = await open(path, constants.O_WRONLY);
      await handle.write(data);
    } catch (error) {
      throw writeError(error, path, what, false);
    } finally {
      await handle?.close();
    }
    return;
  }
  try {
    await writeFileAtomically(resolve(path), data);
  } catch (error) {
    throw writeError(error, path, what, true);
  }
}
