// The Evaluate panel's index and latency estimate driving a fake worker: asked once per evaluation with the CLI's
// default points, progress while it measures, posting lengths and sizes, the pruning curve as a table and as a chart
// (index bytes or postings per query across), the JSON and TSV files, and a failure shown as such; special pieces among
// the longest lists marked and explained, every column headed.
import '../../src/ui/evaluation/index-estimate.ts';
import type { IndexEstimateClient, IndexEstimateView } from '../../src/ui/evaluation/index-estimate.ts';
import type { PruningChart } from '../../src/ui/evaluation/pruning-chart.ts';
import { INDEX_STATS_DEFAULTS, type IndexEstimate, type IndexEstimateRequest, type SetEvaluation } from '../../src/worker/api.ts';
import { indexEstimateFixture } from './index-estimate-fixture.ts';
import { allInside, check, cleanup, inside, mount, settle } from './ui-fixture.ts';

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
    check(fake.asked.length === 0, 'no set kept: nothing asked');
    const asked = () => fake.asked.length;
    el.set = 'NanoA';
    el.evaluation = EVALUATION;
    await settle(el);
    check(asked() === 1, 'asked once the set is kept');
    check(
      JSON.stringify(fake.asked[0]) ===
        JSON.stringify({
          pruneTop: INDEX_STATS_DEFAULTS.pruneTop,
          pruneThreshold: INDEX_STATS_DEFAULTS.pruneThreshold,
          scale: INDEX_STATS_DEFAULTS.scale,
        }),
      `the CLI's default points: ${JSON.stringify(fake.asked[0])}`,
    );
    check(/pruning point 1 of 6/.test(inside(el, '#estimate-status').textContent ?? ''), 'progress shown while measuring');
    fake.finish();
    await settle(el);
    check(allInside(el, '#curve tbody tr').length === 6, 'one row per curve point');
    el.generation = 1;
    await settle(el);
    check(asked() === 2, 'asked again after another evaluation of the same set');
  });

  it('shows posting lengths, the postings per query, both sizes and the curve as a table and a chart', async () => {
    cleanup();
    const fake = fakeClient();
    const el = await mount<IndexEstimateView>('index-estimate', { client: fake.client, set: 'NanoA', evaluation: EVALUATION });
    fake.finish();
    await settle(el);
    const source = inside(el, '#estimate-source').textContent ?? '';
    check(/NanoA/.test(source) && /k = 4/.test(source) && /16\/48/.test(source), `names the evaluation: ${source}`);
    check(/1,200 postings in 300 lists/.test(inside(el, '#index-facts caption').textContent ?? ''), 'postings and lists');
    const perQuery = allInside(el, '#index-facts tr[data-fact="query-postings"] td').map((td) => td.getAttribute('data-value'));
    check(JSON.stringify(perQuery.slice(0, 3)) === '["123.5","110","400"]', `mean, p50, p99 per query: ${perQuery}`);
    check(
      inside(el, '#index-size tr[data-model="anserini"] td[data-value="2600"]') !== null &&
        inside(el, '#index-size tr[data-model="byte"] td[data-value="2400"]') !== null,
      'both index sizes in bytes',
    );
    check(/Anserini impacts/.test(inside(el, '#index-size tr[data-model="anserini"]').title), 'the size model stated');
    check(/the \(60\), cat \(12\)/.test(inside(el, '#longest').textContent ?? ''), 'the longest lists named');
    check(Math.abs(cellValue(el, 'all', 'ndcg_cut_10') - 0.61234) < 1e-12, 'the unpruned point');
    check(
      inside(el, '#curve tr[data-rule="all"] td[data-measure="ndcg_cut_10"]').textContent?.trim() === '0.6123',
      'nDCG@10 with four decimals',
    );
    check(cellValue(el, 'top 16', 'postings') === 600 && cellValue(el, 'w >= 0.5', 'index_bytes') === 1500, 'pruned points');
    const chart = inside<PruningChart>(el, 'pruning-chart');
    await chart.updateComplete;
    const rules = allInside(chart, 'g.point').map((g) => g.getAttribute('data-rule'));
    check(rules.length === 6 && rules.includes('all') && rules.includes('w >= 1'), `a chart point per curve point: ${rules}`);
    check(allInside(chart, 'polyline').length === 2, 'top-N and threshold points as two lines');
    const allX = () => Number(inside(chart, 'g.point[data-rule="all"] circle').getAttribute('cx'));
    const top4X = () => Number(inside(chart, 'g.point[data-rule="top 4"] circle').getAttribute('cx'));
    check(top4X() < allX(), 'the pruned index is left of the whole one');
    check(/index bytes/.test(inside(chart, '#pruning-title').textContent ?? ''), 'index bytes across by default');
    inside<HTMLInputElement>(chart, 'input[value="postings"]').click();
    await chart.updateComplete;
    check(/postings a query reads/.test(inside(chart, '#pruning-title').textContent ?? ''), 'postings per query across');
    check(top4X() < allX(), 'fewer postings per query when pruned');
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
    check(marked.join(' ') === '[PAD] [unused0]', `marked special: ${marked}`);
    check(/\[PAD\] \(special\) \(192\)/.test(inside(el, '#longest').textContent ?? ''), inside(el, '#longest').textContent ?? '');
    const note = (inside(el, '#special-note').textContent ?? '').replace(/\s+/g, ' ');
    check(/2 of them are special pieces/.test(note) && /max-pools/.test(note), note);
    const headers = allInside(el, '#index-facts thead th').map((th) => th.textContent?.trim() ?? '');
    check(
      headers.every((text) => text !== ''),
      `no empty column header: ${JSON.stringify(headers)}`,
    );
    estimate = plain;
    el.generation = 1;
    await settle(el);
    check(el.shadowRoot!.querySelector('#special-note') === null, 'no special piece, no note');
  });

  it('hands over the estimate as JSON (with the evaluation it came from) and the curve as TSV', async () => {
    cleanup();
    const fake = fakeClient();
    const el = await mount<IndexEstimateView>('index-estimate', { client: fake.client, set: 'NanoA', evaluation: EVALUATION });
    fake.finish();
    await settle(el);
    const [json] = await downloads(() => inside(el, '#download-json').click());
    check(json.name === 'index-estimate-NanoA.json', `JSON file name: ${json.name}`);
    const parsed = JSON.parse(json.text);
    check(parsed.curve.length === 6 && parsed.evaluation.request.k === 4, 'the whole estimate and its evaluation');
    check(parsed.queryPostings.perQuery.length === 2, 'each query’s summed posting length');
    const [tsv] = await downloads(() => inside(el, '#download-tsv').click());
    const lines = tsv.text.trim().split('\n');
    check(lines.length === 7, `a header and six rows: ${lines.length}`);
    check(lines[0].split('\t').includes('ndcg_cut_10'), 'named columns');
    check(lines[1].startsWith('all\tfalse\t1200\t2600\t120\t0.61234\t'), `the unpruned row unrounded: ${lines[1]}`);
  });

  it('says when the estimate fails', async () => {
    cleanup();
    const fake = fakeClient(true);
    const el = await mount<IndexEstimateView>('index-estimate', { client: fake.client, set: 'NanoA' });
    fake.finish();
    await settle(el);
    check(/No set has been evaluated yet/.test(inside(el, '#estimate-error').textContent ?? ''), 'the failure shown');
  });
});
