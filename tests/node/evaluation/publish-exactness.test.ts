// A published folder searched by the runtime's own code (src/publish-runtime/engine.ts, reading the built files) on
// the generated set's SPLADE-shaped vectors (tests/helpers/generated-sparse-set.ts) with an inference-free query side
// (bert-base-uncased's tokenizer, a seeded static table): lossless weights and no cap give eval's top 1000 and
// nDCG@10 (retrieveAndEvaluate, what `splade-lab eval` runs) and `splade-lab bm25`'s; uint8 and float16 weights and
// caps are measured (printed: docs/publish.md quotes them); "why it matched" adds up to the score and marks expansions.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { evaluateBm25 } from '../../../src/app/evaluation/bm25-baseline.ts';
import { buildSite, measureSite, siteReader, type PublishOptions } from '../../../src/app/evaluation/publish-site.ts';
import { loadBeir } from '../../../src/io/beir/beir.ts';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { SearchEngine, type SystemName } from '../../../src/publish-runtime/engine.ts';
import type { WeightKind } from '../../../src/publish-runtime/shard-codec.ts';
import { retrieveAndEvaluate } from '../../../src/retrieval/evaluate.ts';
import { buildInvertedIndex } from '../../../src/retrieval/inverted-index.ts';
import { staticQueryEntries } from '../../../src/model/static-query-lookup.ts';
import { sparseFromEntries } from '../../../src/util/sparse-vector.ts';
import { generatedBeir } from '../../helpers/generated-data.ts';
import { generatedSiteInput } from '../../helpers/generated-site-input.ts';

const SOURCES = new TextEncoder().encode('// the runtime is bundled by the CLI; this test runs its sources\n');
const RUNTIME = { script: SOURCES, worker: SOURCES };

const OPTIONS: PublishOptions = {
  k: 1,
  documentLength: 256,
  prune: 0,
  cap: null,
  weights: 'float32',
  bm25: true,
  shardBytes: 4096,
  chunkSize: 16,
  snippetCharacters: 120,
  title: 'generated',
};

async function setup() {
  const dataset = await loadBeir(createFolderSource(generatedBeir()), 'test');
  const judged = { ids: dataset.queryIds, texts: dataset.queryTexts, qrels: dataset.qrels };
  const { input, set, tokenizer, table, own } = await generatedSiteInput();
  expect(set.documents.map((d) => d.id)).toEqual(dataset.corpusIds);
  const queryIds = (text: string) => tokenizer.encode(text, { addSpecialTokens: false }).ids;
  const queryVectors = dataset.queryTexts.map((text) => sparseFromEntries(staticQueryEntries(table, queryIds(text))));
  return { dataset, judged, input, queryVectors, own, vocab: set.vocab };
}

const ready = setup();

async function runOf(system: SystemName, options: Partial<PublishOptions> = {}) {
  const { dataset, input } = await ready;
  const site = await buildSite(input, RUNTIME, { ...OPTIONS, ...options });
  const engine = await SearchEngine.open(siteReader(site));
  const results = [];
  for (const text of dataset.queryTexts) results.push(await engine.search(text, { k: 1000, system, details: 1000 }));
  return { site, results };
}

