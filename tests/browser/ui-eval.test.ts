// The Evaluate panel's elements: the results table (rows per set and system, the mean over sets of one batch), the
// term table (products and the rest), the panel driving a fake worker (a set read, k and capped lengths sent,
// progress, cancel, stored results), and the search view (hits, relevance marks, a document's vector).
import '../../src/ui/evaluation/eval-panel.ts';
import type { EvalClient, EvalPanel } from '../../src/ui/evaluation/eval-panel.ts';
import type { EvalResultsTable } from '../../src/ui/evaluation/eval-results-table.ts';
import type { SearchClient, SearchView } from '../../src/ui/evaluation/search-view.ts';
import { formatShare } from '../../src/ui/common/format.ts';
import type { TermTable } from '../../src/ui/common/term-table.ts';
import type {
  EvaluateProgress,
  EvaluateRequest,
  ModelSummary,
  SearchHit,
  SetEvaluation,
  TermContribution,
} from '../../src/worker/api.ts';
import { allInside, cleanup, inside, mount, settle } from './ui-fixture.ts';
import { expect } from './expect.ts';
import { indexEstimateFixture } from './index-estimate-fixture.ts';
import { auditPair } from '../../src/contract/model/pair-audit.ts';

function evaluation(set: string, k: number, ndcg: number): SetEvaluation {
  const metrics = { ndcg_cut_10: ndcg, recip_rank_10: ndcg / 2, recall_100: 1, recall_1000: 1, map: ndcg / 3, P_10: 0.1 };
  const latency = {
    queries: 2,
    totalMs: 1,
    meanMs: 0.5,
    p50Ms: 0.5,
    p95Ms: 0.5,
    p99Ms: 0.5,
    queriesPerSecond: 2000,
    algorithm: 'exhaustive' as const,
    fullyScoredDocs: 4,
    meanFullyScoredDocs: 2,
  };
  const index = { documents: 3, dimension: 10, postings: 9, memoryBytes: 2048 };
  return {
    set: { name: set, documents: 3, queries: 2, judgments: 2, warnings: [] },
    model: { name: 'demo', key: 'demo #1', architecture: 'BertForMaskedLM' },
    request: { k, queryLength: 16, documentLength: 48, topK: 1000, prune: 0, search: 'exhaustive' },
    splade: {
      metrics,
      index,
      latency,
      timingsMs: {},
      documentsPerSecond: 12.5,
      efficiency: {
        query_active_dims: 5,
        query_sparsity_ratio: 0.5,
        corpus_active_dims: 7,
        corpus_sparsity_ratio: 0.3,
        avg_flops: 3.5,
      },
    },
    bm25: { metrics: { ...metrics, ndcg_cut_10: 0.5 }, index, latency, timingsMs: {} },
    memory: null,
    warnings: [],
    evaluatedAt: new Date(2026, 11, 1, 10, k).toISOString(),
  };
}

const measure = (el: EvalResultsTable, row: string, m: string) =>
  Number(inside(el, `${row} td[data-measure="${m}"]`).textContent);

describe('<eval-results-table>', () => {
  it('shows SPLADE and BM25 per set, and the mean over the sets of one batch', async () => {
    cleanup();
    const el = await mount<EvalResultsTable>('eval-results-table', {
      evaluations: [evaluation('NanoA', 2, 0.4), evaluation('NanoB', 2, 0.6)],
    });
    expect(allInside(el, 'tr.splade'), 'two sets and a mean, each with BM25').toHaveLength(3);
    expect(allInside(el, 'tr.bm25'), 'two sets and a mean, each with BM25').toHaveLength(3);
    expect(measure(el, 'tr.splade[data-set="NanoA"]', 'ndcg_cut_10'), 'set A nDCG@10').toBe(0.4);
    expect(measure(el, 'tr.mean.splade', 'ndcg_cut_10'), `mean nDCG@10 ${measure(el, 'tr.mean.splade', 'ndcg_cut_10')}`).toBe(
      0.5,
    );
    expect(measure(el, 'tr.mean.bm25', 'ndcg_cut_10'), 'BM25 mean').toBe(0.5);
  });

  it('leaves the mean out when the rows differ in k', async () => {
    cleanup();
    const el = await mount<EvalResultsTable>('eval-results-table', {
      evaluations: [evaluation('NanoA', 1, 0.4), evaluation('NanoB', 4, 0.6)],
    });
    expect(allInside(el, 'tr.mean'), 'no mean over different ks').toHaveLength(0);
  });
});

