// splade-search.js, the published folder's runtime on the page (bundled from this folder by `splade-lab publish`, no
// other import): `openSearch(base)` and `search(text, {k})` over the folder it sits in, and the <splade-search>
// element; the engine itself is splade-search-worker.js beside it (search-worker.ts), started as a worker.
import { defineSpladeSearchElement } from './element.ts';
import type { SearchOptions, SearchResult } from './engine.ts';
import { openStaticSearch, type OpenOptions, type StaticSearch } from './static-search.ts';

export type { Hit, SearchOptions, SearchResult, WhyTerm } from './engine.ts';
export type { StaticSearch } from './static-search.ts';

const HERE = new URL('./', import.meta.url).href;

/** Opens a published folder (default: the folder this file was loaded from). */
export function openSearch(base: string | URL = HERE, options: OpenOptions = {}): Promise<StaticSearch> {
  return openStaticSearch(import.meta.url, new URL(String(base), HERE).href, options);
}

let shared: Promise<StaticSearch> | null = null;

/** Searches the folder this file was loaded from: hits with scores and why each matched. */
export async function search(text: string, options: SearchOptions = {}): Promise<SearchResult> {
  shared ??= openSearch();
  shared.catch(() => (shared = null));
  return (await shared).search(text, options);
}

if (typeof HTMLElement !== 'undefined') defineSpladeSearchElement((base) => openSearch(base ?? HERE));
