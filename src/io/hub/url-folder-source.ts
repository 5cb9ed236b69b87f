// A FileSource over a plain folder URL (the bundled demo next to index.html, a NanoBEIR set on the Hub): <folder>/<file>, 404 = absent.
// Files are kept once fetched, so the size estimate and the load read each file from the server once.
import { clip } from '../format-error.ts';
import { checkFileSize, throwIfAborted, type FileSource, type ReadOptions } from '../file-source.ts';
import { HubError } from './hub.ts';
import { DEFAULT_IDLE_TIMEOUT_MS, IdleTimer, readResponseBody, timeoutSeconds } from './http-body.ts';

export function createUrlFolderSource(
  folderUrl: string,
  label: string,
  fetchImpl: typeof fetch = (input, init) => fetch(input, init),
  timeoutMs = DEFAULT_IDLE_TIMEOUT_MS,
): FileSource {
  const base = folderUrl.endsWith('/') ? folderUrl : `${folderUrl}/`;
  const where = (name: string) => `${name} of ${label} (${base})`;
  async function download(name: string, options?: ReadOptions): Promise<Uint8Array | null> {
    throwIfAborted(options?.signal);
    const timer = new IdleTimer(timeoutMs, options?.signal);
    try {
      let response: Response;
      try {
        response = await fetchImpl(new URL(name, base), { signal: timer.signal });
      } catch (error) {
        throwIfAborted(options?.signal);
        const why = timer.timedOut
          ? `no response for ${timeoutSeconds(timer)}`
          : error instanceof Error
            ? error.message
            : String(error);
        throw new HubError(`could not fetch ${where(name)}: ${why}`, label, name, null);
      }
      timer.touch();
      if (response.status === 404) return null;
      if (!response.ok)
        throw new HubError(
          `${where(name)}: HTTP ${response.status} ${clip(response.statusText, 60)}`,
          label,
          name,
          response.status,
        );
      const fail = (message: string) => new HubError(message, label, name, null);
      return await readResponseBody(
        response,
        { file: name, where: where(name), timer, fail },
        { signal: options?.signal, maxFileBytes: options?.maxFileBytes },
      );
    } finally {
      timer.stop();
    }
  }
  const fetched = new Map<string, Uint8Array | null>();
  return {
    label,
    async readFile(name, options) {
      if (!fetched.has(name)) fetched.set(name, await download(name, options));
      const bytes = fetched.get(name) ?? null;
      if (bytes) {
        checkFileSize(where(name), bytes.length, options);
        options?.onProgress?.({ file: name, loaded: bytes.length, total: bytes.length });
      }
      return bytes;
    },
    async readRange(name, start, length, options) {
      const bytes = await this.readFile(name, options);
      return bytes ? { bytes: bytes.subarray(start, start + length), fileSize: bytes.length } : null;
    },
  };
}