describe('<term-table>', () => {
  it('lists the largest products and sums the rest in one row', async () => {
    cleanup();
    const terms: TermContribution[] = [3, 2, 1, 0.5].map((p, i) => ({
      term: `t${i}`,
      query: 1,
      document: p,
      product: p,
      share: p / 6.5,
      expansion: i === 1,
    }));
    const el = await mount<TermTable>('term-table', { terms, limit: 2 });
    const products = allInside(el, 'tbody tr').map((row) => Number(row.getAttribute('data-product')));
    expect(JSON.stringify(products), `rows ${products}`).toBe(JSON.stringify([3, 2, 1.5]));
    expect(allInside(el, 'tbody tr')[1].textContent ?? '', 'an expansion term is named as such').toMatch(/expansion/);
  });
});

const SUMMARY = {
  name: 'demo',
  label: 'demo',
  synthetic: true,
  hfArchitecture: 'BertForMaskedLM',
  vocabSize: 10,
  hidden: 4,
  layers: 1,
  parameters: 100,
  tiedHead: true,
  maxTokens: 64,
  estimate: {} as ModelSummary['estimate'],
  encoding: 'queries and documents by the MLM with SpladePooling(max, relu)',
  notes: [],
} as ModelSummary;

function fakeClient() {
  const asked: EvaluateRequest[] = [];
  let cancelled = false;
  let release: () => void = () => undefined;
  const stored: SetEvaluation[] = [evaluation('NanoOld', 1, 0.2)];
  const exported: string[] = [];
  const client: EvalClient = {
    openDataset: async (source) => ({
      name: source.kind === 'files' ? `${source.name} #abc` : `Nano${source.set}`,
      documents: 3,
      queries: 2,
      judgments: 2,
      warnings: [],
    }),
    evaluate: async (request: EvaluateRequest, onProgress: (p: EvaluateProgress) => void) => {
      asked.push(request);
      onProgress({ set: request.sets[0], setIndex: 0, sets: 1, stage: 'documents', done: 1, total: 3 });
      await new Promise<void>((resolve) => (release = resolve));
      if (cancelled) throw Object.assign(new Error('Cancelled by the user'), { name: 'AbortError' });
      const result = evaluation(request.sets[0], request.k, 0.7);
      stored.unshift(result);
      return [result];
    },
    savedEvaluations: async () => [...stored],
    cancelJob: async () => {
      cancelled = true;
      release();
    },
    search: async () => ({
      query: 'q',
      queryId: null,
      queryVector: { terms: [], staticTable: false, encodeMs: 1 },
      splade: [],
      bm25: [],
    }),
    document: async (docId) => ({ docId, text: 'text', vector: { text: 'text', tokens: [], activeDims: 0, terms: [] } }),
    evaluatedQueries: async () => ({ set: 'x', queries: [] }),
    differences: async () => ({ set: 'x', spladeBetter: [], bm25Better: [] }),
    indexEstimate: async () => indexEstimateFixture('x'),
    publishEvaluated: async () => {
      throw new Error('demo is not inference-free (its queries need the model itself, not a table lookup)');
    },
    exportEvaluated: async (what) => (
      exported.push(what),
      { name: `x.${what}`, type: 'text/plain', bytes: new Uint8Array([10]) }
    ),
  };
  return { client, asked, exported, finish: () => release(), cancel: () => ((cancelled = true), release()) };
}

