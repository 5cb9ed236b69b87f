// splade-search-worker.js, the published folder's search engine (bundled on its own by `splade-lab publish`): run as the
// page's search worker it answers {id, op} messages; imported on the page's thread (no worker allowed, or the caller's
// fetchBytes) it opens the folder there. The page's splade-search.js holds none of this code.
import { httpFetchBytes, SearchEngine, type FetchBytes, type SearchOptions, type SearchResult } from './engine.ts';
import type { SearchIndex } from './manifest.ts';

/** A published folder opened for searching, wherever its engine runs. */
export interface StaticSearch {
  manifest: SearchIndex;
  search(text: string, options?: SearchOptions): Promise<SearchResult>;
  close(): void;
}

export { httpFetchBytes } from './engine.ts';

/** The engine on the calling thread, reading the folder through `fetchBytes`. */
export async function openOnThisThread(fetchBytes: FetchBytes): Promise<StaticSearch> {
  const engine = await SearchEngine.open(fetchBytes);
  return { manifest: engine.manifest, search: (text, options) => engine.search(text, options), close: () => undefined };
}

/** Answers the page's messages when this file runs as the search worker. */
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

declare const WorkerGlobalScope: { new (): object } | undefined;

if (typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope)
  serveInWorker(self as unknown as Parameters<typeof serveInWorker>[0]);
