// The page's Hub dataset reader in Chromium (readHubTrainingData on the browser platform, as the worker calls it):
// a listing entry or a subset that would leave datasets/<org>/<name> is refused before any file is requested.
import { browserPlatform } from '../../src/app/platform/platform-browser.ts';
import { readHubTrainingData } from '../../src/app/training/training-data.ts';

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
    if (error?.message !== expected) throw new Error(`expected "${expected}", got ${error?.message}`);
    if (error.name !== 'HubError') throw new Error(`a ${error.name}, not a HubError (the page shows it as a download failure)`);
    if (urls.join() !== `${HUB}/api/datasets/someone/triplets/tree/main/triplet`) throw new Error(`requested ${urls.join(', ')}`);
  });

  it('refuses a subset that leaves the repository without any request', async () => {
    const { error, urls } = await withForgedHub(() =>
      readHubTrainingData(browserPlatform, { repo: 'someone/triplets', subset: '../../models/x' }, { baseUrl: HUB }),
    );
    if (!error?.message.startsWith('subset "../../models/x" is not a folder of datasets/someone/triplets: it has a ".." part'))
      throw new Error(`got ${error?.message}`);
    if (urls.length !== 0) throw new Error(`requested ${urls.join(', ')}`);
  });
});
