// The published search tried in the page: splade-search.js's own <splade-search> element over a folder held in memory,
// its engine on this thread (a published site runs the same engine in a worker, reading the folder over HTTP).
import { defineSpladeSearchElement } from '../../publish-runtime/element.ts';
import { openOnThisThread } from '../../publish-runtime/search-worker.ts';

/** The folders the page's <splade-search> elements may open, by their `src` (one at a time: the last published). */
const folders = new Map<string, ReadonlyMap<string, Uint8Array>>();
let published = 0;

defineSpladeSearchElement((src) => {
  const files = src === undefined ? undefined : folders.get(src);
  if (!files) return Promise.reject(new Error(`no published folder "${src ?? ''}" in this page`));
  return openOnThisThread(async (path) => {
    const bytes = files.get(path);
    if (!bytes) throw new Error(`${path} is not in the published folder`);
    return bytes;
  });
});

/** Keeps `files` (the published folder by path) for a <splade-search src=…>; returns that `src`. */
export function previewFolder(files: ReadonlyMap<string, Uint8Array>): string {
  folders.clear();
  const src = `published-${++published}`;
  folders.set(src, files);
  return src;
}
