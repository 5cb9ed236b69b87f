// The Evaluate panel's index and latency estimate driving a fake worker: asked once per evaluation with the CLI's
// default points, progress while it measures, posting lengths and sizes, the pruning curve as a table and as a chart
// (index bytes or postings per query across), the JSON and TSV files, and a failure shown as such; special pieces among
// the longest lists marked and explained, every column headed.
import '../../src/ui/evaluation/index-estimate.ts';
import type { IndexEstimateClient, IndexEstimateView } from '../../src/ui/evaluation/index-estimate.ts';
import type { PruningChart } from '../../src/ui/evaluation/pruning-chart.ts';
import { INDEX_STATS_DEFAULTS, type IndexEstimate, type IndexEstimateRequest, type SetEvaluation } from '../../src/worker/api.ts';
import { indexEstimateFixture } from './index-estimate-fixture.ts';
import { allInside, cleanup, inside, mount, settle } from './ui-fixture.ts';
import { expect } from './expect.ts';

const EVALUATION = {
  set: { name: 'NanoA', documents: 3, queries: 2, judgments: 2, warnings: [] },
  model: { name: 'demo', key: 'demo #1', architecture: 'BertForMaskedLM' },
  request: { k: 4, queryLength: 16, documentLength: 48, topK: 1000, prune: 0, search: 'exhaustive' },
  evaluatedAt: '2026-12-01T10:00:00.000Z',
} as unknown as SetEvaluation;

function fakeClient(fail = false) {
  const asked: IndexEstimateRequest[] = [];
  let release: () => void = () => undefined;
  const client: IndexEstimateClient = {
    indexEstimate: async (request, onPoint) => {
      asked.push(request);
      onPoint(1, 6);
      await new Promise<void>((resolve) => (release = resolve));
      if (fail) throw new Error('No set has been evaluated yet');
      return indexEstimateFixture('NanoA');
    },
  };
  return { client, asked, finish: () => release() };
}

/** The text of the files the element hands over (the Blob given to URL.createObjectURL) while `act` runs. */
async function downloads(act: () => void): Promise<{ name: string; text: string }[]> {
  const blobs: Blob[] = [];
  const names: string[] = [];
  const create = URL.createObjectURL;
  const click = HTMLAnchorElement.prototype.click;
  URL.createObjectURL = (blob: Blob | MediaSource) => (blobs.push(blob as Blob), 'blob:fake');
  HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
    names.push(this.download);
  };
  try {
    act();
  } finally {
    URL.createObjectURL = create;
    HTMLAnchorElement.prototype.click = click;
  }
  return Promise.all(blobs.map(async (blob, i) => ({ name: names[i], text: await blob.text() })));
}

const cellValue = (el: IndexEstimateView, rule: string, measure: string) =>
  Number(inside(el, `#curve tr[data-rule="${rule}"] td[data-measure="${measure}"]`).getAttribute('data-value'));

