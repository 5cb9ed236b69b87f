// Hub downloads against a local server in the Hub's URL layout: progress, cancel, caching, range reads for the size
// estimate, errors naming the repo and file for 404, 401 and network failures, idle timeouts, size caps, refused
// repo ids, and a cache that cannot store (full browser storage) leaving a warning instead of a failed load.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROMPTLY_MS } from '../../helpers/promptly.ts';
import { join } from 'node:path';
import { loadCheckpoint, estimateCheckpointBytes } from '../../../src/io/formats/model-folder.ts';
import { createFolderCache, createFolderSource } from '../../../src/io/file-source-node.ts';
import { createHubSource, HubError, type FileCache } from '../../../src/io/hub/hub.ts';
import { saysNoAnswer } from '../../../src/contract/errors.ts';
import { createCacheStorageCache } from '../../../src/io/file-source-browser.ts';
import { FileTooLargeError, type ReadProgress } from '../../../src/io/file-source.ts';
import { makeTempDir, removeTempDirs, writeFolder, writeTinyBert } from '../../helpers/checkpoint-fixtures.ts';
import { startHubServer, type HubServer } from '../../helpers/hub-server.ts';

const REPO = 'tiny-org/tiny-bert';

let root: string;

let server: HubServer;

let slow: HubServer;

let gated: HubServer;

let stalled: HubServer;

let trickle: HubServer;

let chunked: HubServer;

beforeAll(async () => {
  root = await makeTempDir();
  await writeTinyBert(join(root, REPO), 'safetensors');
  await writeFolder(join(root, 'tiny-org/big'), { 'blob.bin': new Uint8Array(256 * 1024) });
  server = await startHubServer(root);
  slow = await startHubServer(root, { chunkBytes: 4096, chunkDelayMs: 5 });
  gated = await startHubServer(root, { gated: new Map([[REPO, 'secret']]) });
  stalled = await startHubServer(root, { headerDelayMs: 5000 });
  trickle = await startHubServer(root, { chunkBytes: 64 * 1024, chunkDelayMs: 8000 });
  chunked = await startHubServer(root, { omitContentLength: true, chunkBytes: 16 * 1024 });
});

afterAll(async () => {
  await Promise.all([server.close(), slow.close(), gated.close(), stalled.close(), trickle.close(), chunked.close()]);
  removeTempDirs();
});

