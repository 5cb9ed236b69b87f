// Hugging Face Hub files as a FileSource: <base>/<repo>/resolve/<revision>/<file>, streamed with progress and
// cancel, optionally cached; 401/404/network failures become HubErrors naming the repo and the file.
import { throwIfAborted, type FileSource, type ReadOptions } from './file-source.ts';

/** Stores downloaded files by URL (Cache Storage in the page, a folder in Node). */
export interface FileCache {
  get(key: string): Promise<Uint8Array | null>;
  put(key: string, bytes: Uint8Array): Promise<void>;
}

export class HubError extends Error {
  constructor(
    message: string,
    readonly repo: string,
    readonly file: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'HubError';
  }
}

export interface HubOptions {
  /** "org/name". */
  repo: string;
  revision?: string;
  /** Defaults to https://huggingface.co; tests point it at a local server. */
  baseUrl?: string;
  /** Access token for gated or private repos. */
  token?: string;
  cache?: FileCache;
  fetch?: typeof fetch;
}

export const DEFAULT_HUB_URL = 'https://huggingface.co';

export function hubFileUrl(baseUrl: string, repo: string, revision: string, file: string): string {
  const path = file.split('/').map(encodeURIComponent).join('/');
  return `${baseUrl.replace(/\/+$/, '')}/${repo}/resolve/${encodeURIComponent(revision)}/${path}`;
}

const REPO_ID = /^[A-Za-z0-9][\w.-]*(\/[A-Za-z0-9][\w.-]*)?$/;

export function isHubRepoId(text: string): boolean {
  return REPO_ID.test(text) && !text.includes('..');
}

export function createHubSource(options: HubOptions): FileSource {
  const { repo, cache } = options;
  if (!isHubRepoId(repo)) throw new Error(`"${repo}" is not a Hub repo id (expected "org/name")`);
  const revision = options.revision ?? 'main';
  const baseUrl = options.baseUrl ?? DEFAULT_HUB_URL;
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const where = (file: string) => `${file} of ${repo}@${revision} (${baseUrl})`;

  /** Issues the request; returns null for a missing file, throws a HubError for anything else that failed. */
  async function request(file: string, signal: AbortSignal | undefined, range?: string): Promise<Response | null> {
    const headers: Record<string, string> = {};
    if (options.token) headers.Authorization = `Bearer ${options.token}`;
    if (range) headers.Range = range;
    let response: Response;
    try {
      response = await doFetch(hubFileUrl(baseUrl, repo, revision, file), { headers, signal });
    } catch (error) {
      throwIfAborted(signal);
      throw new HubError(`could not download ${where(file)}: network failure (${error instanceof Error ? error.message : String(error)})`, repo, file, null);
    }
    if (response.ok || response.status === 416) return response;
    await response.body?.cancel();
    const code = response.headers.get('x-error-code');
    if (response.status === 404 && code !== 'RepoNotFound' && code !== 'RevisionNotFound') return null;
    if (response.status === 401 || response.status === 403 || code === 'RepoNotFound') {
      throw new HubError(`${where(file)}: HTTP ${response.status} — the repo does not exist, is private or is gated; check the id or pass a token`, repo, file, response.status);
    }
    if (code === 'RevisionNotFound') throw new HubError(`${where(file)}: revision "${revision}" not found`, repo, file, response.status);
    throw new HubError(`${where(file)}: HTTP ${response.status} ${response.statusText}`, repo, file, response.status);
  }

  /** Reads the body chunk by chunk, reporting progress; the signal aborts the read mid-stream. */
  async function readBody(file: string, response: Response, options: ReadOptions | undefined): Promise<Uint8Array> {
    const lengthHeader = response.headers.get('content-length');
    const total = lengthHeader !== null ? Number(lengthHeader) : null;
    const chunks: Uint8Array[] = [];
    let loaded = 0;
    options?.onProgress?.({ file, loaded, total });
    if (response.body) {
      const reader = response.body.getReader();
      try {
        for (;;) {
          throwIfAborted(options?.signal);
          const { done, value } = await reader.read();
          if (done) break;
          chunks.push(value);
          loaded += value.length;
          options?.onProgress?.({ file, loaded, total });
        }
      } catch (error) {
        await reader.cancel().catch(() => undefined);
        throwIfAborted(options?.signal);
        throw new HubError(`download of ${where(file)} failed after ${loaded} bytes: ${error instanceof Error ? error.message : String(error)}`, repo, file, null);
      }
    }
    if (total !== null && loaded !== total) {
      throw new HubError(`download of ${where(file)} ended after ${loaded} of ${total} bytes`, repo, file, null);
    }
    const bytes = new Uint8Array(loaded);
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    return bytes;
  }

  return {
    label: `hub ${repo}@${revision} (${baseUrl})`,
    async readFile(file, readOptions) {
      throwIfAborted(readOptions?.signal);
      const key = hubFileUrl(baseUrl, repo, revision, file);
      const cached = await cache?.get(key);
      if (cached) {
        readOptions?.onProgress?.({ file, loaded: cached.length, total: cached.length });
        return cached;
      }
      const response = await request(file, readOptions?.signal);
      if (!response) return null;
      const bytes = await readBody(file, response, readOptions);
      await cache?.put(key, bytes);
      return bytes;
    },
    async readRange(file, start, length, readOptions) {
      const cached = await cache?.get(hubFileUrl(baseUrl, repo, revision, file));
      if (cached) return { bytes: cached.subarray(start, start + length), fileSize: cached.length };
      if (length <= 0) return { bytes: new Uint8Array(0), fileSize: 0 };
      const response = await request(file, readOptions?.signal, `bytes=${start}-${start + length - 1}`);
      if (!response) return null;
      const contentRange = response.headers.get('content-range');
      const fileSize = Number(contentRange?.slice(contentRange.lastIndexOf('/') + 1));
      if (response.status === 416) {
        await response.body?.cancel();
        return { bytes: new Uint8Array(0), fileSize: Number.isFinite(fileSize) ? fileSize : start };
      }
      const bytes = await readBody(file, response, readOptions);
      if (response.status === 200) return { bytes: bytes.subarray(start, start + length), fileSize: bytes.length };
      if (!Number.isFinite(fileSize)) throw new HubError(`${where(file)}: range response without a usable Content-Range`, repo, file, response.status);
      return { bytes, fileSize };
    },
  };
}
