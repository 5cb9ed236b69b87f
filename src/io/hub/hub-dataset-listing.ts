// One folder of a Hub dataset repository as the tree API lists it: page after page as its Link headers lead (the Hub
// sends at most 1000 entries a page), each page under an idle timeout and a size cap, the pages and the entries
// counted against caps (a folder of 10^6 entries is refused, never read to the end), each next page checked to be the
// same listing on the same server (the token goes nowhere else), and each entry checked to be a path inside that
// folder before the caller may request it (a forged "../../" entry is refused).
import { DEFAULT_IDLE_TIMEOUT_MS, fetchUnderTimer, IdleTimer, readResponseBody } from './http-body.ts';
import { HubError } from './hub-error.ts';
import { hubTreeUrl, quotePath, repoPath, repoPathProblem, type HubRepo } from './hub-urls.ts';
import { describeJsonValue } from '../../util/json-value.ts';
import { clip } from '../format-error.ts';

/** How a Hub dataset is reached and bounded: the server, a token, and the limits of each request. */
export interface HubListing {
  baseUrl?: string;
  token?: string;
  fetch?: typeof fetch;
  /** A listing fails when no response, or no new bytes of it, came for this long (default 30 s). */
  timeoutMs?: number;
  /** A listing page's body larger than this is refused (default MAX_LISTING_BYTES). */
  maxListingBytes?: number;
  /** A folder listing more entries than this, over all its pages, is refused (default MAX_LISTED_ENTRIES). */
  maxListedEntries?: number;
  /** A data file larger than this is refused (default MAX_DATASET_FILE_BYTES). */
  maxFileBytes?: number;
}

/** The Hub lists a folder in pages of at most 1000 entries, a few hundred kB: a page past this is not the Hub's. */
export const MAX_LISTING_BYTES = 4 * 2 ** 20;

/**
 * The most entries one folder may list (10 of the Hub's pages): a split's Parquet files are held in memory together,
 * so a folder of more is no split this reader could train on, and its listing is not read to the end.
 */
export const MAX_LISTED_ENTRIES = 10_000;

/** The most pages one folder's listing may take (a server sending a few entries a page is stopped here). */
export const MAX_LISTING_PAGES = 100;

export interface ListedEntry {
  type: string;
  path: string;
  /** A file's bytes as the listing gives them (the Hub lists every file's size; absent: not listed). */
  size?: number;
}

/** The entries of `folder` ('' for the root), [] when the Hub has no such folder; every page of its listing. */
export async function listDatasetFolder(hub: HubRepo, folder: string, listing: HubListing): Promise<ListedEntry[]> {
  const first = hubTreeUrl(hub, folder);
  const mirror = `check that ${hub.baseUrl} is the Hugging Face Hub or a faithful mirror of it`;
  const fail = (message: string) => new HubError(message, hub.repo, folder, null);
  const listed = `${repoPath(hub)}${folder ? `/${folder}` : ''}`;
  const maxEntries = listing.maxListedEntries ?? MAX_LISTED_ENTRIES;
  const entries: ListedEntry[] = [];
  const seen = new Set<string>();
  for (let url: string | null = first, page = 1; url !== null; page++) {
    if (page > MAX_LISTING_PAGES)
      throw fail(
        `the listing of ${listed} at ${first} goes on past ${MAX_LISTING_PAGES} pages (${entries.length} entries so far), the most read; ${mirror}`,
      );
    seen.add(url);
    const read = await listingPage(hub, folder, url, listing, fail, mirror);
    if (read === null) {
      if (page === 1) return [];
      throw fail(`the listing of ${listed}: its page ${page} (${url}) is not found (HTTP 404); try again, or ${mirror}`);
    }
    const where = `the listing at ${url}`;
    const pageEntries = checkedEntries(read.entries, listed, folder, (problem) =>
      fail(`${where}${problem}; nothing was downloaded: ${mirror}`),
    );
    if (entries.length + pageEntries.length > maxEntries)
      throw fail(
        `${listed} lists more than ${maxEntries} entries (${entries.length + pageEntries.length} after ${page} page${page === 1 ? '' : 's'}), ` +
          `the most read in one folder: a split's Parquet files are held in memory together; name the subset (a folder) that holds the split's files, or download the files and train on them locally`,
      );
    for (const entry of pageEntries) entries.push(entry);
    url = nextPage(read.link, read.answeredAt, seen, (problem) => fail(`${where}: its next page ${problem}; ${mirror}`));
  }
  return entries;
}