describe('Hub file source', () => {
  it('loads the same checkpoint from the Hub as from the folder', async () => {
    const fromHub = await loadCheckpoint(createHubSource({ repo: REPO, baseUrl: server.baseUrl }));
    const fromFolder = await loadCheckpoint(createFolderSource(join(root, REPO)));
    expect([...fromHub.tensors.keys()]).toEqual([...fromFolder.tensors.keys()]);
    for (const [name, t] of fromFolder.tensors)
      expect(Array.from(fromHub.tensors.get(name)!.data), name).toEqual(Array.from(t.data));
    expect(fromHub.tied).toBe(true);
  });

  it('reports monotone progress up to the file size', async () => {
    const progress: ReadProgress[] = [];
    const bytes = await createHubSource({ repo: 'tiny-org/big', baseUrl: slow.baseUrl }).readFile('blob.bin', {
      onProgress: (p) => progress.push(p),
    });
    expect(bytes!.length).toBe(256 * 1024);
    expect(progress.length).toBeGreaterThan(2);
    expect(progress.every((p, i) => p.total === 256 * 1024 && (i === 0 || p.loaded >= progress[i - 1].loaded))).toBe(true);
    expect(progress[progress.length - 1].loaded).toBe(256 * 1024);
  });

  it('cancels a download mid-stream through its AbortSignal', async () => {
    const controller = new AbortController();
    const read = createHubSource({ repo: 'tiny-org/big', baseUrl: slow.baseUrl }).readFile('blob.bin', {
      signal: controller.signal,
      onProgress: (p) => p.loaded > 16 * 1024 && controller.abort(),
    });
    await expect(read).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('serves a cached file without a second request', async () => {
    const cache = createFolderCache(await makeTempDir());
    const before = server.requests.length;
    const first = await createHubSource({ repo: REPO, baseUrl: server.baseUrl, cache }).readFile('config.json');
    const second = await createHubSource({ repo: REPO, baseUrl: server.baseUrl, cache }).readFile('config.json');
    expect(server.requests.length - before).toBe(1);
    expect(second).toEqual(first);
  });

  it('estimates the size with range reads of the safetensors header only', async () => {
    const before = server.requests.length;
    const estimate = await estimateCheckpointBytes(createHubSource({ repo: REPO, baseUrl: server.baseUrl }));
    const local = await estimateCheckpointBytes(createFolderSource(join(root, REPO)));
    expect(estimate.bytes).toBe(local.bytes);
    const made = server.requests.slice(before);
    expect(made.every((r) => r.includes(' range=bytes='))).toBe(true);
  });

  it('returns null for a missing file (so the loader can try the next format)', async () => {
    expect(await createHubSource({ repo: REPO, baseUrl: server.baseUrl }).readFile('pytorch_model.bin')).toBeNull();
  });

  it('says which repo and file failed on 401 (unknown or gated repo), and accepts a token', async () => {
    const unknown = createHubSource({ repo: 'nobody/nothing', baseUrl: server.baseUrl }).readFile('config.json');
    await expect(unknown).rejects.toBeInstanceOf(HubError);
    await expect(createHubSource({ repo: 'nobody/nothing', baseUrl: server.baseUrl }).readFile('config.json')).rejects.toThrow(
      /config\.json of nobody\/nothing@main .*HTTP 401/,
    );
    await expect(createHubSource({ repo: REPO, baseUrl: gated.baseUrl }).readFile('config.json')).rejects.toThrow(
      /HTTP 401.*token/,
    );
    expect(await createHubSource({ repo: REPO, baseUrl: gated.baseUrl, token: 'secret' }).readFile('config.json')).not.toBeNull();
  });

  it('says which repo and file failed on a network failure', async () => {
    const closed = await startHubServer(root);
    const baseUrl = closed.baseUrl;
    await closed.close();
    const failed = createHubSource({ repo: REPO, baseUrl }).readFile('config.json');
    await expect(failed).rejects.toThrow(/config\.json of tiny-org\/tiny-bert@main .*network failure/);
    // ... in the words the page reads as "offline" (it then names what works without the network)
    expect(saysNoAnswer(((await failed.catch((error: Error) => error)) as Error).message)).toBe(true);
  });

  it('refuses repo ids that are not org/name', () => {
    expect(() => createHubSource({ repo: '../etc', baseUrl: server.baseUrl })).toThrow(/not a Hub repo id/);
  });

  it('uses a custom cache interface (the page plugs Cache Storage in here)', async () => {
    const store = new Map<string, Uint8Array>();
    const cache: FileCache = { get: async (k) => store.get(k) ?? null, put: async (k, v) => void store.set(k, v) };
    await createHubSource({ repo: REPO, baseUrl: server.baseUrl, cache }).readFile('config.json');
    expect([...store.keys()]).toEqual([`${server.baseUrl}/${REPO}/resolve/main/config.json`]);
  });
});

describe('Hub downloads under hostile conditions', () => {
  it('gives up on a server that does not answer, after the idle timeout', async () => {
    const started = performance.now();
    const read = createHubSource({ repo: REPO, baseUrl: stalled.baseUrl, timeoutMs: 200 }).readFile('config.json');
    await expect(read).rejects.toThrow(
      /^could not download config\.json of tiny-org\/tiny-bert@main \(http:\/\/127\.0\.0\.1:\d+\): no response for 0\.2 s; check the connection and try again$/,
    );
    expect(saysNoAnswer(((await read.catch((error: Error) => error)) as Error).message)).toBe(true);
    expect(performance.now() - started).toBeLessThan(PROMPTLY_MS);
  });

  it('gives up on a download that stops sending bytes, after the idle timeout', async () => {
    // 3 s: the first bytes must come before the timeout even beside the e2e suite (waiting costs no CPU)
    const read = createHubSource({ repo: 'tiny-org/big', baseUrl: trickle.baseUrl, timeoutMs: 3000 }).readFile('blob.bin');
    const error = await read.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HubError);
    expect((error as Error).message).toMatch(
      /download of blob\.bin of tiny-org\/big@main .* stalled: no bytes for 3 s after 65536 bytes/,
    );
  });

  it("refuses a file over the caller's size cap from Content-Length, and while streaming without one", async () => {
    const capped = createHubSource({ repo: 'tiny-org/big', baseUrl: server.baseUrl }).readFile('blob.bin', {
      maxFileBytes: 100_000,
    });
    await expect(capped).rejects.toBeInstanceOf(FileTooLargeError);
    const progress: ReadProgress[] = [];
    const streamed = createHubSource({ repo: 'tiny-org/big', baseUrl: chunked.baseUrl }).readFile('blob.bin', {
      maxFileBytes: 100_000,
      onProgress: (p) => progress.push(p),
    });
    await expect(streamed).rejects.toThrow(
      /^blob\.bin of tiny-org\/big@main \(.*\) is 114688 bytes, over the 100000 bytes allowed here/,
    );
    expect(Math.max(...progress.map((p) => p.loaded))).toBeLessThanOrEqual(100_000);
    expect(await createHubSource({ repo: 'tiny-org/big', baseUrl: chunked.baseUrl }).readFile('blob.bin')).toHaveLength(
      256 * 1024,
    );
  });

  it.each([
    ['a 300-character name', `org/${'a'.repeat(300)}`],
    ['three parts', 'a/b/c'],
    ['a double dash', 'org/na--me'],
    ['a leading dot', 'org/.name'],
    ['an empty name', 'org/'],
  ])('refuses a repo id with %s, without a request', (_, repo) => {
    const before = server.requests.length;
    const make = () => createHubSource({ repo, baseUrl: server.baseUrl });
    expect(make).toThrow(/is not a Hub repo id: expected "org\/name", each part letters, digits/);
    try {
      make();
    } catch (error) {
      expect((error as Error).message.length).toBeLessThan(250);
    }
    expect(server.requests.length).toBe(before);
  });

  it('still loads when the cache cannot store (a full browser storage), and says the file was not cached', async () => {
    const quota = () => Promise.reject(new DOMException('The quota has been exceeded.', 'QuotaExceededError'));
    const heard: string[] = [];
    const cache: FileCache = { get: async () => null, put: quota };
    const source = createHubSource({ repo: REPO, baseUrl: server.baseUrl, cache, onWarning: (m) => heard.push(m) });
    const checkpoint = await loadCheckpoint(source);
    expect(checkpoint.tied).toBe(true);
    expect(source.warnings.length).toBeGreaterThan(0);
    expect(source.warnings).toEqual(heard);
    expect(source.warnings).toContain(
      'model.safetensors was not cached: the browser storage is full (QuotaExceededError). The model still loads; the file will be downloaded again next time (free site storage to cache it).',
    );
  });

  it("the page's Cache Storage cache: a QuotaExceededError on put becomes a warning of the source", async () => {
    const saved = (globalThis as { caches?: unknown }).caches;
    (globalThis as { caches?: unknown }).caches = {
      open: async () => ({
        match: async () => undefined,
        put: async () => Promise.reject(new DOMException('full', 'QuotaExceededError')),
      }),
    };
    try {
      const source = createHubSource({ repo: REPO, baseUrl: server.baseUrl, cache: createCacheStorageCache() });
      expect(await source.readFile('config.json')).not.toBeNull();
      expect(source.warnings).toEqual([
        expect.stringMatching(/^config\.json was not cached: the browser storage is full \(QuotaExceededError\)/),
      ]);
    } finally {
      (globalThis as { caches?: unknown }).caches = saved;
    }
  });
});
