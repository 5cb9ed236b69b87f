// BEIR SciFact (CC BY-NC 2.0, read from the data folder): its counts and texts as BEIR publishes them, BM25 against
// Anserini's figure with the run's trec_eval measures equal to the printed ones, evaluateEncoder at full size, and the
// idf table of inference-free SPLADE against its float64 reference.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadBeir, parseBeirQrels } from '../../src/io/beir/beir.ts';
import { createFolderSource as folderSource } from '../../src/io/file-source-node.ts';
import { parseRun } from '../../src/io/beir/trec.ts';
import { evaluateEncoder, type SparseEncoder } from '../../src/retrieval/evaluate.ts';
import { evaluateRun } from '../../src/retrieval/metrics/evaluate-run.ts';
import { sparseFromEntries } from '../../src/util/sparse-vector.ts';
import { wordAnalyzer } from '../../src/retrieval/word-analyzer.ts';
import { runCli } from '../helpers/cli.ts';
import { dataPath } from './data-folder.ts';
import { loadTokenizer } from '../../src/io/tokenizer/tokenizer-load.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { idfMismatches, idfReference } from '../helpers/idf-reference.ts';

const scratch = mkdtempSync(join(tmpdir(), 'splade-lab-scifact-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const SCIFACT = dataPath('scifact');

describe('SciFact', () => {
  it("splade-lab idf over SciFact's corpus equals the float64 reference, token for token", async () => {
    const tokenizerDir = fixturePath('tokenizers/bert-base-uncased');
    const out = join(scratch, 'idf.json');
    const { code, stdout } = await runCli('idf', '--corpus', SCIFACT, '--tokenizer', tokenizerDir, '--out', out, '--json');
    expect(code).toBe(0);
    expect(JSON.parse(stdout).documents).toBe(5183);
    const written = JSON.parse(readFileSync(out, 'utf8')) as Record<string, number>;
    const reference = await idfReference(SCIFACT, await loadTokenizer(folderSource(tokenizerDir)));
    expect(idfMismatches(written, reference)).toEqual([]);
  });

  it('loads 5183 documents, the 300 test queries, title + " " + text', async () => {
    const dataset = await loadBeir(folderSource(SCIFACT), 'test');
    expect(dataset.corpusIds).toHaveLength(5183);
    expect(dataset.queryIds).toHaveLength(300);
    expect(dataset.qrels.size).toBe(300);
    expect([...dataset.qrels.values()].reduce((n, m) => n + m.size, 0)).toBe(339);
    expect(dataset.corpusTexts[0].startsWith('Microstructural development of human newborn cerebral white matter')).toBe(true);
    expect(dataset.warnings).toEqual([]);
  });

  it('splade-lab bm25 lands on Anserini and writes a run whose trec_eval measures equal the printed JSON', async () => {
    const runPath = join(scratch, 'bm25.trec');
    const { code, stdout } = await runCli('bm25', '--beir', SCIFACT, '--run', runPath, '--json');
    expect(code).toBe(0);
    const summary = JSON.parse(stdout);
    expect(summary.num_q).toBe(300);
    expect(summary.ndcg_cut_10).toBeGreaterThan(0.6); // Anserini's flat BM25 reaches 0.665 on SciFact
    expect(summary.index.memoryBytes).toBeGreaterThan(0);
    const { qrels } = parseBeirQrels(readFileSync(join(SCIFACT, 'qrels/test.tsv'), 'utf8'), 'test.tsv');
    const fromFile = evaluateRun(qrels, parseRun(readFileSync(runPath, 'utf8')).run);
    for (const key of ['ndcg_cut_10', 'recall_100', 'recall_1000', 'map']) expect(fromFile.summary.get(key)).toBe(summary[key]);
  });

  it('evaluateEncoder runs a bag-of-words stand-in over the whole set', async () => {
    const dataset = await loadBeir(folderSource(SCIFACT), 'test');
    const vocab: string[] = [];
    const ids = new Map<string, number>();
    const analyzer = wordAnalyzer();
    const encode = (text: string) =>
      sparseFromEntries(analyzer(text).map((w) => [ids.get(w) ?? (ids.set(w, vocab.push(w) - 1), vocab.length - 1), 1] as const));
    const encoder: SparseEncoder = {
      vocab,
      encodeQueries: async (texts) => texts.map(encode),
      encodeDocuments: async (texts) => texts.map(encode),
    };
    const report = await evaluateEncoder(encoder, dataset, { topK: 100 });
    expect(report.metrics.num_q).toBe(300);
    expect(report.metrics.ndcg_cut_10).toBe(evaluateRun(dataset.qrels, report.run).summary.get('ndcg_cut_10'));
    expect(report.metrics.ndcg_cut_10).toBeGreaterThan(0.2);
    expect(report.index.documents).toBe(5183);
  });
});