describe('<eval-panel>', () => {
  it("reads picked files, evaluates at the page's k with lengths capped by the model, shows progress, results and stored ones", async () => {
    cleanup();
    const fake = fakeClient();
    const el = await mount<EvalPanel>('eval-panel', { client: fake.client, summary: SUMMARY, k: 4 });
    await settle(el);
    expect(inside(el, 'eval-results-table#saved'), 'stored results shown before any evaluation').not.toBeNull();
    const chooser = inside(el, 'dataset-chooser') as HTMLElement & { updateComplete: Promise<boolean> };
    const input = chooser.shadowRoot!.querySelector<HTMLInputElement>('#beir-files')!;
    const picked = new DataTransfer();
    for (const name of ['corpus.jsonl', 'queries.jsonl', 'test.tsv']) picked.items.add(new File(['{}'], name));
    input.files = picked.files;
    input.dispatchEvent(new Event('change'));
    await settle(el);
    await chooser.updateComplete;
    expect(chooser.shadowRoot!.querySelector('#read-sets')?.textContent ?? '', 'the read set is listed').toMatch(
      /BEIR files #abc: 2 queries, 3 documents/,
    );
    expect(
      inside<HTMLInputElement>(el, '#documentLength').value,
      `document length capped at the model's 64: ${inside<HTMLInputElement>(el, '#documentLength').value}`,
    ).toBe('64');
    const button = inside<HTMLButtonElement>(el, '#evaluate');
    expect(button.textContent ?? '', button.textContent ?? '').toMatch(/Evaluate at k = 4/);
    button.click();
    await settle(el);
    expect(inside(el, '#eval-status').textContent ?? '', inside(el, '#eval-status').textContent ?? '').toMatch(
      /BEIR files #abc: encoding documents 1 of 3/,
    );
    expect(fake.asked[0].k, JSON.stringify(fake.asked[0])).toBe(4);
    expect(fake.asked[0].documentLength, JSON.stringify(fake.asked[0])).toBe(64);
    expect(fake.asked[0].sets[0], JSON.stringify(fake.asked[0])).toBe('BEIR files #abc');
    fake.finish();
    await settle(el);
    expect(inside(el, '#eval-status').textContent ?? '', inside(el, '#eval-status').textContent ?? '').toMatch(
      /Done: BEIR files #abc at k = 4/,
    );
    const latest = inside<EvalResultsTable>(el, 'eval-results-table#latest');
    await latest.updateComplete;
    expect(measure(latest, 'tr.splade', 'ndcg_cut_10'), 'latest result shown').toBe(0.7);
    const saved = inside<EvalResultsTable>(el, 'eval-results-table#saved');
    await saved.updateComplete;
    expect(allInside(saved, 'tr.splade'), 'the new result is stored beside the old one').toHaveLength(2);
    const exports = inside(el, 'eval-exports') as HTMLElement & { updateComplete: Promise<boolean> };
    await exports.updateComplete;
    const formats = [...exports.shadowRoot!.querySelectorAll<HTMLButtonElement>('button.export')].map((b) => b.dataset.format);
    expect(JSON.stringify(formats), `export buttons ${formats}`).toBe(JSON.stringify(['anserini', 'qdrant', 'es', 'trec']));
    exports.shadowRoot!.querySelector<HTMLButtonElement>('button[data-format="trec"]')!.click();
    await settle(el);
    await exports.updateComplete;
    expect(fake.exported.join(), `asked for ${fake.exported}`).toBe('trec');
    expect(exports.shadowRoot!.querySelector('#export-status')?.textContent ?? '', 'the saved file is named').toMatch(
      /Saved x\.trec/,
    );
  });

  it('a cancelled evaluation says that nothing was kept', async () => {
    cleanup();
    const fake = fakeClient();
    const el = await mount<EvalPanel>('eval-panel', { client: fake.client, summary: SUMMARY, k: 1 });
    (el as unknown as { _chosen: string[] })._chosen = ['NanoSciFact'];
    await settle(el);
    inside<HTMLButtonElement>(el, '#evaluate').click();
    await settle(el);
    inside<HTMLButtonElement>(el, '#cancel-eval').click();
    await settle(el);
    expect(inside(el, '#eval-status').textContent, inside(el, '#eval-status').textContent ?? '').toBe(
      'Cancelled: nothing of this evaluation was kept.',
    );
    expect(el.shadowRoot!.querySelector('eval-results-table#latest'), 'no result shown').toBeNull();
  });
});

