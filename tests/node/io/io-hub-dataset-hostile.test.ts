// A Hub dataset read from a hostile or broken server: listing entries, a subset or a split that would leave the
// dataset repository are refused before any request outside it; a listing that never answers, and a listing or
// Parquet body that stalls or never ends, fail within their timeout or size cap, naming the URL, the limit and what
// to do (small timeouts and caps through the options keep each case to a fraction of a second).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubDatasetRef } from '../../../src/contract/data-sources.ts';
import { FileTooLargeError, type FileSource } from '../../../src/io/file-source.ts';
import { MAX_DATASET_FILE_BYTES, readHubDatasetTriplets, type HubListing } from '../../../src/io/hub-dataset.ts';
import { createHubSource, HubError } from '../../../src/io/hub.ts';
import { startHubServer, type HostileAnswer, type HubServer } from '../../helpers/hub-server.ts';

const REPO = 'someone/triplets';

const shard = (queries: string[]) =>
  new Uint8Array(
    parquetWriteBuffer({
      columnData: [
        { name: 'query', data: queries, type: 'STRING' },
        { name: 'positive', data: queries.map((q) => `the ${q} study`), type: 'STRING' },
        { name: 'negative', data: queries.map(() => 'the sun and the moon'), type: 'STRING' },
      ],
    }),
  );

/** Forged listings by folder; the other hostile answers by the exact request path. */
const FORGED: Record<string, unknown> = {
  escape: [{ type: 'file', path: '../../../../../other/private/resolve/main/train-0.parquet' }],
  dots: [{ type: 'file', path: 'dots/../../x/train-0.parquet' }],
  elsewhere: [{ type: 'file', path: 'triplet/train-00000-of-00001.parquet' }],
  absolute: [{ type: 'file', path: '/train-0.parquet' }],
  control: [{ type: 'file', path: 'control/\u001b]0;owned\u0007train-0.parquet' }],
  shapeless: [{ type: 'file', path: 42 }, 'train.parquet'],
  'not-a-list': { path: 'x' },
};
const ANSWERS: Record<string, HostileAnswer> = {
  '/api/datasets/someone/triplets/tree/main/silent': 'no-answer',
  '/api/datasets/someone/triplets/tree/main/endless': 'endless-body',
  '/api/datasets/someone/triplets/tree/main/stalled': 'stalled-body',
  '/datasets/someone/triplets/resolve/main/big/train-00000-of-00001.parquet': 'endless-body',
  '/datasets/someone/triplets/resolve/main/slow/train-00000-of-00001.parquet': 'stalled-body',
};

let root: string;

let hub: HubServer;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-hub-hostile-'));
  const repo = join(root, 'datasets', REPO);
  for (const folder of ['triplet', 'big', 'slow']) {
    await mkdir(join(repo, folder), { recursive: true });
    await writeFile(join(repo, folder, 'train-00000-of-00001.parquet'), shard(['cat', 'dog']));
  }
  // another repository on the same server, which a forged listing points at
  await mkdir(join(root, 'other', 'private'), { recursive: true });
  await writeFile(join(root, 'other', 'private', 'train-0.parquet'), shard(['secret']));
  hub = await startHubServer(root, {
    hostile: (path) => {
      const forged = /^\/api\/datasets\/someone\/triplets\/tree\/main\/(.+)$/.exec(path)?.[1];
      return forged !== undefined && forged in FORGED ? { listing: FORGED[forged] } : ANSWERS[path];
    },
  });
});
afterAll(async () => {
  await hub.close();
  await rm(root, { recursive: true, force: true });
});

/** Reads `ref` as the training-data reader does, with the test's small limits, and the requests it made. */
async function read(ref: Omit<HubDatasetRef, 'repo'>, limits: HubListing = {}) {
  const before = hub.requests.length;
  const files = createHubSource({ repo: REPO, repoType: 'dataset', baseUrl: hub.baseUrl, timeoutMs: limits.timeoutMs });
  const result = readHubDatasetTriplets({ repo: REPO, ...ref }, files, { baseUrl: hub.baseUrl, ...limits });
  const settled = await result.then(
    (value) => ({ value, error: null }),
    (error: unknown) => ({ value: null, error: error as Error }),
  );
  return { ...settled, requests: hub.requests.slice(before) };
}

