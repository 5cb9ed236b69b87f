// The published folder's runtime in the page: the two bundles the page's build serves beside it (vite.config.ts's
// searchRuntimeFiles, bundled as `splade-lab publish` bundles them), fetched when a folder is published.
import { WORKER_FILE } from '../../publish-runtime/static-search.ts';
import type { PublishRuntime } from './publish-site.ts';

/** The folder beside the page that holds splade-search.js and its engine. */
export const SEARCH_RUNTIME_FOLDER = 'search-runtime/';

async function fetchBytes(url: URL): Promise<Uint8Array> {
  const response = await fetch(url);
  if (!response.ok)
    throw new Error(`${url.href}: ${response.status} ${response.statusText}; the page's build serves the search runtime there`);
  return new Uint8Array(await response.arrayBuffer());
}

/** splade-search.js and its engine from `base` (the URL of SEARCH_RUNTIME_FOLDER). */
export async function fetchSearchRuntime(base: string): Promise<PublishRuntime> {
  const [script, worker] = await Promise.all([
    fetchBytes(new URL('splade-search.js', base)),
    fetchBytes(new URL(WORKER_FILE, base)),
  ]);
  return { script, worker };
}
