// What a visitor's browser transfers for one search of a published folder with nothing cached: the runtime and page,
// then each file a fresh engine reads for the query (issue 46's "per cold query", p50 and p90 over a set's queries).
import { SearchEngine } from '../../publish-runtime/engine.ts';
import { WORKER_FILE } from '../../publish-runtime/static-search.ts';
import { siteReader, type BuiltSite } from './publish-site.ts';
import type { ColdQueryTransfer } from '../../contract/evaluation/published-search.ts';

/** The files every visit loads before its first search: the page, the runtime and its engine. */
export const RUNTIME_FILES = ['index.html', 'splade-search.js', WORKER_FILE] as const;

/** The nearest-rank percentile (p in 0..1) of a non-empty list. */
function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
}

/**
 * Searches each text (its top 10) on a fresh engine reading the folder in memory, counting every byte and file it
 * reads; null when no text is given.
 */
export async function coldQueryTransfer(
  site: Pick<BuiltSite, 'files' | 'manifestBytes'>,
  texts: readonly string[],
  maxQueries = 300,
): Promise<ColdQueryTransfer | null> {
  const measured = texts.slice(0, maxQueries);
  if (measured.length === 0) return null;
  const read = siteReader(site);
  const sizes = new Map(site.files.map((f) => [f.path, f.bytes.length]));
  const runtime = RUNTIME_FILES.reduce((sum, path) => sum + (sizes.get(path) ?? 0), 0);
  const bytes: number[] = [];
  const files: number[] = [];
  for (const text of measured) {
    let fetched = 0;
    let count = 0;
    const engine = await SearchEngine.open(async (path) => {
      const file = await read(path);
      fetched += file.length;
      count++;
      return file;
    });
    await engine.search(text, { k: 10 });
    bytes.push(runtime + fetched);
    files.push(RUNTIME_FILES.length + count);
  }
  return {
    queries: measured.length,
    p50: percentile(bytes, 0.5),
    p90: percentile(bytes, 0.9),
    runtime,
    filesP50: percentile(files, 0.5),
    filesP90: percentile(files, 0.9),
  };
}