/** One page of a listing: its entries as parsed and its Link header; null for a folder the Hub does not have. */
async function listingPage(
  hub: HubRepo,
  folder: string,
  url: string,
  listing: HubListing,
  fail: (message: string) => HubError,
  mirror: string,
): Promise<{ entries: unknown; link: string | null; answeredAt: string } | null> {
  const where = `the listing at ${url}`;
  const timer = new IdleTimer(listing.timeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, undefined);
  try {
    const response = await fetchUnderTimer({
      fetch: listing.fetch ?? globalThis.fetch.bind(globalThis),
      url,
      headers: listing.token ? { Authorization: `Bearer ${listing.token}` } : {},
      timer,
      doing: `could not list ${url}`,
      fail,
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      if (response.status === 404) return null;
      throw new HubError(
        `${where}: HTTP ${response.status}; a private or gated dataset needs a token`,
        hub.repo,
        folder,
        response.status,
      );
    }
    const bytes = await readResponseBody(
      response,
      { file: url, where, timer, fail },
      {
        maxFileBytes: listing.maxListingBytes ?? MAX_LISTING_BYTES,
        tooLargeAdvice: `a page of a Hub folder listing (at most 1000 entries) is far smaller: ${mirror}`,
      },
    );
    try {
      const entries: unknown = JSON.parse(new TextDecoder().decode(bytes));
      // after a redirect (a renamed repository), the next page is the listing where the answer came from
      return { entries, link: response.headers.get('link'), answeredAt: response.url || url };
    } catch (error) {
      throw fail(`${where} is not JSON (${(error as Error).message}); ${mirror}`);
    }
  } finally {
    timer.stop();
  }
}

/**
 * The URL of the next page from a Link header (`<url>; rel="next"`, as the Hub sends it), or null on the last page;
 * `refuse` makes the error for a next page that is not the listing at `page` on its server (another host would be
 * sent the token) or one already read (a loop).
 */
function nextPage(link: string | null, page: string, seen: Set<string>, refuse: (problem: string) => Error): string | null {
  const target = link && /<([^>]*)>\s*;[^,]*\brel\s*=\s*"?next"?/i.exec(link)?.[1];
  if (!target) return null;
  let next: URL;
  try {
    next = new URL(target, page);
  } catch {
    throw refuse(`${quotePath(clip(target, 200))} is not a URL`);
  }
  const start = new URL(page);
  if (next.origin !== start.origin || next.pathname !== start.pathname)
    throw refuse(`${quotePath(clip(next.href, 200))} is not this listing on this server (${start.origin}${start.pathname})`);
  if (seen.has(next.href)) throw refuse(`${quotePath(clip(next.href, 200))} was read already (the pages loop)`);
  return next.href;
}

/**
 * The entries, each a { type, path, size? } whose path lies inside `folder` and whose size, when listed, is a count of
 * bytes; `refuse` makes the error for the first that is not.
 */
function checkedEntries(entries: unknown, listed: string, folder: string, refuse: (problem: string) => Error): ListedEntry[] {
  if (!Array.isArray(entries)) throw refuse(' is not a list of entries');
  entries.forEach((entry: unknown, i) => {
    const { type, path } = (entry ?? {}) as { type?: unknown; path?: unknown };
    if (typeof entry !== 'object' || typeof type !== 'string' || typeof path !== 'string')
      throw refuse(`: entry ${i + 1} is not a { type, path } object of strings`);
    const problem = repoPathProblem(path) ?? (folder && !path.startsWith(`${folder}/`) ? 'it lies outside that folder' : null);
    if (problem) throw refuse(` names ${quotePath(path)}, which is not a path inside the folder listed (${listed}): ${problem}`);
    const { size } = entry as { size?: unknown };
    if (size !== undefined && !(typeof size === 'number' && Number.isSafeInteger(size) && size >= 0))
      throw refuse(`: entry ${i + 1} (${quotePath(path)}) has the size ${describeJsonValue(size)}, not a number of bytes`);
  });
  return entries as ListedEntry[];
}
