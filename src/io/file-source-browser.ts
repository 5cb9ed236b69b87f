// Browser file sources: files the user picked or dropped, and a Cache Storage cache for Hub downloads.
import { checkFileSize, throwIfAborted, type FileSource } from './file-source.ts';
import type { FileCache } from './hub.ts';

/** The last path component: a dropped folder gives "bert-tiny/config.json", the loader asks for "config.json". */
function baseName(file: File): string {
  const path = (file as File & { webkitRelativePath?: string }).webkitRelativePath || file.name;
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Picked or dropped files, found by base name (shards of one model all live side by side). */
export function createFileListSource(files: Iterable<File>, label = 'picked files'): FileSource {
  const byName = new Map<string, File>();
  for (const file of files) byName.set(baseName(file), file);
  return {
    label,
    async readFile(name, options) {
      throwIfAborted(options?.signal);
      const file = byName.get(name);
      if (!file) return null;
      checkFileSize(`${label}/${name}`, file.size, options);
      const bytes = new Uint8Array(await file.arrayBuffer());
      options?.onProgress?.({ file: name, loaded: bytes.length, total: bytes.length });
      return bytes;
    },
    async readRange(name, start, length) {
      const file = byName.get(name);
      if (!file) return null;
      return { bytes: new Uint8Array(await file.slice(start, start + length).arrayBuffer()), fileSize: file.size };
    },
  };
}

/** Hub downloads kept in the page's Cache Storage (survives reloads; the browser may evict it under pressure). */
export function createCacheStorageCache(cacheName = 'splade-lab-hub'): FileCache {
  return {
    async get(key) {
      const response = await (await caches.open(cacheName)).match(key);
      return response ? new Uint8Array(await response.arrayBuffer()) : null;
    },
    async put(key, bytes) {
      await (await caches.open(cacheName)).put(key, new Response(bytes as BodyInit));
    },
  };
}
