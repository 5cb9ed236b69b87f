// Node's side of RandomAccessFile: a file opened once and read by positioned reads (the CLI streams triplets this way).
import { open } from 'node:fs/promises';
import type { RandomAccessFile } from './random-access.ts';

/** Opens `path` for positioned reads; close() releases it (the process exit does too). */
export async function openRandomAccessFile(path: string): Promise<RandomAccessFile & { close(): Promise<void> }> {
  const handle = await open(path, 'r');
  const { size, mtimeMs } = await handle.stat();
  return {
    name: path,
    size,
    async read(start, end) {
      const length = Math.max(0, Math.min(end, size) - start);
      const buffer = new Uint8Array(length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await handle.read(buffer, done, length - done, start + done);
        if (bytesRead === 0)
          throw new Error(
            `${path}: the file ended at byte ${start + done}, before ${start + length} (was it changed while reading?)`,
          );
        done += bytesRead;
      }
      return buffer;
    },
    async changed() {
      const now = await handle.stat();
      if (now.size !== size) return `its size went from ${size} to ${now.size} bytes`;
      if (now.mtimeMs !== mtimeMs) return `it was modified at ${new Date(now.mtimeMs).toISOString()}`;
      return null;
    },
    close: () => handle.close(),
  };
}
