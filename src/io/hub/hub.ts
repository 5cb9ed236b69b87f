// Hugging Face Hub files as a FileSource: <base>/<repo>/resolve/<revision>/<file>, streamed with progress, cancel,
// an idle timeout and a size cap, optionally cached; 401/404/network failures become HubErrors naming repo and file.
import { clip } from '../format-error.ts';
import { throwIfAborted, type FileSource, type ReadOptions } from '../file-source.ts';
import { DEFAULT_IDLE_TIMEOUT_MS, fetchUnderTimer, IdleTimer, readResponseBody } from './http-body.ts';
import { HubError } from './hub-error.ts';
import { hubFileUrl, hubIdProblem, repoPath as pathOfRepo, type HubRepo } from './hub-urls.ts';

/** Stores downloaded files by URL (Cache Storage in the page, a folder in Node). `put` may throw (a full storage). */
export interface FileCache {
  get(key: string): Promise<Uint8Array | null>;
  put(key: string, bytes: Uint8Array): Promise<void>;
}

export { HubError };

export interface HubOptions {
  /** "org/name". */
  repo: string;
  /** A model repository (default) or a dataset repository (URLs under /datasets/). */
  repoType?: 'model' | 'dataset';
  revision?: string;
  /** Defaults to https://huggingface.co; tests point it at a local server. */
  baseUrl?: string;
  /** Access token for gated or private repos. */
  token?: string;
  cache?: FileCache;
  fetch?: typeof fetch;
  /** A request fails when no response, or no new bytes of its body, came for this long (default 30 s). */
  timeoutMs?: number;
  /** Called with each warning as it is recorded in the source's `warnings` (a file that could not be cached). */
  onWarning?: (message: string) => void;
}

/** A Hub source also keeps the warnings of its reads: files it could not cache (they still loaded). */
export interface HubFileSource extends FileSource {
  readonly warnings: string[];
}

export const DEFAULT_HUB_URL = 'https://huggingface.co';

function isQuotaError(error: unknown): boolean {
  return (error as { name?: string })?.name === 'QuotaExceededError';
}

export function createHubSource(options: HubOptions): HubFileSource {
  const { repo, cache } = options;
  const revision = options.revision ?? 'main';
  const problem = hubIdProblem(repo, revision);
  if (problem) throw new Error(problem);
  const baseUrl = options.baseUrl ?? DEFAULT_HUB_URL;
  const timeoutMs = options.timeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const hub: HubRepo = { baseUrl, repo, type: options.repoType ?? 'model', revision };
  const repoPath = pathOfRepo(hub);
  const where = (file: string) => `${file} of ${repoPath}@${revision} (${baseUrl})`;
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    options.onWarning?.(message);
  };

  /** Issues the request; returns null for a missing file, throws a HubError for anything else that failed. */
  async function request(
    file: string,
    timer: IdleTimer,
    signal: AbortSignal | undefined,
    range?: string,
  ): Promise<Response | null> {
    const headers: Record<string, string> = Object.create(null);
    if (options.token) headers.Authorization = `Bearer ${options.token}`;
    if (range) headers.Range = range;
    const response = await fetchUnderTimer({
      fetch: doFetch,
      url: hubFileUrl(hub, file),
      headers,
      timer,
      signal,
      doing: `could not download ${where(file)}`,
      fail: (message) => new HubError(message, repo, file, null),
    });
    if (response.ok || response.status === 416) return response;
    await response.body?.cancel().catch(() => undefined);
    const code = response.headers.get('x-error-code');
    if (response.status === 404 && code !== 'RepoNotFound' && code !== 'RevisionNotFound') return null;
    if (response.status === 401 || response.status === 403 || code === 'RepoNotFound') {
      throw new HubError(
        `${where(file)}: HTTP ${response.status} — the repo does not exist, is private or is gated; check the id or pass a token`,
        repo,
        file,
        response.status,
      );
    }
    if (code === 'RevisionNotFound')
      throw new HubError(`${where(file)}: revision "${clip(revision, 60)}" not found`, repo, file, response.status);
    throw new HubError(`${where(file)}: HTTP ${response.status} ${clip(response.statusText, 60)}`, repo, file, response.status);
  }

  /** Runs one request and reads its body under one idle timer; a 206 answer may not exceed the range asked for. */
  async function download(
    file: string,
    readOptions: ReadOptions | undefined,
    range?: { start: number; length: number },
  ): Promise<{ response: Response; bytes: Uint8Array } | null> {
    const timer = new IdleTimer(timeoutMs, readOptions?.signal);
    try {
      const header = range && `bytes=${range.start}-${range.start + range.length - 1}`;
      const response = await request(file, timer, readOptions?.signal, header);
      if (!response) return null;
      if (response.status === 416) {
        await response.body?.cancel().catch(() => undefined);
        return { response, bytes: new Uint8Array(0) };
      }
      const fail = (message: string) => new HubError(message, repo, file, null);
      const maxFileBytes =
        range && response.status === 206
          ? Math.min(range.length, readOptions?.maxFileBytes ?? Infinity)
          : readOptions?.maxFileBytes;
      return {
        response,
        bytes: await readResponseBody(response, { file, where: where(file), timer, fail }, { ...readOptions, maxFileBytes }),
      };
    } finally {
      timer.stop();
    }
  }

  async function cached(key: string, file: string): Promise<Uint8Array | null> {
    if (!cache) return null;
    try {
      return await cache.get(key);
    } catch (error) {
      warn(
        `${file}: the download cache could not be read (${clip(error instanceof Error ? error.message : String(error), 100)}); downloading it again`,
      );
      return null;
    }
  }

  async function store(key: string, file: string, bytes: Uint8Array): Promise<void> {
    if (!cache) return;
    try {
      await cache.put(key, bytes);
    } catch (error) {
      const why = isQuotaError(error)
        ? 'the browser storage is full (QuotaExceededError)'
        : clip(error instanceof Error ? error.message : String(error), 100);
      warn(
        `${file} was not cached: ${why}. The model still loads; the file will be downloaded again next time (free site storage to cache it).`,
      );
    }
  }

  return {
    label: `hub ${repoPath}@${clip(revision, 60)} (${baseUrl})`,
    warnings,
    async readFile(file, readOptions) {
      throwIfAborted(readOptions?.signal);
      const key = hubFileUrl(hub, file);
      const hit = await cached(key, file);
      if (hit) {
        readOptions?.onProgress?.({ file, loaded: hit.length, total: hit.length });
        return hit;
      }
      const result = await download(file, readOptions);
      if (!result) return null;
      await store(key, file, result.bytes);
      return result.bytes;
    },
    async readRange(file, start, length, readOptions) {
      const hit = await cached(hubFileUrl(hub, file), file);
      if (hit) return { bytes: hit.subarray(start, start + length), fileSize: hit.length };
      if (length <= 0) return { bytes: new Uint8Array(0), fileSize: 0 };
      const result = await download(file, readOptions, { start, length });
      if (!result) return null;
      const { response, bytes } = result;
      const contentRange = response.headers.get('content-range');
      const fileSize = Number(contentRange?.slice(contentRange.lastIndexOf('/') + 1));
      if (response.status === 416) return { bytes, fileSize: Number.isFinite(fileSize) ? fileSize : start };
      if (response.status === 200) return { bytes: bytes.subarray(start, start + length), fileSize: bytes.length };
      if (!Number.isFinite(fileSize))
        throw new HubError(`${where(file)}: range response without a usable Content-Range`, repo, file, response.status);
      return { bytes, fileSize };
    },
  };
}
