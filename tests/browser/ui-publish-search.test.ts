// The Evaluate panel's "Publish as a static search" driving a fake worker: the page's runtime folder sent, each stage
// shown while it works, the size, transfer and nDCG@10 figures with their data attributes, the zip handed over under
// its name, the preview element given the folder; a refusal shown as an alert; a new evaluation clears the report.
import '../../src/ui/evaluation/publish-search.ts';
import { zipSync } from 'fflate';
import type { PublishSearch, PublishSearchClient } from '../../src/ui/evaluation/publish-search.ts';
import type { PublishedSearch } from '../../src/worker/api.ts';
import { check, cleanup, inside, mount, settle } from './ui-fixture.ts';

const PUBLISHED: PublishedSearch = {
  name: 'NanoA-static-search',
  zip: zipSync({ 'NanoA-static-search/search.json': new TextEncoder().encode('{}') }),
  files: 1316,
  sizes: { total: 557_260 },
  transfer: { queries: 12, p50: 32_700, p90: 40_960, runtime: 21_600, filesP50: 17, filesP90: 21 },
  quality: [
    { system: 'splade', queries: 12, exact: 0.6029, published: 0.6029, largestScoreDifference: 0.001, rankingsDiffering: 0 },
  ],
  weights: 'uint8',
  k: 8,
  documentLength: 128,
};

function fakeClient(refuse = false) {
  const bases: string[] = [];
  let release: () => void = () => undefined;
  const client: PublishSearchClient = {
    publishEvaluated: async (base, onStage) => {
      bases.push(base);
      onStage('index');
      await new Promise<void>((resolve) => (release = resolve));
      if (refuse) throw new Error('demo is not inference-free (its queries need the model itself, not a table lookup)');
      return PUBLISHED;
    },
  };
  return { client, bases, finish: () => release() };
}

/** The names of the files the element hands over (through a link it clicks) while `act` runs. */
async function downloaded(act: () => void): Promise<string[]> {
  const names: string[] = [];
  const click = HTMLAnchorElement.prototype.click;
  HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
    names.push(this.download);
  };
  try {
    act();
    await new Promise((resolve) => setTimeout(resolve, 0));
  } finally {
    HTMLAnchorElement.prototype.click = click;
  }
  return names;
}

describe('<publish-search>', () => {
  it('publishes: the runtime folder sent, stages shown, the figures, the zip, and the preview given the folder', async () => {
    const { client, bases, finish } = fakeClient();
    const el = await mount<PublishSearch>('publish-search', { client, set: 'NanoA', generation: 1 });
    inside<HTMLButtonElement>(el, '#publish').click();
    await settle(el);
    check(bases[0] === new URL('search-runtime/', document.baseURI).href, `the runtime folder beside the page: ${bases[0]}`);
    check(inside<HTMLButtonElement>(el, '#publish').disabled, 'one publish at a time');
    check(/building the posting shards/.test(inside(el, '#publish-status').textContent ?? ''), 'the stage is shown');
    finish();
    await settle(el);
    const transfer = inside(el, '#publish-transfer');
    check(transfer.getAttribute('data-p50') === '32700' && transfer.getAttribute('data-p90') === '40960', 'p50 and p90');
    check(/12 queries/.test(transfer.textContent ?? ''), 'over how many queries');
    check(/1316 files/.test(inside(el, '#publish-report').textContent ?? ''), 'the file count');
    const quality = inside(el, '#publish-quality');
    check(/0\.6029.*0\.6029/s.test(quality.textContent ?? ''), `nDCG@10 published and exact: ${quality.textContent}`);
    check(/stored as uint8/.test(quality.textContent ?? ''), 'how the weights are stored');
    const preview = inside(el, 'splade-search');
    check(/^published-\d+$/.test(preview.getAttribute('src') ?? ''), 'the preview reads the published folder');
    const names = await downloaded(() => inside<HTMLButtonElement>(el, '#publish-download').click());
    check(names.join() === 'NanoA-static-search.zip', `the zip's name: ${names}`);

    el.generation = 2;
    await settle(el);
    check(el.renderRoot.querySelector('#publish-report') === null, 'a new evaluation clears the report of the last');
    cleanup();
  });

  it('shows a refusal as an alert, with nothing published', async () => {
    const { client, finish } = fakeClient(true);
    const el = await mount<PublishSearch>('publish-search', { client, set: 'NanoA', generation: 1 });
    inside<HTMLButtonElement>(el, '#publish').click();
    finish();
    await settle(el);
    const error = inside(el, '#publish-error');
    check(error.getAttribute('role') === 'alert', 'an alert');
    check(/not inference-free/.test(error.textContent ?? ''), `it says why: ${error.textContent}`);
    check(el.renderRoot.querySelector('#publish-report') === null, 'no report');
    check(!inside<HTMLButtonElement>(el, '#publish').disabled, 'it can be asked again');
    cleanup();
  });
});
