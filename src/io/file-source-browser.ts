// Browser file sources: files the user picked or dropped, and a Cache Storage cache for Hub downloads.
import { checkFileSize, throwIfAborted, type FileSource } from './file-source.ts';
import type { FileCache } from './hub/hub.ts';

/** A picked file's path inside the picked folder ("scifact/qrels/test.tsv" -> "qrels/test.tsv"), or its name. */
function pathInFolder(file: File): string {
  const path = (file as File & { webkitRelativePath?: string }).webkitRelativePath || file.name;
  const slash = path.indexOf('/');
  return slash < 0 ? path : path.slice(slash + 1);
}

function lastComponent(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * Picked or dropped files, found by their path inside the picked folder ("qrels/test.tsv") or else by base name (a
 * model's shards, or a BEIR set's files picked one by one, all live side by side).
 */
export function createFileListSource(files: Iterable<File>, label = 'picked files'): FileSource {
  const byPath = new Map<string, File>();
  const byName = new Map<string, File>();
  for (const file of files) {
    byPath.set(pathInFolder(file), file);
    byName.set(lastComponent(pathInFolder(file)), file);
  }
  const find = (name: string) => byPath.get(name) ?? byName.get(lastComponent(name));
  return {
    label,
    async readFile(name, options) {
      throwIfAborted(options?.signal);
      const file = find(name);
      if (!file) return null;
      checkFileSize(`${label}/${name}`, file.size, options);
      const bytes = new Uint8Array(await file.arrayBuffer());
      options?.onProgress?.({ file: name, loaded: bytes.length, total: bytes.length });
      return bytes;
    },
    async readRange(name, start, length) {
      const file = find(name);
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
