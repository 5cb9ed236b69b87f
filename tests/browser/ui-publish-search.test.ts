// The Evaluate panel's "Publish as a static search" driving a fake worker: the page's runtime folder sent, each stage
// shown while it works, the size, transfer and nDCG@10 figures with their data attributes, the zip handed over under
// its name, the preview element given the folder; a refusal shown as an alert; a new evaluation clears the report;
// the settings form's values sent, a bad value said beside the form with Publish held back.
import '../../src/ui/evaluation/publish-search.ts';
import { zipSync } from 'fflate';
import type { PublishSearch, PublishSearchClient } from '../../src/ui/evaluation/publish-search.ts';
import { PUBLISH_SETTINGS, type PublishedSearch, type PublishSettings } from '../../src/worker/api.ts';
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
  const sent: PublishSettings[] = [];
  let release: () => void = () => undefined;
  const client: PublishSearchClient = {
    publishEvaluated: async (base, settings, onStage) => {
      bases.push(base);
      sent.push(settings);
      onStage('index');
      await new Promise<void>((resolve) => (release = resolve));
      if (refuse) throw new Error('demo is not inference-free (its queries need the model itself, not a table lookup)');
      return PUBLISHED;
    },
  };
  return { client, bases, sent, finish: () => release() };
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

  it("sends the form's settings (the CLI's defaults until changed), and holds Publish back on a bad one, saying why", async () => {
    const { client, sent, finish } = fakeClient();
    const el = await mount<PublishSearch>('publish-search', { client, set: 'NanoA', generation: 1 });
    const field = <E extends HTMLInputElement | HTMLSelectElement>(id: string) => inside<E>(el, `#${id}`);
    const type = async (id: string, value: string) => {
      const input = field<HTMLInputElement>(id);
      input.value = value;
      input.dispatchEvent(new Event('input'));
      await settle(el);
    };
    check(field<HTMLSelectElement>('publish-weights').value === 'uint8' && field('publish-cap').value === '', 'defaults shown');
    inside<HTMLButtonElement>(el, '#publish').click();
    finish();
    await settle(el);
    check(JSON.stringify(sent[0]) === JSON.stringify(PUBLISH_SETTINGS), `the defaults sent: ${JSON.stringify(sent[0])}`);

    await type('publish-cap', '0');
    const problem = inside(el, '#settings-problem');
    check(problem.getAttribute('role') === 'alert' && /a cap of 0 would keep no document/.test(problem.textContent ?? ''), 'why');
    check(inside<HTMLButtonElement>(el, '#publish').disabled, 'Publish waits for a good value');
    await type('publish-cap', '500');
    await type('publish-shard-kb', '8');
    await type('publish-chunk', '16');
    const weights = field<HTMLSelectElement>('publish-weights');
    weights.value = 'float16';
    weights.dispatchEvent(new Event('change'));
    const bm25 = field<HTMLInputElement>('publish-bm25');
    bm25.checked = false;
    bm25.dispatchEvent(new Event('change'));
    await settle(el);
    check(el.renderRoot.querySelector('#settings-problem') === null, 'no problem left');
    inside<HTMLButtonElement>(el, '#publish').click();
    finish();
    await settle(el);
    const expected = { weights: 'float16', cap: 500, bm25: false, shardKb: 8, chunk: 16 };
    check(JSON.stringify(sent[1]) === JSON.stringify(expected), `the form's settings sent: ${JSON.stringify(sent[1])}`);
    await type('publish-cap', '');
    check(el.renderRoot.querySelector('#settings-problem') === null, 'an empty cap is every document');
    cleanup();
  });
});
