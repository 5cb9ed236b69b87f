// One folder of a Hub dataset repository as the tree API lists it, under an idle timeout and a size cap, each entry
// checked to be a path inside that folder before the caller may request it (a forged "../" entry is refused).
import { DEFAULT_IDLE_TIMEOUT_MS, fetchUnderTimer, IdleTimer, readResponseBody } from './http-body.ts';
import { HubError } from './hub-error.ts';
import { hubTreeUrl, quotePath, repoPath, repoPathProblem, type HubRepo } from './hub-urls.ts';
import { describeJsonValue } from '../util/json-value.ts';

/** How a Hub dataset is reached and bounded: the server, a token, and the limits of each request. */
export interface HubListing {
  baseUrl?: string;
  token?: string;
  fetch?: typeof fetch;
  /** A listing fails when no response, or no new bytes of it, came for this long (default 30 s). */
  timeoutMs?: number;
  /** A listing body larger than this is refused (default MAX_LISTING_BYTES). */
  maxListingBytes?: number;
  /** A data file larger than this is refused (default MAX_DATASET_FILE_BYTES). */
  maxFileBytes?: number;
}

/** The Hub lists a folder in pages of at most 1000 entries, a few hundred kB: a listing past this is not the Hub's. */
export const MAX_LISTING_BYTES = 4 * 2 ** 20;

export interface ListedEntry {
  type: string;
  path: string;
  /** A file's bytes as the listing gives them (the Hub lists every file's size; absent: not listed). */
  size?: number;
}

/** The entries of `folder` ('' for the root), [] when the Hub has no such folder. */
export async function listDatasetFolder(hub: HubRepo, folder: string, listing: HubListing): Promise<ListedEntry[]> {
  const url = hubTreeUrl(hub, folder);
  const where = `the listing at ${url}`;
  const mirror = `check that ${hub.baseUrl} is the Hugging Face Hub or a faithful mirror of it`;
  const fail = (message: string) => new HubError(message, hub.repo, folder, null);
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
      if (response.status === 404) return [];
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
        tooLargeAdvice: `a Hub folder listing is far smaller: ${mirror}`,
      },
    );
    let entries: unknown;
    try {
      entries = JSON.parse(new TextDecoder().decode(bytes));
    } catch (error) {
      throw fail(`${where} is not JSON (${(error as Error).message}); ${mirror}`);
    }
    return checkedEntries(entries, `${repoPath(hub)}${folder ? `/${folder}` : ''}`, folder, (problem) =>
      fail(`${where}${problem}; nothing was downloaded: ${mirror}`),
    );
  } finally {
    timer.stop();
  }
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
