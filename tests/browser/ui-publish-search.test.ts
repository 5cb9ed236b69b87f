// The Evaluate panel's "Publish as a static search" driving a fake worker: the page's runtime folder sent, each stage
// shown while it works, the size, transfer and nDCG@10 figures with their data attributes, the zip handed over under
// its name, the preview element given the folder; a refusal shown as an alert; a new evaluation clears the report;
// the settings form's values sent, a bad value said beside the form with Publish held back.
import '../../src/ui/evaluation/publish-search.ts';
import { zipSync } from 'fflate';
import type { PublishSearch, PublishSearchClient } from '../../src/ui/evaluation/publish-search.ts';
import { PUBLISH_SETTINGS, type PublishedSearch, type PublishSettings } from '../../src/worker/api.ts';
import { cleanup, inside, mount, settle } from './ui-fixture.ts';
import { expect } from './expect.ts';

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
    expect(bases[0], `the runtime folder beside the page: ${bases[0]}`).toBe(new URL('search-runtime/', document.baseURI).href);
    expect(inside<HTMLButtonElement>(el, '#publish').disabled, 'one publish at a time').toBeTruthy();
    expect(inside(el, '#publish-status').textContent ?? '', 'the stage is shown').toMatch(/building the posting shards/);
    finish();
    await settle(el);
    const transfer = inside(el, '#publish-transfer');
    expect(transfer.getAttribute('data-p50'), 'p50 and p90').toBe('32700');
    expect(transfer.getAttribute('data-p90'), 'p50 and p90').toBe('40960');
    expect(transfer.textContent ?? '', 'over how many queries').toMatch(/12 queries/);
    expect(inside(el, '#publish-report').textContent ?? '', 'the file count').toMatch(/1316 files/);
    const quality = inside(el, '#publish-quality');
    expect(quality.textContent ?? '', `nDCG@10 published and exact: ${quality.textContent}`).toMatch(/0\.6029.*0\.6029/s);
    expect(quality.textContent ?? '', 'how the weights are stored').toMatch(/stored as uint8/);
    const preview = inside(el, 'splade-search');
    expect(preview.getAttribute('src') ?? '', 'the preview reads the published folder').toMatch(/^published-\d+$/);
    const names = await downloaded(() => inside<HTMLButtonElement>(el, '#publish-download').click());
    expect(names.join(), `the zip's name: ${names}`).toBe('NanoA-static-search.zip');

    el.generation = 2;
    await settle(el);
    expect(el.renderRoot.querySelector('#publish-report'), 'a new evaluation clears the report of the last').toBeNull();
    cleanup();
  });

  it('shows a refusal as an alert, with nothing published', async () => {
    const { client, finish } = fakeClient(true);
    const el = await mount<PublishSearch>('publish-search', { client, set: 'NanoA', generation: 1 });
    inside<HTMLButtonElement>(el, '#publish').click();
    finish();
    await settle(el);
    const error = inside(el, '#publish-error');
    expect(error.getAttribute('role'), 'an alert').toBe('alert');
    expect(error.textContent ?? '', `it says why: ${error.textContent}`).toMatch(/not inference-free/);
    expect(el.renderRoot.querySelector('#publish-report'), 'no report').toBeNull();
    expect(inside<HTMLButtonElement>(el, '#publish').disabled, 'it can be asked again').toBeFalsy();
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
    expect(field<HTMLSelectElement>('publish-weights').value, 'defaults shown').toBe('uint8');
    expect(field('publish-cap').value, 'defaults shown').toBe('');
    inside<HTMLButtonElement>(el, '#publish').click();
    finish();
    await settle(el);
    expect(JSON.stringify(sent[0]), `the defaults sent: ${JSON.stringify(sent[0])}`).toBe(JSON.stringify(PUBLISH_SETTINGS));

    await type('publish-cap', '0');
    const problem = inside(el, '#settings-problem');
    expect(problem.getAttribute('role'), 'why').toBe('alert');
    expect(problem.textContent ?? '', 'why').toMatch(/a cap of 0 would keep no document/);
    expect(inside<HTMLButtonElement>(el, '#publish').disabled, 'Publish waits for a good value').toBeTruthy();
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
    expect(el.renderRoot.querySelector('#settings-problem'), 'no problem left').toBeNull();
    inside<HTMLButtonElement>(el, '#publish').click();
    finish();
    await settle(el);
    const expected = { weights: 'float16', cap: 500, bm25: false, shardKb: 8, chunk: 16 };
    expect(JSON.stringify(sent[1]), `the form's settings sent: ${JSON.stringify(sent[1])}`).toBe(JSON.stringify(expected));
    await type('publish-cap', '');
    expect(el.renderRoot.querySelector('#settings-problem'), 'an empty cap is every document').toBeNull();
    cleanup();
  });
});