describe('<index-estimate>', () => {
  it('asks nothing before an evaluation, then the CLI default points once per evaluation, with progress', async () => {
    cleanup();
    const fake = fakeClient();
    const el = await mount<IndexEstimateView>('index-estimate', { client: fake.client, set: '' });
    await settle(el);
    expect(fake.asked, 'no set kept: nothing asked').toHaveLength(0);
    const asked = () => fake.asked.length;
    el.set = 'NanoA';
    el.evaluation = EVALUATION;
    await settle(el);
    expect(asked(), 'asked once the set is kept').toBe(1);
    expect(JSON.stringify(fake.asked[0]), `the CLI's default points: ${JSON.stringify(fake.asked[0])}`).toBe(
      JSON.stringify({
        pruneTop: INDEX_STATS_DEFAULTS.pruneTop,
        pruneThreshold: INDEX_STATS_DEFAULTS.pruneThreshold,
        scale: INDEX_STATS_DEFAULTS.scale,
      }),
    );
    expect(inside(el, '#estimate-status').textContent ?? '', 'progress shown while measuring').toMatch(/pruning point 1 of 6/);
    fake.finish();
    await settle(el);
    expect(allInside(el, '#curve tbody tr'), 'one row per curve point').toHaveLength(6);
    el.generation = 1;
    await settle(el);
    expect(asked(), 'asked again after another evaluation of the same set').toBe(2);
  });

  it('shows posting lengths, the postings per query, both sizes and the curve as a table and a chart', async () => {
    cleanup();
    const fake = fakeClient();
    const el = await mount<IndexEstimateView>('index-estimate', { client: fake.client, set: 'NanoA', evaluation: EVALUATION });
    fake.finish();
    await settle(el);
    const source = inside(el, '#estimate-source').textContent ?? '';
    expect(source, `names the evaluation: ${source}`).toMatch(/NanoA/);
    expect(source, `names the evaluation: ${source}`).toMatch(/k = 4/);
    expect(source, `names the evaluation: ${source}`).toMatch(/16\/48/);
    expect(inside(el, '#index-facts caption').textContent ?? '', 'postings and lists').toMatch(/1,200 postings in 300 lists/);
    const perQuery = allInside(el, '#index-facts tr[data-fact="query-postings"] td').map((td) => td.getAttribute('data-value'));
    expect(JSON.stringify(perQuery.slice(0, 3)), `mean, p50, p99 per query: ${perQuery}`).toBe('["123.5","110","400"]');
    expect(inside(el, '#index-size tr[data-model="anserini"] td[data-value="2600"]'), 'both index sizes in bytes').not.toBeNull();
    expect(inside(el, '#index-size tr[data-model="byte"] td[data-value="2400"]'), 'both index sizes in bytes').not.toBeNull();
    expect(inside(el, '#index-size tr[data-model="anserini"]').title, 'the size model stated').toMatch(/Anserini impacts/);
    expect(inside(el, '#longest').textContent ?? '', 'the longest lists named').toMatch(/the \(60\), cat \(12\)/);
    expect(Math.abs(cellValue(el, 'all', 'ndcg_cut_10') - 0.61234), 'the unpruned point').toBeLessThan(1e-12);
    expect(
      inside(el, '#curve tr[data-rule="all"] td[data-measure="ndcg_cut_10"]').textContent?.trim(),
      'nDCG@10 with four decimals',
    ).toBe('0.6123');
    expect(cellValue(el, 'top 16', 'postings'), 'pruned points').toBe(600);
    expect(cellValue(el, 'w >= 0.5', 'index_bytes'), 'pruned points').toBe(1500);
    const chart = inside<PruningChart>(el, 'pruning-chart');
    await chart.updateComplete;
    const rules = allInside(chart, 'g.point').map((g) => g.getAttribute('data-rule'));
    expect(rules, `a chart point per curve point: ${rules}`).toHaveLength(6);
    expect(rules, `a chart point per curve point: ${rules}`).toContain('all');
    expect(rules, `a chart point per curve point: ${rules}`).toContain('w >= 1');
    expect(allInside(chart, 'polyline'), 'top-N and threshold points as two lines').toHaveLength(2);
    const allX = () => Number(inside(chart, 'g.point[data-rule="all"] circle').getAttribute('cx'));
    const top4X = () => Number(inside(chart, 'g.point[data-rule="top 4"] circle').getAttribute('cx'));
    expect(top4X(), 'the pruned index is left of the whole one').toBeLessThan(allX());
    expect(inside(chart, '#pruning-title').textContent ?? '', 'index bytes across by default').toMatch(/index bytes/);
    inside<HTMLInputElement>(chart, 'input[value="postings"]').click();
    await chart.updateComplete;
    expect(inside(chart, '#pruning-title').textContent ?? '', 'postings per query across').toMatch(/postings a query reads/);
    expect(top4X(), 'fewer postings per query when pruned').toBeLessThan(allX());
  });

  it('marks the special pieces among the longest lists and says why a piece of no word has a list; every column is headed', async () => {
    cleanup();
    const plain = indexEstimateFixture('NanoA');
    const longest = [
      { term: '[PAD]', id: 0, length: 192, special: true },
      { term: '[unused0]', id: 1, length: 192, special: true },
      { term: 'reef', id: 7903, length: 40, special: false },
    ];
    let estimate: IndexEstimate = { ...plain, postingLengths: { ...plain.postingLengths, longest } };
    const client: IndexEstimateClient = { indexEstimate: async () => estimate };
    const el = await mount<IndexEstimateView>('index-estimate', { client, set: 'NanoA', evaluation: EVALUATION });
    await settle(el);
    const marked = allInside(el, '#longest [data-special="yes"]').map((span) => span.getAttribute('data-term'));
    expect(marked.join(' '), `marked special: ${marked}`).toBe('[PAD] [unused0]');
    expect(inside(el, '#longest').textContent ?? '', inside(el, '#longest').textContent ?? '').toMatch(
      /\[PAD\] \(special\) \(192\)/,
    );
    const note = (inside(el, '#special-note').textContent ?? '').replace(/\s+/g, ' ');
    expect(note, note).toMatch(/2 of them are special pieces/);
    expect(note, note).toMatch(/max-pools/);
    const headers = allInside(el, '#index-facts thead th').map((th) => th.textContent?.trim() ?? '');
    expect(
      headers.every((text) => text !== ''),
      `no empty column header: ${JSON.stringify(headers)}`,
    ).toBe(true);
    estimate = plain;
    el.generation = 1;
    await settle(el);
    expect(el.shadowRoot!.querySelector('#special-note'), 'no special piece, no note').toBeNull();
  });

  it('hands over the estimate as JSON (with the evaluation it came from) and the curve as TSV', async () => {
    cleanup();
    const fake = fakeClient();
    const el = await mount<IndexEstimateView>('index-estimate', { client: fake.client, set: 'NanoA', evaluation: EVALUATION });
    fake.finish();
    await settle(el);
    const [json] = await downloads(() => inside(el, '#download-json').click());
    expect(json.name, `JSON file name: ${json.name}`).toBe('index-estimate-NanoA.json');
    const parsed = JSON.parse(json.text);
    expect(parsed.curve, 'the whole estimate and its evaluation').toHaveLength(6);
    expect(parsed.evaluation.request.k, 'the whole estimate and its evaluation').toBe(4);
    expect(parsed.queryPostings.perQuery, 'each query’s summed posting length').toHaveLength(2);
    const [tsv] = await downloads(() => inside(el, '#download-tsv').click());
    const lines = tsv.text.trim().split('\n');
    expect(lines, `a header and six rows: ${lines.length}`).toHaveLength(7);
    expect(lines[0].split('\t'), 'named columns').toContain('ndcg_cut_10');
    expect(lines[1].startsWith('all\tfalse\t1200\t2600\t120\t0.61234\t'), `the unpruned row unrounded: ${lines[1]}`).toBe(true);
  });

  it('says when the estimate fails', async () => {
    cleanup();
    const fake = fakeClient(true);
    const el = await mount<IndexEstimateView>('index-estimate', { client: fake.client, set: 'NanoA' });
    fake.finish();
    await settle(el);
    expect(inside(el, '#estimate-error').textContent ?? '', 'the failure shown').toMatch(/No set has been evaluated yet/);
  });
});