describe('Hub dataset paths stay inside datasets/<org>/<name>', () => {
  it('reads an honest subset (the baseline the refusals are measured against)', async () => {
    const { value, error } = await read({ subset: 'triplet' });
    expect(error).toBeNull();
    expect(value?.triplets.map((t) => t.query)).toEqual(['cat', 'dog']);
  });

  it.each([
    ['escape', '"../../../../../other/private/resolve/main/train-0.parquet"', 'it has a ".." part'],
    ['dots', '"dots/../../x/train-0.parquet"', 'it has a ".." part'],
    ['elsewhere', '"triplet/train-00000-of-00001.parquet"', 'it lies outside that folder'],
    ['absolute', '"/train-0.parquet"', 'it starts with "/"'],
    ['control', '"control/\\u001b]0;owned\\u0007train-0.parquet"', 'it holds a control character'],
  ])('refuses a listing of "%s" whose entry %s leaves the folder, before downloading anything', async (subset, quoted, why) => {
    const { error, requests } = await read({ subset });
    expect(error).toBeInstanceOf(HubError);
    expect(error?.message).toBe(
      `the listing at ${hub.baseUrl}/api/datasets/someone/triplets/tree/main/${subset} names ${quoted}, which is not a path inside the folder listed (datasets/someone/triplets/${subset}): ${why}; nothing was downloaded: check that ${hub.baseUrl} is the Hugging Face Hub or a faithful mirror of it`,
    );
    expect(requests).toEqual([`/api/datasets/someone/triplets/tree/main/${subset}`]);
  });

  it('the file source itself refuses a path that leaves the repository (a forged shard name in an index), unrequested', async () => {
    const before = hub.requests.length;
    const source = createHubSource({ repo: REPO, repoType: 'dataset', baseUrl: hub.baseUrl });
    await expect(source.readFile('../../../../other/private/train-0.parquet')).rejects.toThrow(
      '"../../../../other/private/train-0.parquet" is not a path inside datasets/someone/triplets: it has a ".." part; nothing was requested',
    );
    await expect(source.readRange!('a//b', 0, 10)).rejects.toBeInstanceOf(HubError);
    expect(hub.requests.length).toBe(before);
  });

  it('refuses a listing with entries that are not {type, path} objects, or that is not a list', async () => {
    const shapeless = await read({ subset: 'shapeless' });
    expect(shapeless.error?.message).toMatch(
      /^the listing at http:\S+\/tree\/main\/shapeless: entry 1 is not a \{ type, path \} object of strings; nothing was downloaded: check that /,
    );
    const notList = await read({ subset: 'not-a-list' });
    expect(notList.error?.message).toMatch(/^the listing at http:\S+\/tree\/main\/not-a-list is not a list of entries;/);
    expect([...shapeless.requests, ...notList.requests].every((r) => r.startsWith('/api/'))).toBe(true);
  });

  it.each([
    [{ subset: '../../models/x' }, 'subset "../../models/x" is not a folder of datasets/someone/triplets: it has a ".." part'],
    [{ subset: 'triplet/' }, 'subset "triplet/" is not a folder of datasets/someone/triplets: it has an empty part'],
    [{ subset: 'a\\..\\..' }, 'subset "a\\\\..\\\\.." is not a folder of datasets/someone/triplets: it holds a backslash'],
    [
      { subset: 'triplet', split: '../../x' },
      'split "../../x" of datasets/someone/triplets is not a split name: letters, digits, "-", "_" or "." (e.g. "train")',
    ],
  ])('refuses %j without any request', async (ref, message) => {
    const { error, requests } = await read(ref);
    expect(error).toBeInstanceOf(HubError);
    expect(error?.message).toContain(message);
    expect(requests).toEqual([]);
  });
});

describe('Hub dataset requests are bounded in time and size', () => {
  it('gives up on a listing that never answers, after the timeout', async () => {
    const started = performance.now();
    const { error } = await read({ subset: 'silent' }, { timeoutMs: 200 });
    expect(error).toBeInstanceOf(HubError);
    expect(error?.message).toBe(
      `could not list ${hub.baseUrl}/api/datasets/someone/triplets/tree/main/silent: no response for 0.2 s; check the connection and try again`,
    );
    expect(performance.now() - started).toBeLessThan(3000);
  }, 10_000);

  // the stalling tests allow 1 s: the answer's first bytes must come before the timeout even on a loaded machine
  it('gives up on a listing whose body stalls, after the timeout', async () => {
    const { error } = await read({ subset: 'stalled' }, { timeoutMs: 1000 });
    expect(error?.message).toBe(
      `download of the listing at ${hub.baseUrl}/api/datasets/someone/triplets/tree/main/stalled stalled: no bytes for 1 s after 1024 bytes; check the connection and try again`,
    );
  }, 10_000);

  it('stops an endless listing at the cap given, and at the default cap of 4 MiB', async () => {
    const small = await read({ subset: 'endless' }, { maxListingBytes: 64 * 1024 });
    expect(small.error).toBeInstanceOf(FileTooLargeError);
    expect(small.error?.message).toMatch(
      /^the listing at http:\S+\/tree\/main\/endless is \d+ bytes, over the 65536 bytes allowed here; a Hub folder listing is far smaller: check that http:\S+ is the Hugging Face Hub or a faithful mirror of it$/,
    );
    const usual = await read({ subset: 'endless' });
    expect(usual.error?.message).toMatch(/ is 4\.\d MiB, over the 4\.0 MiB allowed here; a Hub folder listing is far smaller/);
  }, 10_000);

  it('stops an endless Parquet body at the cap given, naming the file and what to do', async () => {
    const { error } = await read({ subset: 'big' }, { maxFileBytes: 256 * 1024 });
    expect(error).toBeInstanceOf(FileTooLargeError);
    expect(error?.message).toMatch(
      /^big\/train-00000-of-00001\.parquet of datasets\/someone\/triplets@main \(http:\S+\) is \d+ bytes, over the 262144 bytes allowed here; a Hub dataset's Parquet file is held whole in memory: download it and read it as a local file, which is read row group by row group$/,
    );
  }, 10_000);

  it('gives up on a Parquet body that stalls, after the timeout', async () => {
    const { error } = await read({ subset: 'slow' }, { timeoutMs: 1000 });
    expect(error?.message).toMatch(
      /^download of slow\/train-00000-of-00001\.parquet of datasets\/someone\/triplets@main \(http:\S+\) stalled: no bytes for 1 s after 1024 bytes/,
    );
  }, 10_000);

  it('every data file is read under the stated default cap', async () => {
    const caps: (number | undefined)[] = [];
    const files: FileSource = {
      label: 'recording',
      async readFile(_name, options) {
        caps.push(options?.maxFileBytes);
        return shard(['cat']);
      },
    };
    await readHubDatasetTriplets({ repo: REPO, subset: 'triplet' }, files, { baseUrl: hub.baseUrl });
    expect(caps).toEqual([MAX_DATASET_FILE_BYTES]);
    expect(MAX_DATASET_FILE_BYTES).toBe(2 ** 30);
  });
});
