// `splade-lab index-stats` end to end on a generated tiny model and BEIR set, checked against counts made here from
// the vectors `splade-lab encode` writes, and its pruning curve against `splade-lab eval --prune N`.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexStatsReport } from '../../../src/contract/evaluation/index-stats.ts';
import type { Qrels, Run } from '../../../src/contract/evaluation/run-types.ts';
import { exhaustiveSearch } from '../../../src/retrieval/exhaustive-search.ts';
import { evaluateRun } from '../../../src/retrieval/metrics/evaluate-run.ts';
import type { SparseVector } from '../../../src/util/sparse-vector.ts';
import { runCli } from '../../helpers/cli.ts';
import { TINY_VOCAB, TINY_WORDS, writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';
import { writeVInt } from '../../helpers/vint.ts';

/** 24 documents of 3 to 7 tiny-vocabulary words (under 32, so eval encodes them in the same batches as encode). */
const DOCS = Array.from({ length: 24 }, (_, i) => ({
  _id: `d${i}`,
  text: Array.from({ length: 3 + (i % 5) }, (_, j) => TINY_WORDS[(i * 7 + j * 13) % TINY_WORDS.length]).join(' '),
}));
const QUERIES = Array.from({ length: 6 }, (_, q) => ({ _id: `q${q}`, text: DOCS[4 * q].text.split(' ').slice(0, 2).join(' ') }));
const QRELS: Qrels = new Map(
  QUERIES.map((q, i) => [
    q._id,
    new Map([
      [`d${4 * i}`, 1],
      [`d${4 * i + 1}`, 1],
    ]),
  ]),
);

const LENGTHS = ['--doc-length', '16', '--query-length', '8'];
const PRUNE_TOP = [40, 20, 10, 5];
const THRESHOLDS = [0.5, 1, 1.5];

let root: string;
let report: IndexStatsReport;
let documents: SparseVector[];
let queries: SparseVector[];

const args = () => ['--model', join(root, 'model'), '--beir', join(root, 'beir'), ...LENGTHS];

/** The vectors `splade-lab encode --format qdrant` writes for a JSONL file. */
async function encoded(file: string, side: string, maxLength: string): Promise<SparseVector[]> {
  const out = join(root, `${side}.vectors.jsonl`);
  const result = await runCli(
    'encode',
    '--model',
    join(root, 'model'),
    '--in',
    file,
    '--out',
    out,
    '--format',
    'qdrant',
    '--side',
    side,
    '--max-length',
    maxLength,
  );
  expect(result.code, result.stderr).toBe(0);
  return (await readFile(out, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line).vector.splade)
    .map((v: { indices: number[]; values: number[] }) => ({
      indices: Uint32Array.from(v.indices),
      values: Float32Array.from(v.values),
    }));
}

/** Per term id, the documents (in order) and weights of its non-zero entries: the index counted directly. */
function postingsByTerm(vectors: readonly SparseVector[]): Map<number, { doc: number; weight: number }[]> {
  const lists = new Map<number, { doc: number; weight: number }[]>();
  vectors.forEach((v, doc) =>
    v.indices.forEach((id, i) => {
      if (v.values[i] === 0) return;
      if (!lists.has(id)) lists.set(id, []);
      lists.get(id)!.push({ doc, weight: v.values[i] });
    }),
  );
  return lists;
}

/** Postings kept and bytes when each weight maps to round(scale * w): VInt(docid gap) + impactBytes(q) each. */
function quantisedBytes(vectors: readonly SparseVector[], scale: number, impactBytes: (q: number) => number) {
  let postings = 0;
  let bytes = 0;
  for (const list of postingsByTerm(vectors).values()) {
    let previous = 0;
    for (const { doc, weight } of list) {
      const q = Math.round(scale * weight);
      if (q === 0) continue;
      bytes += writeVInt(doc - previous).length + impactBytes(q);
      previous = doc;
      postings++;
    }
  }
  return { postings, bytes };
}

const anseriniBytes = (vectors: readonly SparseVector[]) => quantisedBytes(vectors, 100, (q) => writeVInt(q).length);

/** rank_features as Lucene writes a FeatureField: every weight a posting, its frequency the float32 bits >>> 15. */
function featureFieldBytes(vectors: readonly SparseVector[]) {
  const view = new DataView(new ArrayBuffer(4));
  let postings = 0;
  let bytes = 0;
  for (const list of postingsByTerm(vectors).values()) {
    let previous = 0;
    for (const { doc, weight } of list) {
      view.setFloat32(0, weight);
      bytes += writeVInt(doc - previous).length + writeVInt(view.getUint32(0) >>> 15).length;
      previous = doc;
      postings++;
    }
  }
  return { postings, bytes };
}

function summedPostings(vectors: readonly SparseVector[], query: SparseVector): number {
  const lists = postingsByTerm(vectors);
  return [...query.indices].reduce((sum, id) => sum + (lists.get(id)?.length ?? 0), 0);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-index-stats-'));
  await writeTinySpladeModel(join(root, 'model'));
  await mkdir(join(root, 'beir', 'qrels'), { recursive: true });
  await writeFile(join(root, 'beir', 'corpus.jsonl'), DOCS.map((d) => JSON.stringify(d)).join('\n') + '\n');
  await writeFile(join(root, 'beir', 'queries.jsonl'), QUERIES.map((q) => JSON.stringify(q)).join('\n') + '\n');
  const qrelRows = [...QRELS].flatMap(([q, docs]) => [...docs.keys()].map((d) => `${q}\t${d}\t1`));
  await writeFile(join(root, 'beir', 'qrels', 'test.tsv'), ['query-id\tcorpus-id\tscore', ...qrelRows].join('\n') + '\n');
  const result = await runCli(
    'index-stats',
    ...args(),
    '--prune-top',
    PRUNE_TOP.join(','),
    '--prune-threshold',
    THRESHOLDS.join(','),
    '--json',
  );
  expect(result.code, result.stderr).toBe(0);
  report = JSON.parse(result.stdout);
  documents = await encoded(join(root, 'beir', 'corpus.jsonl'), 'document', '16');
  queries = await encoded(join(root, 'beir', 'queries.jsonl'), 'query', '8');
}, 120_000);
afterAll(() => rm(root, { recursive: true, force: true }));

