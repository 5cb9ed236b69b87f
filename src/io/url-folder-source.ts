// A FileSource over a plain folder URL (the bundled demo next to index.html, a NanoBEIR set on the Hub): <folder>/<file>, 404 = absent.
// Files are kept once fetched, so the size estimate and the load read each file from the server once.
import { throwIfAborted, type FileSource, type ReadOptions } from './file-source.ts';
import { HubError } from './hub.ts';

export function createUrlFolderSource(folderUrl: string, label: string, fetchImpl: typeof fetch = (input, init) => fetch(input, init)): FileSource {
  const base = folderUrl.endsWith('/') ? folderUrl : `${folderUrl}/`;
  async function get(name: string, options?: ReadOptions): Promise<Response | null> {
    throwIfAborted(options?.signal);
    let response: Response;
    try {
      response = await fetchImpl(new URL(name, base), { signal: options?.signal });
    } catch (error) {
      throwIfAborted(options?.signal);
      throw new HubError(`could not fetch ${name} of ${label} (${base}): ${error instanceof Error ? error.message : String(error)}`, label, name, null);
    }
    if (response.status === 404) return null;
    if (!response.ok) throw new HubError(`${name} of ${label} (${base}): HTTP ${response.status} ${response.statusText}`, label, name, response.status);
    return response;
  }
  const fetched = new Map<string, Uint8Array | null>();
  return {
    label,
    async readFile(name, options) {
      if (!fetched.has(name)) {
        const response = await get(name, options);
        fetched.set(name, response ? new Uint8Array(await response.arrayBuffer()) : null);
      }
      const bytes = fetched.get(name) ?? null;
      if (bytes) options?.onProgress?.({ file: name, loaded: bytes.length, total: bytes.length });
      return bytes;
    },
    async readRange(name, start, length, options) {
      const bytes = await this.readFile(name, options);
      return bytes ? { bytes: bytes.subarray(start, start + length), fileSize: bytes.length } : null;
    },
  };
}