describe('<search-view>', () => {
  it('gives each share the digits it needs and says where a score spread over thousands of terms is', async () => {
    cleanup();
    // a nearly dense pair: 6,000 shared terms of product 1 each, so every listed term is 1/6000 of the score
    const terms: TermContribution[] = Array.from({ length: 6000 }, (_, i) => ({
      term: `t${i}`,
      query: 1,
      document: 1,
      product: 1,
      share: 1 / 6000,
      expansion: true,
    }));
    const hit: SearchHit = { rank: 1, docId: 'd1', text: 'text', score: 6000, relevant: false, terms };
    const client = {
      search: async () => ({
        query: 'q',
        queryId: null,
        queryVector: { terms: [], staticTable: false, encodeMs: 1 },
        splade: [hit],
        bm25: [],
      }),
      document: async () => null,
      evaluatedQueries: async () => ({ set: 'NanoA', queries: [] }),
    } as unknown as SearchClient;
    const el = await mount<SearchView>('search-view', { client, set: 'NanoA' });
    inside<HTMLInputElement>(el, '#query').value = 'q';
    inside<HTMLButtonElement>(el, 'button[type="submit"]').click();
    await settle(el);
    const table = inside<TermTable>(el, '#splade-hits term-table');
    const shares = [...table.shadowRoot!.querySelectorAll('tbody tr td:last-child')].map((td) => td.textContent?.trim());
    expect(shares[0], `shares, not 0.0%: ${shares.join(' ')}`).toBe('0.017%');
    expect(shares.at(-1), `shares, not 0.0%: ${shares.join(' ')}`).toBe('99.9%');
    const note = (inside(el, '#search-note').textContent ?? '').replace(/\s+/g, ' ');
    expect(note, note).toMatch(/The 8 largest products of the first hit make 0\.1% of its score; its other 5992 shared terms/);
  });

  it('formats shares with one decimal, two significant digits below 0.1%, and 0 as 0%', async () => {
    expect(
      [0, 0.5, 0.0004, 0.00000001, 1].map(formatShare).join(' '),
      [0, 0.5, 0.0004, 0.00000001, 1].map(formatShare).join(' '),
    ).toBe('0% 50.0% 0.04% < 0.001% 100.0%');
  });

  it("lists the hits of both systems, marks judged-relevant ones and opens a document's vector", async () => {
    cleanup();
    const hit = (docId: string, relevant: boolean): SearchHit => ({
      rank: 1,
      docId,
      text: `text of ${docId}`,
      score: 2,
      relevant,
      terms: [{ term: 'cat', query: 1, document: 2, product: 2, share: 1, expansion: false }],
    });
    const client = {
      search: async () => ({
        query: 'cat',
        queryId: 'q1',
        queryVector: { terms: [{ term: 'cat', weight: 2.5 }], staticTable: true, encodeMs: 0.02 },
        splade: [hit('d1', true), hit('d2', false)],
        bm25: [hit('d2', false)],
      }),
      document: async (docId: string) => ({
        docId,
        text: 'the cat',
        vector: {
          text: 'the cat',
          tokens: ['the', 'cat'],
          activeDims: 1,
          terms: [{ term: 'cat', id: 5, weight: 1.5, expansion: false }],
        },
      }),
      evaluatedQueries: async () => ({ set: 'NanoA', queries: [{ id: 'q1', text: 'cat' }] }),
      auditPair: async (query: string, docId: string) =>
        auditPair(
          {
            text: query,
            k: 1,
            tokens: ['[CLS]', 'cat', '[SEP]'],
            terms: [{ id: 5, term: 'kitten', weight: 2, expansion: true, position: 1, piece: 'cat' }],
            expansionShare: 1,
          },
          {
            text: `the cat of ${docId}`,
            k: 1,
            tokens: ['[CLS]', 'the', 'cat', '[SEP]'],
            terms: [{ id: 5, term: 'kitten', weight: 1.5, expansion: true, position: 2, piece: 'cat' }],
            expansionShare: 1,
          },
        ),
    };
    const el = await mount<SearchView>('search-view', { client, set: 'NanoA' });
    inside<HTMLInputElement>(el, '#query').value = 'cat';
    inside<HTMLButtonElement>(el, 'button[type="submit"]').click();
    for (let i = 0; i < 5; i++) await el.updateComplete.then(() => new Promise((resolve) => setTimeout(resolve, 0)));
    expect(allInside(el, '#splade-hits li'), 'both systems listed').toHaveLength(2);
    expect(allInside(el, '#bm25-hits li'), 'both systems listed').toHaveLength(1);
    expect(allInside(el, '#splade-hits li.relevant'), 'one judged-relevant hit marked').toHaveLength(1);
    expect(inside(el, '#search-note').textContent ?? '', 'one term carries the score: no spread note').not.toMatch(
      /largest products/,
    );
    // an inference-free query: its static weights, said to be a lookup, with its time
    const queryVector = inside(el, '#query-vector');
    expect(queryVector.textContent ?? '', queryVector.textContent ?? '').toMatch(/static table .*a lookup, no encoder ran/);
    expect(inside(el, '#query-ms').textContent, inside(el, '#query-ms').textContent ?? '').toBe('0.020 ms');
    expect(inside(el, '.qterm[data-term="cat"] b').textContent, 'the term with its static weight').toBe('2.50');
    inside<HTMLButtonElement>(el, '#splade-hits li button.open').click();
    for (let i = 0; i < 5; i++) await el.updateComplete.then(() => new Promise((resolve) => setTimeout(resolve, 0)));
    expect(inside(el, '#opened sparse-terms'), 'the document vector opens').not.toBeNull();
    // the opened hit's headings go one level down from its h4 (axe's heading-order): the vector's h5, not an h3
    const vectorHeading = inside(el, '#opened sparse-terms').shadowRoot!.querySelector('.heading');
    expect(vectorHeading?.localName, `the vector's heading: ${vectorHeading?.outerHTML}`).toBe('h5');
    // which input token caused each of its terms, once asked
    inside<HTMLButtonElement>(el, '#audit-opened').click();
    for (let i = 0; i < 5; i++) await el.updateComplete.then(() => new Promise((resolve) => setTimeout(resolve, 0)));
    const origins = inside(el, '#opened-origins');
    const byToken = origins.shadowRoot!.querySelector('#by-token li');
    expect(byToken?.getAttribute('data-piece'), 'cat caused kitten').toBe('cat');
    expect(byToken!.textContent ?? '', 'cat caused kitten').toMatch(/kitten/);
    // ... and which caused each term the document shares with the searched query, on both sides
    const shared = inside(el, '#opened-shared').shadowRoot!.querySelector('#shared-table tbody tr');
    expect(shared?.getAttribute('data-term'), shared?.outerHTML ?? 'no shared row').toBe('kitten');
    expect(shared!.getAttribute('data-product'), shared?.outerHTML ?? 'no shared row').toBe('3');
    expect(shared!.getAttribute('data-query-position'), shared?.outerHTML ?? 'no shared row').toBe('1');
    expect(shared!.getAttribute('data-document-position'), shared?.outerHTML ?? 'no shared row').toBe('2');
  });
});