describe('a published folder searched by its runtime', () => {
  it("gives eval's top 1000 and nDCG@10 with float32 weights and no cap (SPLADE), and bm25's (BM25)", async () => {
    const { dataset, judged, input, queryVectors } = await ready;
    const exact = {
      splade: retrieveAndEvaluate(buildInvertedIndex(input.vectors, input.queryWeights.length), queryVectors, dataset, {
        topK: 1000,
      }),
      bm25: evaluateBm25(dataset, { params: { k1: 0.9, b: 0.4 }, topK: 1000, search: 'exhaustive' }),
    };
    for (const system of ['splade', 'bm25'] as const) {
      const { results } = await runOf(system);
      let largest = 0;
      results.forEach((result, q) => {
        const expected = [...exact[system].run.get(dataset.queryIds[q])!];
        expect(result.hits.map((h) => h.id)).toEqual(expected.map(([id]) => id));
        result.hits.forEach((h, r) => (largest = Math.max(largest, Math.abs(h.score - expected[r][1]))));
      });
      expect(largest).toBeLessThanOrEqual(1e-4);
      expect(largest).toBe(0); // the same float32 weights summed in the same order
      const quality = await measureSite(await buildSite(input, RUNTIME, OPTIONS), judged, dataset.corpusIds, queryVectors);
      const measured = quality.find((q) => q.system === system)!;
      expect(Math.abs(measured.published - exact[system].metrics.ndcg_cut_10)).toBeLessThanOrEqual(1e-4);
      expect(measured.exact).toBe(exact[system].metrics.ndcg_cut_10);
      expect(measured.rankingsDiffering).toBe(0);
    }
  });

  it('says why a hit matched: the products add up to its score, expansions are the terms the document does not hold', async () => {
    const { own, vocab } = await ready;
    const { results } = await runOf('splade');
    let expansions = 0;
    for (const result of results.slice(0, 8))
      for (const hit of result.hits.slice(0, 10)) {
        const why = hit.why!;
        expect(Math.abs(why.reduce((s, t) => s + t.product, 0) - hit.score)).toBeLessThan(1e-9);
        const ownTokens = new Set([...own[hit.doc]].map((id) => vocab[id]));
        for (const term of why) {
          expect(result.terms.some((t) => t.term === term.term && t.weight === term.query)).toBe(true);
          expect(term.product).toBe(term.query * term.document);
          expect(term.expansion).toBe(!ownTokens.has(term.term));
          if (term.expansion) expansions++;
        }
      }
    expect(expansions).toBeGreaterThan(0);
  });

  it('measures what uint8 and float16 weights and caps cost, and their sizes (printed for docs/publish.md)', async () => {
    const { dataset, judged, input, queryVectors } = await ready;
    const rows: string[] = [];
    const costs = new Map<string, number>();
    const configs: [WeightKind, number | null][] = [
      ['float32', null],
      ['float16', null],
      ['uint8', null],
      ['uint8', 100],
      ['uint8', 50],
      ['uint8', 20],
      ['uint8', 5],
    ];
    for (const [weights, cap] of configs) {
      const site = await buildSite(input, RUNTIME, { ...OPTIONS, weights, cap });
      const [splade, bm25] = await measureSite(site, judged, dataset.corpusIds, queryVectors);
      const name = `${weights}${cap ? ` cap ${cap}` : ''}`;
      costs.set(name, splade.exact - splade.published);
      const s = site.manifest.sizes;
      const gz = (prefix: string) =>
        site.files.filter((f) => f.path.startsWith(prefix)).reduce((n, f) => n + gzipSync(f.bytes).length, 0);
      rows.push(
        `${name.padEnd(14)} SPLADE nDCG@10 ${splade.published.toFixed(4)} (exact ${splade.exact.toFixed(4)}, cost ${(splade.exact - splade.published).toFixed(4)}, ` +
          `${splade.rankingsDiffering} rankings differ) postings ${s.spladePostings} B; BM25 ${bm25.published.toFixed(4)} (cost ${(bm25.exact - bm25.published).toFixed(4)}) ${s.bm25Postings} B; ` +
          `query side ${s.querySide} B (gzip ${gz('query/')}), documents ${s.documents} B (gzip ${gz('docs/')}); SPLADE postings gzip ${gz('splade/')}`,
      );
    }
    console.log(`published generated set (192 documents, 32 queries):\n${rows.join('\n')}`);
    expect(costs.get('float32')).toBe(0);
    expect(Math.abs(costs.get('float16')!)).toBeLessThan(0.01);
    expect(Math.abs(costs.get('uint8')!)).toBeLessThan(0.02);
  });
});
