// `splade-lab score`'s progress file on disk: read back, made anew, or cut back to its whole lines and appended to; each
// batch's record is written as it is scored (a killed process loses only the batch in flight) and synced every few
// batches and seconds (a power loss loses at most those).
import { open, readFile, rm, stat, type FileHandle } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { syncFolder } from './durable-write-node.ts';

/** Sync after this many unsynced records, or once a record comes this long after the last sync. */
const SYNC_EVERY = { records: 16, ms: 2000 };

/** The progress file of output `out` (`<out>.score-progress.jsonl`), or null for a device (/dev/stdout), which has none. */
export async function scoreProgressPath(out: string): Promise<string | null> {
  const target = await stat(out).catch(() => null);
  return target?.isCharacterDevice() ? null : `${resolve(out)}.score-progress.jsonl`;
}

/** The file's bytes, or null when there is none. */
export async function readScoreProgressFile(path: string): Promise<Uint8Array | null> {
  return readFile(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
}

/** Removes the file (no error when it is gone) and syncs its folder, so that the removal outlives a crash. */
export async function removeScoreProgressFile(path: string): Promise<void> {
  await rm(path, { force: true });
  await syncFolder(dirname(path));
}

/** Writes all of `bytes` at `position` (a write may take fewer bytes than asked). */
async function writeAllAt(handle: FileHandle, bytes: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < bytes.length;) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, position + done);
    done += bytesWritten;
  }
}

/** Appends records to a progress file, each written at once and synced every few records and seconds. */
export class ScoreProgressWriter {
  private unsynced = 0;
  private lastSync = performance.now();

  private constructor(
    private readonly handle: FileHandle,
    /** Where the next record goes: the end of the file's whole lines. */
    private position: number,
  ) {}

  /** Makes the file anew with its first line, synced (file and folder) before any record follows it. */
  static async create(path: string, header: string): Promise<ScoreProgressWriter> {
    const handle = await open(path, 'w');
    const bytes = new TextEncoder().encode(header);
    try {
      await writeAllAt(handle, bytes, 0);
      await handle.sync();
      await syncFolder(dirname(path));
    } catch (error) {
      await handle.close();
      throw error;
    }
    return new ScoreProgressWriter(handle, bytes.length);
  }

  /** Opens the file to append after its first `wholeBytes` bytes: a torn last line is cut off first. */
  static async continueAt(path: string, wholeBytes: number): Promise<ScoreProgressWriter> {
    const handle = await open(path, 'r+');
    try {
      if ((await handle.stat()).size !== wholeBytes) {
        await handle.truncate(wholeBytes);
        await handle.sync();
      }
    } catch (error) {
      await handle.close();
      throw error;
    }
    return new ScoreProgressWriter(handle, wholeBytes);
  }

  /** Writes one record (its text ends in a line break); syncs when enough records or time have gone by unsynced. */
  async append(record: string): Promise<void> {
    const bytes = new TextEncoder().encode(record);
    await writeAllAt(this.handle, bytes, this.position);
    this.position += bytes.length;
    this.unsynced++;
    if (this.unsynced >= SYNC_EVERY.records || performance.now() - this.lastSync >= SYNC_EVERY.ms) await this.sync();
  }

  /** Syncs what was written. */
  async sync(): Promise<void> {
    if (this.unsynced === 0) return;
    await this.handle.sync();
    this.unsynced = 0;
    this.lastSync = performance.now();
  }

  /** Syncs and closes. */
  async close(): Promise<void> {
    try {
      await this.sync();
    } finally {
      await this.handle.close();
    }
  }
}