describe('splade-lab index-stats', () => {
  it('counts the posting lists of the encoded documents as a direct count does', () => {
    const lengths = [...postingsByTerm(documents)].map(([id, list]) => ({ id, length: list.length }));
    const ascending = lengths.map((l) => l.length).sort((a, b) => a - b);
    const total = ascending.reduce((s, x) => s + x, 0);
    const longest = lengths.sort((a, b) => b.length - a.length || a.id - b.id).slice(0, 10);
    expect(report.postingLengths).toEqual({
      postings: total,
      terms: ascending.length,
      mean: total / ascending.length,
      p50: ascending[Math.ceil(0.5 * ascending.length) - 1],
      p99: ascending[Math.ceil(0.99 * ascending.length) - 1],
      max: ascending[ascending.length - 1],
      longest: longest.map(({ id, length }) => ({ term: TINY_VOCAB[id], id, length })),
    });
  });

  it("sums each query's posting lengths as a direct count does", () => {
    const sums = queries.map((q) => summedPostings(documents, q));
    expect(report.queryPostings.perQuery).toEqual(QUERIES.map((q, i) => ({ id: q._id, postings: sums[i] })));
    expect(report.queryPostings.mean).toBeCloseTo(sums.reduce((s, x) => s + x, 0) / sums.length, 10);
  });

  it('sizes the index as Anserini impacts and as rank_features (Lucene FeatureField), VInts written out', () => {
    expect(report.size.anserini).toMatchObject(anseriniBytes(documents));
    expect(report.size.byte).toMatchObject(featureFieldBytes(documents));
    expect(report.size.anserini.model).toMatch(/VInt\(docid gap\) \+ VInt\(impact\)/);
    expect(report.size.byte.model).toMatch(/9 significant bits.*VInt\(docid gap\) \+ VInt\(frequency\)/);
  });

  it.each([0, ...PRUNE_TOP])("curve point top %i has eval --prune's nDCG@10, MRR@10 and postings", async (n) => {
    const point = report.curve.find((p) => (n === 0 ? p.rule.kind === 'all' : p.rule.kind === 'top' && p.rule.n === n))!;
    const { code, stdout, stderr } = await runCli('eval', ...args(), '--prune', String(n), '--json');
    expect(code, stderr).toBe(0);
    const evaluation = JSON.parse(stdout);
    expect(point.ndcg_cut_10).toBeCloseTo(evaluation.ndcg_cut_10, 4);
    expect(point.recip_rank_10).toBeCloseTo(evaluation.recip_rank_10, 4);
    expect(point.postings).toBe(evaluation.index.postings);
    expect(point.queriesPruned).toBe(n > 0);
  });

  it.each(THRESHOLDS)('curve point w >= %s equals filtering the document weights directly', (threshold) => {
    const point = report.curve.find((p) => p.rule.kind === 'threshold' && p.rule.weight === threshold)!;
    const filtered = documents.map((v) => {
      const kept = [...v.indices.keys()].filter((i) => v.values[i] >= threshold);
      return { indices: Uint32Array.from(kept, (i) => v.indices[i]), values: Float32Array.from(kept, (i) => v.values[i]) };
    });
    const run: Run = new Map(
      queries.map((q, i) => {
        const ranking = exhaustiveSearch(filtered, q, 1000);
        return [QUERIES[i]._id, new Map([...ranking.docs].map((d, r) => [DOCS[d]._id, ranking.scores[r]]))];
      }),
    );
    const { summary } = evaluateRun(QRELS, run);
    const sums = queries.map((q) => summedPostings(filtered, q));
    expect(point.postings).toBe(filtered.reduce((s, v) => s + v.indices.length, 0));
    expect(point.postings).toBeLessThan(report.postingLengths.postings); // the threshold removed something
    expect(point.indexBytes).toBe(anseriniBytes(filtered).bytes);
    expect(point.meanQueryPostings).toBeCloseTo(sums.reduce((s, x) => s + x, 0) / sums.length, 10);
    expect(point.ndcg_cut_10).toBeCloseTo(summary.get('ndcg_cut_10')!, 10);
    expect(point.recip_rank_10).toBeCloseTo(summary.get('recip_rank_10')!, 10);
    expect(point.queriesPruned).toBe(false);
  });

  it('prints the report in words by default, the default curve having ten points', async () => {
    const { code, stdout } = await runCli('index-stats', ...args());
    expect(code).toBe(0);
    for (const line of [
      /^posting lists +\d+ postings over \d+ terms/m,
      /^query postings +summed posting length/m,
      /^index size \(a\)/m,
      /^index size \(b\)/m,
    ])
      expect(stdout).toMatch(line);
    const rules = ['all', 'top 256', 'top 128', 'top 64', 'top 32', 'top 16', 'w >= 0.1', 'w >= 0.3', 'w >= 0.5', 'w >= 1'];
    for (const rule of rules) expect(stdout).toMatch(new RegExp(`^  ${rule} +\\d+ `, 'm'));
  });

  it('refuses a pruning list that is not numbers', async () => {
    const { code, stderr } = await runCli('index-stats', ...args(), '--prune-top', '64,,16');
    expect(code).toBe(1);
    expect(stderr).toMatch(/--prune-top takes numbers separated by commas, got "64,,16"/);
  });
});
