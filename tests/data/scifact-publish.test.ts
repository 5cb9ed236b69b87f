// A published search over BEIR SciFact (CC BY-NC 2.0, read from the data folder): the bytes a cold query fetches, per
// test query, with the query side of a real inference-free model (bert-base-uncased's vocabulary, an IDF table over
// SciFact's corpus) and SPLADE-shaped document vectors made from each document's own tokens (log(1 + tf); a trained
// model would add expansions, so its posting shards would be larger), published with the CLI's defaults (no cap: the
// search is exact). Printed per part, with the files a query fetches. It fails above issue 46's targets (p50 150,000 B,
// p90 300,000 B per cold query, the runtime included) and when a cold query reads all of any kind of file.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpusQueryWeights } from '../../src/app/evaluation/idf-table-node.ts';
import { queryTokenizerSpec } from '../../src/app/evaluation/publish-query-side.ts';
import { searchRuntime } from '../../src/app/evaluation/publish-runtime-node.ts';
import { buildSite, siteReader, type PublishOptions, PUBLISH_DEFAULTS } from '../../src/app/evaluation/publish-site.ts';
import { loadBeir } from '../../src/io/beir/beir.ts';
import { createFolderSource } from '../../src/io/file-source-node.ts';
import { loadTokenizer } from '../../src/io/tokenizer/tokenizer-load.ts';
import { SearchEngine } from '../../src/publish-runtime/engine.ts';
import { WORKER_FILE } from '../../src/publish-runtime/static-search.ts';
import { sparseFromEntries } from '../../src/util/sparse-vector.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { dataPath } from './data-folder.ts';

const SCIFACT = dataPath('scifact');

/** The CLI's defaults (docs/publish.md). */
const OPTIONS: PublishOptions = { ...PUBLISH_DEFAULTS, k: 1, documentLength: 256, title: 'SciFact' };

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
}

describe('a published search over SciFact', () => {
  it('a cold query reads part of the postings, the vocabulary and the documents, never all (bytes per part printed)', async () => {
    const tokenizer = await loadTokenizer(createFolderSource(fixturePath('tokenizers/bert-base-uncased')));
    const dataset = await loadBeir(createFolderSource(SCIFACT), 'test');
    const specials = new Set(Object.values(tokenizer.specialIds).filter((id): id is number => id !== null));
    const own = dataset.corpusTexts.map((text) => {
      const counts = new Map<number, number>();
      for (const id of tokenizer.encode(text, { maxLength: OPTIONS.documentLength }).ids)
        if (!specials.has(id)) counts.set(id, (counts.get(id) ?? 0) + 1);
      return counts;
    });
    const table = await corpusQueryWeights(join(SCIFACT, 'corpus.jsonl'), tokenizer);
    const site = await buildSite(
      {
        modelName: 'SciFact, own-token vectors',
        k: 1,
        documentLength: OPTIONS.documentLength,
        prune: 0,
        corpusName: 'scifact',
        fingerprint: 'sha256:0',
        records: dataset.corpusIds.map((id, i) => ({
          id,
          text: dataset.corpusTexts[i],
          title: id,
          url: '',
          body: dataset.corpusTexts[i],
        })),
        vectors: own.map((counts) => sparseFromEntries([...counts].map(([id, tf]) => [id, Math.log1p(tf)] as const))),
        isOwn: (doc, id) => own[doc].has(id),
        queryWeights: table.weights,
        tokenizer: queryTokenizerSpec(tokenizer, null, 'bert-base-uncased'),
      },
      await searchRuntime(),
      OPTIONS,
    );
    const read = siteReader(site);
    const runtime = ['index.html', 'splade-search.js', WORKER_FILE]
      .map((path) => site.files.find((f) => f.path === path)!.bytes.length)
      .reduce((a, b) => a + b, 0);
    const perQuery: number[] = [];
    const requests: number[] = [];
    const parts = new Map<string, number[]>();
    for (const text of dataset.queryTexts) {
      let bytes = 0;
      let files = 3; // the runtime's

      const byPart = new Map<string, number>();
      // a fresh engine per query: nothing cached, every file it reads counted
      const engine = await SearchEngine.open(async (path) => {
        const file = await read(path);
        bytes += file.length;
        files++;
        const part = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : path;
        byPart.set(part, (byPart.get(part) ?? 0) + file.length);
        return file;
      });
      await engine.search(text, { k: 10 });
      perQuery.push(runtime + bytes);
      requests.push(files);
      for (const [part, n] of byPart) parts.set(part, [...(parts.get(part) ?? []), n]);
    }
    const partLines = [...parts].map(([part, list]) => `${part} p50 ${percentile(list, 0.5)} B (in ${list.length} queries)`);
    const p50 = percentile(perQuery, 0.5);
    const p90 = percentile(perQuery, 0.9);
    console.log(
      `SciFact, ${dataset.corpusIds.length} documents, ${perQuery.length} test queries, cold, uncompressed: ` +
        `p50 ${p50} B, p90 ${p90} B (runtime ${runtime} B of it; the folder ${site.manifest.sizes.total} B, ` +
        `SPLADE postings ${site.manifest.sizes.spladePostings} B, query side ${site.manifest.sizes.querySide} B); ` +
        `files fetched p50 ${percentile(requests, 0.5)}, p90 ${percentile(requests, 0.9)} of ${site.files.length + 1}\n  ` +
        partLines.join('\n  '),
    );
    expect(perQuery).toHaveLength(300);
    expect(p50).toBeLessThanOrEqual(150_000);
    expect(p90).toBeLessThanOrEqual(300_000);
    const most = (part: string) => Math.max(...(parts.get(part) ?? [0]));
    const { sizes } = site.manifest;
    expect(most('search.json')).toBe(site.files.find((f) => f.path === 'search.json')!.bytes.length);
    expect(most('splade')).toBeLessThan(sizes.spladePostings / 2);
    expect(most('query/vocabulary')).toBeLessThan(sizes.querySide / 2);
    expect(most('docs')).toBeLessThan(sizes.documents / 10);
    expect(parts.has('bm25')).toBe(false);
  });
});
