// A Hub dataset's folder listing, bounded (issue 42, round 2's leftovers): a listing that never answers, or stalls,
// gives up after 30 s without a byte (the default, on a fake clock; every page and the split folder's own listing
// too); a folder of 10^6 entries is refused at a cap that the message names, in one page or over the Hub's pages of
// 1000, never read to the end; the pages a Link header leads to are followed (a split whose files are on page 3 is
// read whole) but only on the same listing and server; and a dataset id with characters a repo name cannot hold is
// refused as an id, naming the allowed characters, before any request.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PROMPTLY_MS } from '../../helpers/promptly.ts';
import { HubError, createHubSource } from '../../../src/io/hub/hub.ts';
import { listSplitParquet, MAX_LISTED_ENTRIES, MAX_LISTING_BYTES, MAX_LISTING_PAGES } from '../../../src/io/hub/hub-dataset.ts';

const BASE = 'http://hub.test';
const TREE = `${BASE}/api/datasets/someone/triplets/tree/main`;

afterEach(() => void vi.useRealTimers());

/** A fetch that answers by URL and records each URL and its Authorization header. */
function fakeHub(answer: (url: string, signal: AbortSignal) => Response | Promise<Response>) {
  const requests: { url: string; token: string | null }[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    requests.push({ url, token: new Headers(init?.headers).get('authorization') });
    return answer(url, init!.signal!);
  }) as typeof globalThis.fetch;
  return { fetch, requests };
}

/** A promise that never settles until `signal` aborts (a server that never answers). */
const never = (signal: AbortSignal) =>
  new Promise<Response>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));

const json = (value: unknown, link?: string) =>
  new Response(JSON.stringify(value), { headers: link ? { Link: `<${link}>; rel="next"` } : {} });

/** Entries `from`..`to` - 1 of a folder: Parquet shards of the train split. */
const shards = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => ({
    type: 'file',
    path: `train-${String(from + i).padStart(7, '0')}.parquet`,
    size: 100,
  }));

/** Settles `promise` to its error (or null), without an unhandled rejection while a fake clock runs. */
const settled = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: Error) => error,
  );

describe('a listing gives up after 30 s without a byte', () => {
  it('one that never answers fails at 30 s on the default timeout, not before', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const hub = fakeHub((_, signal) => never(signal));
    let error: Error | null | undefined;
    void settled(listSplitParquet({ repo: 'someone/triplets' }, { baseUrl: BASE, fetch: hub.fetch })).then((e) => (error = e));
    await vi.advanceTimersByTimeAsync(29_999);
    expect(error).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(error).toBeInstanceOf(HubError);
    expect(error?.message).toBe(`could not list ${TREE}: no response for 30 s; check the connection and try again`);
  });

  it('one whose body stops after 1 KiB fails 30 s after its last byte', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const hub = fakeHub(() => new Response(new ReadableStream({ start: (c) => c.enqueue(new Uint8Array(1024).fill(0x20)) })));
    let error: Error | null | undefined;
    void settled(listSplitParquet({ repo: 'someone/triplets' }, { baseUrl: BASE, fetch: hub.fetch })).then((e) => (error = e));
    await vi.advanceTimersByTimeAsync(29_999);
    expect(error).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(error?.message).toBe(
      `download of the listing at ${TREE} stalled: no bytes for 30 s after 1024 bytes; check the connection and try again`,
    );
  });

  it.each([
    ['the split folder', `${TREE}/train`, (url: string) => (url === TREE ? json([{ type: 'directory', path: 'train' }]) : null)],
    ['a second page', `${TREE}?cursor=2`, (url: string) => (url === TREE ? json(shards(0, 2), `${TREE}?cursor=2`) : null)],
  ])("%s's listing is under the timeout too", async (_, silent, first) => {
    const hub = fakeHub((url, signal) => first(url) ?? never(signal));
    const error = await settled(
      listSplitParquet({ repo: 'someone/triplets' }, { baseUrl: BASE, fetch: hub.fetch, timeoutMs: 100 }),
    );
    expect(error?.message).toBe(`could not list ${silent}: no response for 0.1 s; check the connection and try again`);
  });
});

