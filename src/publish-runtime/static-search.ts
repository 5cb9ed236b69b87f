// A published folder opened for searching: in a module Web Worker running the engine's file (splade-search-worker.js)
// where the page can start one, otherwise on the calling thread with that file imported (a page that forbids workers,
// or files read through the caller's fetchBytes). The page's own file holds no engine. Imports nothing outside this
// folder, and the engine's file only by its URL.
import type { FetchBytes, SearchResult } from './engine.ts';
import type { SearchIndex } from './manifest.ts';
import type * as EngineFile from './search-worker.ts';
import type { StaticSearch } from './search-worker.ts';

/** The engine's file, beside the page's (src/publish-runtime/search-worker.ts, bundled on its own). */
export const WORKER_FILE = 'splade-search-worker.js';

export type { StaticSearch } from './search-worker.ts';

export interface OpenOptions {
  /** Reads the folder's files (default: fetch relative to `base`); given, the search runs on this thread. */
  fetchBytes?: FetchBytes;
  /** false: run on this thread even where a worker could start. */
  worker?: boolean;
}

/** The engine on this thread: its file imported from beside this one, reading the folder through `fetchBytes`. */
async function inline(moduleUrl: string, fetchBytes: FetchBytes | null, folder: string): Promise<StaticSearch> {
  const engineFile = (await import(new URL(WORKER_FILE, moduleUrl).href)) as typeof EngineFile;
  return engineFile.openOnThisThread(fetchBytes ?? engineFile.httpFetchBytes(folder));
}

interface Reply {
  id: number;
  ok: boolean;
  value?: unknown;
  error?: string;
}

/** The engine in a module worker started from its file beside `moduleUrl`, which answers {id, op} messages. */
async function inWorker(moduleUrl: string, base: string): Promise<StaticSearch> {
  const worker = new Worker(new URL(WORKER_FILE, moduleUrl), { type: 'module', name: 'splade-search' });
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let next = 0;
  worker.onmessage = (event: MessageEvent<Reply>) => {
    const { id, ok, value, error } = event.data;
    const call = pending.get(id);
    pending.delete(id);
    if (ok) call?.resolve(value);
    else call?.reject(new Error(error));
  };
  worker.onerror = (event) => {
    for (const call of pending.values())
      call.reject(new Error(`the search worker failed (${event.message || 'it could not start'})`));
    pending.clear();
  };
  const call = <T>(message: Record<string, unknown>) =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.postMessage({ id, ...message });
    });
  try {
    const manifest = await call<SearchIndex>({ op: 'open', base });
    return {
      manifest,
      search: (text, options) => call<SearchResult>({ op: 'search', text, options }),
      close: () => worker.terminate(),
    };
  } catch (error) {
    worker.terminate();
    throw error;
  }
}

/** Opens the folder at `base` (a URL ending in "/"); `moduleUrl` is the page's runtime file's URL (the engine's is beside). */
export async function openStaticSearch(moduleUrl: string, base: string, options: OpenOptions = {}): Promise<StaticSearch> {
  const folder = base.endsWith('/') ? base : `${base}/`;
  if (options.fetchBytes) return inline(moduleUrl, options.fetchBytes, folder);
  if (options.worker !== false && typeof Worker !== 'undefined') {
    try {
      return await inWorker(moduleUrl, folder);
    } catch {
      // a worker that cannot start (a page's CSP, an old browser without module workers) leaves this thread
    }
  }
  return inline(moduleUrl, null, folder);
}
