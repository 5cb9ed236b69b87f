// A published folder opened for searching: in a module Web Worker running this same file where the page can start
// one, otherwise on the calling thread (Node, or a page that forbids workers). Imports nothing outside this folder.
import { httpFetchBytes, SearchEngine, type FetchBytes, type SearchOptions, type SearchResult } from './engine.ts';
import type { SearchIndex } from './manifest.ts';

export interface StaticSearch {
  manifest: SearchIndex;
  search(text: string, options?: SearchOptions): Promise<SearchResult>;
  close(): void;
}

export interface OpenOptions {
  /** Reads the folder's files (default: fetch relative to `base`); given, the search runs on this thread. */
  fetchBytes?: FetchBytes;
  /** false: run on this thread even where a worker could start. */
  worker?: boolean;
}

/** The engine on this thread. */
async function inline(fetchBytes: FetchBytes): Promise<StaticSearch> {
  const engine = await SearchEngine.open(fetchBytes);
  return { manifest: engine.manifest, search: (text, options) => engine.search(text, options), close: () => undefined };
}

interface Reply {
  id: number;
  ok: boolean;
  value?: unknown;
  error?: string;
}

/** The engine in a module worker started from `moduleUrl` (this bundle), which answers {id, op} messages. */
async function inWorker(moduleUrl: string, base: string): Promise<StaticSearch> {
  const worker = new Worker(moduleUrl, { type: 'module', name: 'splade-search' });
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

/** Opens the folder at `base` (a URL ending in "/"); `moduleUrl` is this bundle's own URL, the worker's script. */
export async function openStaticSearch(moduleUrl: string, base: string, options: OpenOptions = {}): Promise<StaticSearch> {
  const folder = base.endsWith('/') ? base : `${base}/`;
  if (options.fetchBytes) return inline(options.fetchBytes);
  if (options.worker !== false && typeof Worker !== 'undefined') {
    try {
      return await inWorker(moduleUrl, folder);
    } catch {
      // a worker that cannot start (a page's CSP, an old browser without module workers) leaves this thread
    }
  }
  return inline(httpFetchBytes(folder));
}

/** Answers the page's messages when this bundle runs as the search worker. */
export function serveInWorker(scope: {
  onmessage: ((event: MessageEvent) => void) | null;
  postMessage(message: unknown): void;
}): void {
  let engine: Promise<SearchEngine> | null = null;
  scope.onmessage = async (event: MessageEvent) => {
    const { id, op, base, text, options } = event.data as {
      id: number;
      op: string;
      base: string;
      text: string;
      options: SearchOptions;
    };
    try {
      let value: unknown;
      if (op === 'open') {
        engine = SearchEngine.open(httpFetchBytes(base));
        value = (await engine).manifest;
      } else if (op === 'search' && engine) value = await (await engine).search(text, options);
      else throw new Error(`unknown request ${op}`);
      scope.postMessage({ id, ok: true, value });
    } catch (error) {
      scope.postMessage({ id, ok: false, error: error instanceof Error ? error.message : String(error) });
    }
  };
}
