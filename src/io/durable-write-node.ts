// Writing files that must survive a crash or a power loss (run records, sweep plans, checkpoints): each file is written
// beside its place, synced, renamed over it, and its folder synced, so that a reader finds the old file or the new one.
import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { makeFolders } from './make-folders-node.ts';

/** Writes `bytes` to `path` (its folder made if missing) and syncs the file to disk. */
export async function writeSynced(path: string, bytes: Uint8Array): Promise<void> {
  await makeFolders(dirname(path));
  const handle = await open(path, 'w');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Flushes a folder's entries (new names, renames) to disk, so that a crash cannot forget them. Where a folder cannot
 * be opened or synced (some platforms and file systems refuse it: EISDIR, EPERM, EINVAL), the rename stands unsynced.
 */
export async function syncFolder(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (error) {
    if (!['EISDIR', 'EPERM', 'EINVAL', 'EACCES'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    await handle?.close();
  }
}

/**
 * Replaces the file `path` atomically and durably: written and synced beside it under a temporary name, renamed over
 * it, then its folder synced. A crash leaves the old file or the new one whole, never an empty or partial one.
 */
export async function writeFileAtomically(path: string, bytes: Uint8Array | string): Promise<void> {
  const temp = `${path}.partial-${process.pid}`;
  try {
    await writeSynced(temp, typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  await syncFolder(dirname(path));
}