describe('a folder of 10^6 entries', () => {
  it(`in one page: refused at the ${MAX_LISTING_BYTES / 2 ** 20} MiB cap of a page, read no further`, async () => {
    let made = 0;
    const page = () => {
      let i = 0;
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (i >= 1e6) return controller.close();
          const part = shards(i, Math.min(i + 1000, 1e6)).map((e) => JSON.stringify(e));
          const text = (i === 0 ? '[' : ',') + part.join(',') + (i + 1000 >= 1e6 ? ']' : '');
          i += 1000;
          const bytes = new TextEncoder().encode(text);
          made += bytes.length;
          controller.enqueue(bytes);
        },
      });
    };
    const hub = fakeHub(() => new Response(page()));
    const started = performance.now();
    const error = await settled(listSplitParquet({ repo: 'someone/triplets' }, { baseUrl: BASE, fetch: hub.fetch }));
    expect(error?.message).toMatch(
      new RegExp(
        `^the listing at ${TREE} is 4\\.\\d MiB, over the 4\\.0 MiB allowed here; a page of a Hub folder listing \\(at most 1000 entries\\) is far smaller`,
      ),
    );
    expect(made).toBeLessThan(MAX_LISTING_BYTES + 256 * 1024); // the 60 MB page was never made
    expect(performance.now() - started).toBeLessThan(PROMPTLY_MS);
  });

  it(`over the Hub's pages of 1000: refused past ${MAX_LISTED_ENTRIES} entries, after 11 pages of the 1000`, async () => {
    const hub = fakeHub((url) => {
      const page = Number(new URL(url).searchParams.get('cursor') ?? 0);
      return json(shards(1000 * page, 1000 * page + 1000), page < 999 ? `${TREE}?cursor=${page + 1}` : undefined);
    });
    const error = await settled(listSplitParquet({ repo: 'someone/triplets' }, { baseUrl: BASE, fetch: hub.fetch }));
    expect(error?.message).toBe(
      `datasets/someone/triplets lists more than ${MAX_LISTED_ENTRIES} entries (11000 after 11 pages), the most read in one folder: ` +
        "a split's Parquet files are held in memory together; name the subset (a folder) that holds the split's files, or download the files and train on them locally",
    );
    expect(hub.requests).toHaveLength(11);
  });

  it(`a server sending one entry a page is stopped after ${MAX_LISTING_PAGES} pages`, async () => {
    const hub = fakeHub((url) => {
      const page = Number(new URL(url).searchParams.get('cursor') ?? 0);
      return json(shards(page, page + 1), `${TREE}?cursor=${page + 1}`);
    });
    const error = await settled(listSplitParquet({ repo: 'someone/triplets' }, { baseUrl: BASE, fetch: hub.fetch }));
    expect(error?.message).toBe(
      `the listing of datasets/someone/triplets at ${TREE} goes on past ${MAX_LISTING_PAGES} pages (${MAX_LISTING_PAGES} entries so far), the most read; check that ${BASE} is the Hugging Face Hub or a faithful mirror of it`,
    );
    expect(hub.requests).toHaveLength(MAX_LISTING_PAGES);
  });
});

describe("the listing's pages", () => {
  it('are followed as the Link header leads: a split whose shards lie on three pages is read whole, with the token', async () => {
    const hub = fakeHub((url) => {
      const page = Number(new URL(url).searchParams.get('cursor') ?? 0);
      return json(shards(1000 * page, Math.min(1000 * page + 1000, 2500)), page < 2 ? `${TREE}?cursor=${page + 1}` : undefined);
    });
    const files = await listSplitParquet({ repo: 'someone/triplets' }, { baseUrl: BASE, fetch: hub.fetch, token: 'hf_x' });
    expect(files).toHaveLength(2500);
    expect(files.at(-1)).toBe('train-0002499.parquet');
    expect(hub.requests).toEqual([0, 1, 2].map((p) => ({ url: p ? `${TREE}?cursor=${p}` : TREE, token: 'Bearer hf_x' })));
  });

  it.each([
    [
      'on another server',
      'http://elsewhere.test/api/datasets/someone/triplets/tree/main?cursor=1',
      'is not this listing on this server',
    ],
    ['of another repository', `${BASE}/api/datasets/other/private/tree/main?cursor=1`, 'is not this listing on this server'],
    ['read already', TREE, 'was read already (the pages loop)'],
  ])('are refused %s, never requested (the token goes nowhere else)', async (_, next, problem) => {
    const hub = fakeHub(() => json(shards(0, 2), next));
    const error = await settled(
      listSplitParquet({ repo: 'someone/triplets' }, { baseUrl: BASE, fetch: hub.fetch, token: 'hf_x' }),
    );
    expect(error).toBeInstanceOf(HubError);
    expect(error?.message).toContain(`the listing at ${TREE}: its next page "${next}" ${problem}`);
    expect(hub.requests.map((r) => r.url)).toEqual([TREE]);
  });
});

describe('a dataset id a repo name cannot hold', () => {
  it.each(['org/na%2fme', 'org/name?x=1#f', 'org/na me', 'org/name#', 'org/../x'])(
    '%s is refused as an id, naming the allowed characters, before any request',
    async (repo) => {
      const hub = fakeHub(() => json([]));
      const error = await settled(listSplitParquet({ repo }, { baseUrl: BASE, fetch: hub.fetch }));
      const message = `"${repo}" is not a Hub repo id: expected "org/name", each part letters, digits, "-", "_" or "." (no "--" or ".."), at most 96 characters`;
      expect(error).toBeInstanceOf(HubError);
      expect(error?.message).toBe(message);
      expect(() => createHubSource({ repo, repoType: 'dataset', baseUrl: BASE, fetch: hub.fetch })).toThrow(message);
      expect(hub.requests).toEqual([]);
    },
  );

  it("a subset or revision's ? and # are part of the path asked for, never a query or fragment", async () => {
    const hub = fakeHub(() => new Response('', { status: 404 }));
    await settled(
      listSplitParquet({ repo: 'someone/triplets', subset: 'a?x=1#f', revision: 'v1?y#z' }, { baseUrl: BASE, fetch: hub.fetch }),
    );
    expect(hub.requests.map((r) => r.url)).toEqual([`${BASE}/api/datasets/someone/triplets/tree/v1%3Fy%23z/a%3Fx%3D1%23f`]);
  });
});
