// The page's Hub dataset reader in Chromium (readHubTrainingData on the browser platform, as the worker calls it):
// a listing entry or a subset that would leave datasets/<org>/<name> is refused before any file is requested.
import { browserPlatform } from '../../src/app/platform/platform-browser.ts';
import { readHubTrainingData } from '../../src/app/training/training-data.ts';
import { expect } from './expect.ts';

const HUB = 'https://hub.example';

const FORGED = [{ type: 'file', path: '../../../../../other/private/resolve/main/train-0.parquet' }];

/** Runs `read` with fetch answering every tree listing with the forged one (404 for anything else); the URLs asked for. */
async function withForgedHub(read: () => Promise<unknown>): Promise<{ error: Error | null; urls: string[] }> {
  const urls: string[] = [];
  const original = globalThis.fetch;
  globalThis.fetch = async (input: RequestInfo | URL) => {
    const url = String(input instanceof Request ? input.url : input);
    urls.push(url);
    return url.includes('/tree/') ? new Response(JSON.stringify(FORGED)) : new Response('EntryNotFound', { status: 404 });
  };
  try {
    await read();
    return { error: null, urls };
  } catch (error) {
    return { error: error as Error, urls };
  } finally {
    globalThis.fetch = original;
  }
}

describe("the page's Hub dataset reader", () => {
  it('refuses a listing entry that leaves the repository, having requested only the listing', async () => {
    const { error, urls } = await withForgedHub(() =>
      readHubTrainingData(browserPlatform, { repo: 'someone/triplets', subset: 'triplet' }, { baseUrl: HUB }),
    );
    const expected = `the listing at ${HUB}/api/datasets/someone/triplets/tree/main/triplet names "${FORGED[0].path}", which is not a path inside the folder listed (datasets/someone/triplets/triplet): it has a ".." part; nothing was downloaded: check that ${HUB} is the Hugging Face Hub or a faithful mirror of it`;
    expect(error?.message, `expected "${expected}", got ${error?.message}`).toBe(expected);
    expect(error!.name, `a ${error!.name}, not a HubError (the page shows it as a download failure)`).toBe('HubError');
    expect(urls.join(), `requested ${urls.join(', ')}`).toBe(`${HUB}/api/datasets/someone/triplets/tree/main/triplet`);
  });

  it('refuses a subset that leaves the repository without any request', async () => {
    const { error, urls } = await withForgedHub(() =>
      readHubTrainingData(browserPlatform, { repo: 'someone/triplets', subset: '../../models/x' }, { baseUrl: HUB }),
    );
    expect(
      error?.message.startsWith('subset "../../models/x" is not a folder of datasets/someone/triplets: it has a ".." part'),
      `got ${error?.message}`,
    ).toBe(true);
    expect(urls, `requested ${urls.join(', ')}`).toHaveLength(0);
  });
});
