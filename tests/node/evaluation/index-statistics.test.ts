// The pure parts of `index-stats` on hand-made vectors: VInt sizes against bytes written out, posting lengths, the
// postings each query touches, the impact size models, pruning by weight and the curve's rules.
import { describe, expect, it } from 'vitest';
import { anseriniDocumentLine } from '../../../src/retrieval/exports.ts';
import { anseriniIndexSize, rankFeaturesIndexSize, vintBytes } from '../../../src/retrieval/impact-size.ts';
import { buildInvertedIndex } from '../../../src/retrieval/inverted-index.ts';
import { postingLengths, queryPostings } from '../../../src/retrieval/posting-statistics.ts';
import { nearestRank } from '../../../src/util/nearest-rank.ts';
import { applyPruning, pruneBelow } from '../../../src/retrieval/pruning-curve.ts';
import { checkIndexStatsRequest, meanQueryPostings, pruningRules } from '../../../src/contract/evaluation/index-stats.ts';
import { EvaluatedSet, type EvaluatedSetParts } from '../../../src/app/evaluation/evaluated-set.ts';
import { averageFlops } from '../../../src/retrieval/efficiency.ts';
import { measureIndex } from '../../../src/retrieval/index-measures.ts';
import { evaluateEncoder } from '../../../src/retrieval/evaluate.ts';
import { sparseFromEntries } from '../../../src/util/sparse-vector.ts';
import { writeVInt } from '../../helpers/vint.ts';
import { sparseOf } from '../../helpers/sparse-of.ts';

const vocab = ['t0', 't1', 't2', 't3', 't4'];
const documents = [sparseOf([0, 0.004], [1, 1.5]), sparseOf([1, 0.2], [3, 2.55]), sparseOf(), sparseOf([1, 0.006], [3, 0.5])];

/** Three queries, one with a term (7) beyond the vocabulary. */
const queries = [sparseOf([1, 1]), sparseOf([0, 1], [3, 1], [7, 1]), sparseOf([4, 1])];

/** The four documents' and three queries' set the vectors above belong to (texts unused: the vectors are given). */
function tinySet() {
  return {
    name: 'tiny',
    corpusIds: ['d0', 'd1', 'd2', 'd3'],
    corpusTexts: ['', '', '', ''],
    queryIds: ['a', 'b', 'c'],
    queryTexts: ['qa', 'qb', 'qc'],
    qrels: new Map([['a', new Map([['d0', 1]])]]),
    warnings: [],
  };
}

