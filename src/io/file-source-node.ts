// Node-only file sources: a model folder on disk, a folder cache for Hub downloads, and writing saved files.
import { lstat, open, readFile, realpath, rename, stat, writeFile } from 'node:fs/promises';
import { makeFolders } from './make-folders-node.ts';
import { dirname, join, resolve, sep } from 'node:path';
import { checkFileSize, throwIfAborted, type FileSink, type FileSource } from './file-source.ts';
import type { FileCache } from './hub/hub.ts';

/** Refuses names that would leave the folder ("../x", absolute paths). */
function insideFolder(dir: string, name: string): string {
  const root = resolve(dir);
  const path = resolve(root, name);
  if (!path.startsWith(root + sep)) throw new Error(`file name "${name}" points outside ${root}`);
  return path;
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException)?.code === 'ENOENT';
}

/**
 * The path of `name` in the folder, once it is known to be a plain file there: a symbolic link (the file's, or a
 * folder's on its way) may point only inside the folder (a link to a private key elsewhere is refused, never read), and FIFOs, devices and sockets
 * are refused (reading them would block or read the machine). Null when the file does not exist.
 */
async function regularFileInFolder(dir: string, name: string, label: string): Promise<string | null> {
  const path = insideFolder(dir, name);
  let link;
  try {
    link = await lstat(path);
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
  // the real path, links resolved at every level: a module folder that is a link to elsewhere is outside too
  let target: string;
  try {
    target = await realpath(path);
  } catch (error) {
    if (isMissing(error)) return null; // a dangling link is no file
    throw error;
  }
  const root = await realpath(resolve(dir));
  if (!target.startsWith(root + sep))
    throw new Error(
      `${label}/${name} resolves through a symbolic link to ${target}, outside the folder: refused (copy the file into the folder instead)`,
    );
  const info = link.isSymbolicLink() || target !== path ? await stat(target) : link;
  if (!info.isFile()) throw new Error(`${label}/${name} is not a regular file (a folder, FIFO, device or socket): refused`);
  return target;
}

export function createFolderSource(dir: string): FileSource {
  const label = `folder ${resolve(dir)}`;
  return {
    label,
    async readFile(name, options) {
      throwIfAborted(options?.signal);
      try {
        const path = await regularFileInFolder(dir, name, label);
        if (path === null) return null;
        if (options?.maxFileBytes !== undefined) checkFileSize(`${label}/${name}`, (await stat(path)).size, options);
        const bytes = new Uint8Array(await readFile(path, { signal: options?.signal }));
        options?.onProgress?.({ file: name, loaded: bytes.length, total: bytes.length });
        return bytes;
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async readRange(name, start, length) {
      let handle;
      try {
        const path = await regularFileInFolder(dir, name, label);
        if (path === null) return null;
        handle = await open(path, 'r');
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
      try {
        const fileSize = (await handle.stat()).size;
        const bytes = new Uint8Array(Math.max(0, Math.min(length, fileSize - start)));
        await handle.read(bytes, 0, bytes.length, start);
        return { bytes, fileSize };
      } finally {
        await handle.close();
      }
    },
  };
}

export function createFolderSink(dir: string): FileSink {
  return {
    async writeFile(name, bytes) {
      const path = insideFolder(dir, name);
      await makeFolders(dirname(path));
      await writeFile(path, bytes);
    },
  };
}

/** A Hub download cache in a folder: one file per key, written atomically (temp file, then rename). */
export function createFolderCache(dir: string): FileCache {
  const pathOf = (key: string) => join(dir, encodeURIComponent(key));
  return {
    async get(key) {
      try {
        return new Uint8Array(await readFile(pathOf(key)));
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    async put(key, bytes) {
      await makeFolders(dir);
      const temp = `${pathOf(key)}.partial-${process.pid}`;
      await writeFile(temp, bytes);
      await rename(temp, pathOf(key));
    },
  };
}

export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
