// The `metrics` and `bm25` commands end to end, and evaluateEncoder with a stand-in encoder.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadBeir, parseBeirQrels } from '../../../src/io/beir/beir.ts';
import { createFolderSource as folderSource } from '../../../src/io/file-source-node.ts';
import { parseRun } from '../../../src/io/beir/trec.ts';
import { evaluateEncoder, type SparseEncoder } from '../../../src/retrieval/evaluate.ts';
import { evaluateRun } from '../../../src/retrieval/metrics/evaluate-run.ts';
import { sparseFromEntries } from '../../../src/util/sparse-vector.ts';
import { wordAnalyzer } from '../../../src/retrieval/word-analyzer.ts';
import { runCli } from '../../helpers/cli.ts';
import { fixturePath, readFixtureText } from '../../helpers/fixtures.ts';
import { generatedBeir } from '../../helpers/generated-data.ts';

const scratch = mkdtempSync(join(tmpdir(), 'splade-lab-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const cli = runCli;

describe('splade-lab metrics', () => {
  const qrels = fixturePath('trec_eval/qrels.test');
  const run = fixturePath('trec_eval/results.test');

  it('prints the "all" rows of out.test.a for every measure it knows, and runid', async () => {
    const { code, stdout } = await cli('metrics', '--qrels', qrels, '--run', run);
    expect(code).toBe(0);
    const ours = new Map(
      stdout
        .trim()
        .split('\n')
        .map((l) => [l.split('\t')[0].trim(), l] as const),
    );
    let matched = 0;
    for (const line of readFixtureText('trec_eval/out.test.a').trim().split('\n')) {
      const mine = ours.get(line.split('\t')[0].trim());
      if (mine === undefined) continue;
      expect(mine).toBe(line);
      matched++;
    }
    expect(matched).toBeGreaterThan(80);
  });

  it('--json prints one object with the promised keys', async () => {
    const { stdout } = await cli('metrics', '--qrels', qrels, '--run', run, '--json');
    const summary = JSON.parse(stdout);
    for (const key of ['ndcg_cut_10', 'recip_rank_10', 'recall_100', 'recall_1000', 'P_10', 'map'])
      expect(typeof summary[key]).toBe('number');
    expect(summary.map.toFixed(4)).toBe('0.1785'); // out.test: map all 0.1785
  });

  it('fails with a message naming a missing file', async () => {
    const { code, stderr } = await cli('metrics', '--qrels', join(scratch, 'nope.txt'), '--run', run);
    expect(code).toBe(1);
    expect(stderr).toMatch(/cannot read --qrels .*nope\.txt/);
  });
});

describe('splade-lab bm25', () => {
  it('writes a run whose trec_eval measures equal the printed JSON (the generated set; SciFact against Anserini is tests/data)', async () => {
    const beir = generatedBeir();
    const runPath = join(scratch, 'bm25.trec');
    const { code, stdout } = await cli('bm25', '--beir', beir, '--run', runPath, '--json');
    expect(code).toBe(0);
    const summary = JSON.parse(stdout);
    const { qrels } = parseBeirQrels(readFileSync(join(beir, 'qrels/test.tsv'), 'utf8'), 'test.tsv');
    expect(summary.num_q).toBe(qrels.size);
    // every document of a query's topic is relevant and shares its topic words: word matching ranks them well
    expect(summary.ndcg_cut_10).toBeGreaterThan(0.5);
    expect(summary.index.memoryBytes).toBeGreaterThan(0);
    const fromFile = evaluateRun(qrels, parseRun(readFileSync(runPath, 'utf8')).run);
    for (const key of ['ndcg_cut_10', 'recall_100', 'recall_1000', 'map']) expect(fromFile.summary.get(key)).toBe(summary[key]);
  });

  it('--tokenizer indexes WordPiece pieces, so a query matches a document through a shared sub-word', async () => {
    const dir = join(scratch, 'pieces-beir');
    mkdirSync(join(dir, 'qrels'), { recursive: true });
    const docs = [
      { _id: 'd1', title: '', text: 'the tokenizers split words' },
      { _id: 'd2', title: '', text: 'a cat sat on the mat' },
    ];
    writeFileSync(join(dir, 'corpus.jsonl'), docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
    writeFileSync(join(dir, 'queries.jsonl'), JSON.stringify({ _id: 'q1', text: 'tokenizer' }) + '\n');
    writeFileSync(join(dir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\nq1\td1\t1\n');
    const words = JSON.parse((await cli('bm25', '--beir', dir, '--json')).stdout);
    expect(words.num_rel_ret).toBe(0); // "tokenizer" and "tokenizers" are different words
    const { code, stdout } = await cli(
      'bm25',
      '--beir',
      dir,
      '--tokenizer',
      fixturePath('tokenizers/bert-base-uncased'),
      '--json',
    );
    expect(code).toBe(0);
    const pieces = JSON.parse(stdout);
    expect(pieces.num_rel_ret).toBe(1); // both start with the piece "token"
    expect(pieces.recip_rank).toBe(1);
  });
});

describe('evaluateEncoder', () => {
  it('runs a stand-in bag-of-words encoder through index, search, trec_eval and efficiency figures', async () => {
    const dataset = await loadBeir(folderSource(generatedBeir()), 'test');
    const vocab: string[] = [];
    const ids = new Map<string, number>();
    const analyzer = wordAnalyzer();
    const encode = (text: string) =>
      sparseFromEntries(analyzer(text).map((w) => [ids.get(w) ?? (ids.set(w, vocab.push(w) - 1), vocab.length - 1), 1] as const));
    const progress: string[] = [];
    const encoder: SparseEncoder = {
      vocab,
      encodeQueries: async (texts, onProgress) => texts.map((t, i) => (onProgress?.(i + 1, texts.length), encode(t))),
      encodeDocuments: async (texts, onProgress) => texts.map((t, i) => (onProgress?.(i + 1, texts.length), encode(t))),
    };
    const report = await evaluateEncoder(encoder, dataset, {
      topK: 100,
      onProgress: (stage, done, total) => done === total && progress.push(stage),
    });
    expect(progress).toEqual(['queries', 'documents', 'search']);
    expect(report.metrics.num_q).toBe(dataset.qrels.size);
    expect(report.metrics.ndcg_cut_10).toBe(evaluateRun(dataset.qrels, report.run).summary.get('ndcg_cut_10'));
    expect(report.metrics.ndcg_cut_10).toBeGreaterThan(0.2);
    expect(report.efficiency.query_active_dims).toBeGreaterThan(1);
    expect(report.efficiency.avg_flops).toBeGreaterThan(0);
    expect(report.index.documents).toBe(dataset.corpusIds.length);
  });
});