describe('index-stats computations', () => {
  it.each([0, 1, 127, 128, 300, 16383, 16384, 2 ** 21 - 1, 2 ** 21, 2 ** 28, 2 ** 31 - 1, -1])(
    'vintBytes(%d) is the length of the VInt Lucene writes',
    (n) => expect(vintBytes(n)).toBe(writeVInt(n).length),
  );

  it('counts posting lengths and names the longest lists, ties by id', () => {
    const stats = postingLengths(buildInvertedIndex(documents, vocab.length), vocab, 2);
    expect(stats).toEqual({
      postings: 6,
      terms: 3,
      mean: 2,
      p50: 2,
      p99: 3,
      max: 3,
      longest: [
        { term: 't1', id: 1, length: 3 },
        { term: 't3', id: 3, length: 2 },
      ],
    });
  });

  it("sums each query's posting lengths, terms outside the index counting 0", () => {
    const index = buildInvertedIndex(documents, vocab.length);
    expect(queryPostings(index, queries, ['a', 'b', 'c'])).toEqual({
      mean: 2,
      p50: 3,
      p99: 3,
      perQuery: [
        { id: 'a', postings: 3 },
        { id: 'b', postings: 3 },
        { id: 'c', postings: 0 },
      ],
    });
    expect(nearestRank([], 0.5)).toBe(0);
  });

  it('sizes Anserini impacts as VInt gaps plus VInt impacts, quantised zeros dropped', () => {
    // round(100 w): t0 0 (dropped); t1 150 @0, 20 @1, 1 @3; t3 255 @1, 50 @3.
    const bytes = [
      [0, 150],
      [1, 20],
      [2, 1],
      [1, 255],
      [2, 50],
    ].reduce((sum, [gap, impact]) => sum + writeVInt(gap).length + writeVInt(impact).length, 0);
    expect(anseriniIndexSize(documents, vocab, 100)).toMatchObject({ scale: 100, postings: 5, bytes });
  });

  it('merges ids that share a token string into one posting, as the Anserini export writes them', () => {
    const twice = ['t0', 'x', 't2', 'x'];
    const doc = sparseOf([1, 0.7], [2, 0.3], [3, 0.6]);
    const exported: Record<string, number> = JSON.parse(anseriniDocumentLine('d', doc, twice)).vector;
    expect(exported).toEqual({ x: 130, t2: 30 });
    const bytes = Object.values(exported).reduce((sum, q) => sum + writeVInt(0).length + writeVInt(q).length, 0);
    expect(anseriniIndexSize([doc], twice, 100)).toMatchObject({ postings: 2, bytes });
  });

  it("takes a list's first gap from document 0 and each next from the previous document", () => {
    const at = (docs: number[]) =>
      Array.from({ length: docs[docs.length - 1] + 1 }, (_, d) => sparseFromEntries(docs.includes(d) ? [[2, 0.01]] : []));
    // Gaps 127 (one byte) then 128 (two bytes), each with a one-byte impact of 1.
    expect(anseriniIndexSize(at([127, 255]), vocab, 100)).toMatchObject({ postings: 2, bytes: 1 + 1 + 2 + 1 });
  });

  it('sizes rank_features as Lucene stores a FeatureField: every positive weight, VInt(gap) + VInt(bits >>> 15)', () => {
    // Each posting (t0: d0; t1: d0 d1 d3; t3: d1 d3) with its gap and its weight's float32 bits >>> 15 (0.004 kept too).
    const view = new DataView(new ArrayBuffer(4));
    const frequency = (w: number) => (view.setFloat32(0, w), view.getUint32(0) >>> 15);
    const postings: [number, number][] = [
      [0, 0.004],
      [0, 1.5],
      [1, 0.2],
      [2, 0.006],
      [1, 2.55],
      [2, 0.5],
    ];
    const bytes = postings.reduce((sum, [gap, w]) => sum + writeVInt(gap).length + writeVInt(frequency(w)).length, 0);
    expect(bytes).toBe(6 * (1 + 3));
    expect(rankFeaturesIndexSize(documents, vocab)).toMatchObject({ scale: 1, postings: 6, bytes });
    expect(rankFeaturesIndexSize([sparseOf([1, 1e-39])], vocab)).toMatchObject({ postings: 0, bytes: 0 });
  });

  it('prunes documents by weight only, and top N on both sides', () => {
    expect(Array.from(pruneBelow(documents[1], 0.5).indices)).toEqual([3]);
    expect(pruneBelow(documents[0], 0)).toBe(documents[0]);
    const queries = [sparseOf([0, 0.1], [1, 2], [2, 0.2])];
    const byWeight = applyPruning({ kind: 'threshold', weight: 0.5 }, { queries, documents });
    expect(byWeight.queries).toBe(queries);
    expect(byWeight.documents.map((d) => Array.from(d.indices))).toEqual([[1], [3], [], [3]]);
    const top = applyPruning({ kind: 'top', n: 1 }, { queries, documents });
    expect(top.queries.map((q) => Array.from(q.indices))).toEqual([[1]]);
    expect(top.documents.map((d) => Array.from(d.indices))).toEqual([[1], [3], [], [3]]);
  });

  it('puts "all" first and leaves out the zeros that mean it; refuses a fractional top N', () => {
    expect(pruningRules({ pruneTop: [0, 8], pruneThreshold: [0, 0.5] })).toEqual([
      { kind: 'all' },
      { kind: 'top', n: 8 },
      { kind: 'threshold', weight: 0.5 },
    ]);
    const request = { k: 1, queryLength: 8, documentLength: 8, pruneTop: [2.5], pruneThreshold: [], scale: 100 };
    expect(() => checkIndexStatsRequest(request)).toThrow(/number of weights kept per vector must be a whole number/);
    expect(() => checkIndexStatsRequest({ ...request, pruneTop: [], scale: 0 })).toThrow(/impact scale/);
  });

  it('gives the mean summed posting length per query as documents * avg_flops, as the runs view reads it', () => {
    const index = buildInvertedIndex(documents, vocab.length);
    const mean = queryPostings(index, queries, ['a', 'b', 'c']).mean;
    const avg_flops = averageFlops(queries, documents, index.dimension);
    expect(
      meanQueryPostings({ set: { documents: documents.length }, splade: { efficiency: { avg_flops } } } as never),
    ).toBeCloseTo(mean, 12);
  });

  it("keeps an evaluation's p50 and p99 postings per query as index-stats counts them", async () => {
    const dataset = tinySet();
    const encoder = { vocab, encodeQueries: async () => queries, encodeDocuments: async () => documents };
    const report = await evaluateEncoder(encoder, dataset, { topK: 10 });
    const { mean, p50, p99 } = measureIndex(
      { queries, documents },
      dataset,
      { pruneTop: [], pruneThreshold: [], scale: 100 },
      {
        vocab,
        topK: 10,
      },
    ).queryPostings;
    expect(report.queryPostings).toEqual({ mean, p50, p99 });
    expect(p99).toBeGreaterThan(0);
  });

  it("measures a kept evaluated set's vectors as index-stats does, its special pieces marked, and refuses a bad request", () => {
    const dataset = tinySet();
    // t0 is the tokenizer's [CLS] here: the longest lists name it special (the audit's "special" kind)
    const tokenizer = { specialIds: { cls: 0, sep: 9, pad: 9, mask: 9, unk: null } };
    const parts = { dataset, vocab, tokenizer, docVectors: documents, queryVectors: queries } as unknown as EvaluatedSetParts;
    const kept = new EvaluatedSet(parts);
    const request = { pruneTop: [1], pruneThreshold: [0.5], scale: 100 };
    const points: number[] = [];
    const estimate = kept.indexEstimate(request, (done) => points.push(done));
    const measured = measureIndex({ queries, documents }, dataset, request, { vocab, topK: 1000 });
    const longest = measured.postingLengths.longest.map((l) => ({ ...l, special: l.id === 0 }));
    expect(longest.some((l) => l.special)).toBe(true);
    expect(estimate).toEqual({ set: 'tiny', request, ...measured, postingLengths: { ...measured.postingLengths, longest } });
    expect(estimate.curve.map((p) => p.rule.kind)).toEqual(['all', 'top', 'threshold']);
    expect(points).toEqual([1, 2, 3]);
    expect(() => kept.indexEstimate({ ...request, scale: 0 })).toThrow(/impact scale/);
  });
});
