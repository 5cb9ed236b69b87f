// MaxScore must return exactly what exhaustive scoring returns: same documents, same ranks, bit-identical scores.
import { describe, expect, it } from 'vitest';
import { exhaustiveSearch } from '../../../src/retrieval/exhaustive-search.ts';
import { buildInvertedIndex } from '../../../src/retrieval/inverted-index.ts';
import { MaxScoreSearcher } from '../../../src/retrieval/maxscore.ts';
import { IndexSearcher, searchAll } from '../../../src/retrieval/search.ts';
import { sparseFromEntries, type SparseVector } from '../../../src/util/sparse-vector.ts';
import type { Ranking } from '../../../src/retrieval/top-k.ts';
import { Random } from '../../../src/util/random.ts';
import { sparseOf } from '../../helpers/sparse-of.ts';

type WeightKind = 'coarse' | 'splade' | 'signed' | 'ulp' | 'ones';

/**
 * One weight per kind: `coarse` multiples of 0.25 (many exact ties), `splade` log(1 + e^x) of a shifted normal
 * (skewed, mostly small, a few large), `signed` uniform in [-1, 3), `ones` 1. `ulp`: a fixed value per dimension
 * (so bounds are tight), about 2^-53 on the lower half of the dimensions and about 1 on the upper half; queried
 * with `ones`, documents that share their large terms score within a few ulps of each other, and the order in
 * which the small terms are added decides the last bits.
 */
function weight(rng: Random, kind: WeightKind, dim: number, V: number): number {
  switch (kind) {
    case 'ones':
      return 1;
    case 'coarse':
      return 0.25 * (1 + rng.int(4));
    case 'splade':
      return Math.fround(Math.log1p(Math.exp(1.3 * rng.normal() - 1)));
    case 'signed':
      return Math.fround(-1 + 4 * rng.next());
    case 'ulp':
      return dim < V / 2 ? 2 ** -53 * (1 + (dim % 4) / 4) : (1 + (dim % 8) / 8) * 2 ** -(dim % 3);
  }
}

/** Vectors over V dimensions with Zipf-like popularity (posting lengths differ a lot); nnz uniform in [minNnz, maxNnz]. */
function randomVectors(rng: Random, count: number, V: number, minNnz: number, maxNnz: number, kind: WeightKind): SparseVector[] {
  return Array.from({ length: count }, () => {
    const nnz = minNnz + rng.int(maxNnz - minNnz + 1);
    const entries = new Map<number, number>();
    for (let i = 0; i < nnz; i++) {
      const dim = Math.min(V - 1, Math.floor(V * rng.next() ** 3));
      entries.set(dim, weight(rng, kind, dim, V));
    }
    return sparseFromEntries(entries);
  });
}

/** Float64 bit patterns, so that -0, 0 and last-bit differences all count. */
const bits = (scores: Float64Array) => Array.from(new BigUint64Array(Float64Array.from(scores).buffer));

function expectSameRanking(actual: Ranking, expected: Ranking): void {
  expect(Array.from(actual.docs)).toEqual(Array.from(expected.docs));
  expect(bits(actual.scores)).toEqual(bits(expected.scores));
}

const collections = [
  {
    name: 'small vocabulary, coarse weights, many exact ties',
    seed: 11,
    docs: 600,
    V: 24,
    nnz: [0, 8],
    queryNnz: [1, 6],
    kind: 'coarse',
    queryKind: 'coarse',
  },
  {
    name: 'large vocabulary, SPLADE-like skewed weights',
    seed: 12,
    docs: 1500,
    V: 30522,
    nnz: [20, 120],
    queryNnz: [5, 40],
    kind: 'splade',
    queryKind: 'splade',
  },
  {
    name: 'medium vocabulary, SPLADE-like skewed weights',
    seed: 13,
    docs: 1200,
    V: 400,
    nnz: [5, 40],
    queryNnz: [1, 25],
    kind: 'splade',
    queryKind: 'splade',
  },
  {
    name: 'negative and positive weights',
    seed: 14,
    docs: 700,
    V: 120,
    nnz: [1, 20],
    queryNnz: [1, 15],
    kind: 'signed',
    queryKind: 'signed',
  },
  {
    name: 'scores a few ulps apart (bounds tight to the last bit)',
    seed: 15,
    docs: 900,
    V: 40,
    nnz: [1, 14],
    queryNnz: [2, 30],
    kind: 'ulp',
    queryKind: 'ones',
  },
] as const;

describe('MaxScore equals exhaustive scoring', () => {
  const cases = collections.flatMap((c) => [32, 1024].map((window) => ({ ...c, window })));
  it.each(cases)(
    '$name, window $window: same ids, ranks and score bits as exhaustive and term-at-a-time, k = 1, 10, 100, > #docs',
    (c) => {
      const rng = new Random(c.seed);
      const documents = randomVectors(rng, c.docs, c.V, c.nnz[0], c.nnz[1], c.kind);
      const queries = [
        ...randomVectors(rng, 60, c.V, c.queryNnz[0], c.queryNnz[1], c.queryKind),
        ...randomVectors(rng, 10, c.V, 1, 1, c.queryKind), // one dimension
        sparseOf(), // empty
        sparseOf([0, 1], [c.V + 3, 2]), // a dimension beyond the index
      ];
      const index = buildInvertedIndex(documents, c.V);
      const maxScore = new MaxScoreSearcher(index, c.window);
      const termAtATime = new IndexSearcher(index);
      let compared = 0;
      let fullyScored = 0;
      let touched = 0;
      for (const k of [1, 10, 100, c.docs + 5]) {
        for (const query of queries) {
          const reference = exhaustiveSearch(documents, query, k);
          const pruned = maxScore.search(query, k);
          expectSameRanking(pruned, reference);
          expectSameRanking(termAtATime.search(query, k), reference);
          compared += reference.docs.length;
          fullyScored += maxScore.lastFullyScored;
          touched += termAtATime.lastFullyScored;
        }
      }
      expect(compared).toBeGreaterThan(c.docs); // real results were compared, not empty lists
      if (c.window < c.docs) expect(fullyScored).toBeLessThan(touched); // and MaxScore did skip documents
    },
  );

  it('a bound that rounds below the score (other summation order) does not skip the winning document', () => {
    // Doc 32 = 2^-53 + 2^-53 + 1 = 1 + 2^-52 in dimension order, but 1 + 2^-53 + 2^-53 rounds to 1 = doc 0's score.
    // Doc 32 opens the second window of 32, after the two small terms became non-essential.
    const tiny = 2 ** -53;
    const documents = Array.from({ length: 33 }, () => sparseOf());
    documents[0] = sparseOf([2, 1]);
    documents[32] = sparseOf([0, tiny], [1, tiny], [2, 1]);
    const query = sparseOf([0, 1], [1, 1], [2, 1]);
    const reference = exhaustiveSearch(documents, query, 1);
    expect(Array.from(reference.docs)).toEqual([32]);
    expectSameRanking(new MaxScoreSearcher(buildInvertedIndex(documents), 32).search(query, 1), reference);
  });

  it('exact ties at the threshold keep the smaller document number', () => {
    const documents = Array.from({ length: 50 }, (_, d) =>
      sparseFromEntries(
        d % 5 === 0
          ? [
              [0, 2],
              [1, 1],
            ]
          : [
              [0, 1],
              [1, 2],
            ],
      ),
    );
    const query = sparseOf([0, 1], [1, 1]);
    const searcher = new MaxScoreSearcher(buildInvertedIndex(documents), 32);
    for (const k of [1, 3, 10, 49]) expectSameRanking(searcher.search(query, k), exhaustiveSearch(documents, query, k));
  });

  it('refuses a window that is not a positive multiple of 32', () => {
    expect(() => new MaxScoreSearcher(buildInvertedIndex([]), 48)).toThrow(/multiple of 32, got 48/);
  });

  it('refuses query ids that are not strictly increasing', () => {
    const searcher = new MaxScoreSearcher(buildInvertedIndex([sparseOf([0, 1])]));
    expect(() => searcher.search({ indices: Uint32Array.of(2, 1), values: Float32Array.of(1, 1) }, 1)).toThrow(
      /strictly increasing/,
    );
  });
});

describe('searchAll algorithms', () => {
  it('defaults to exhaustive, reports fully scored documents, and maxscore equals it', () => {
    const rng = new Random(21);
    const documents = randomVectors(rng, 5000, 300, 5, 40, 'splade');
    const queries = randomVectors(rng, 30, 300, 3, 20, 'splade');
    const index = buildInvertedIndex(documents, 300);
    const pruned = searchAll(index, queries, 10, undefined, { algorithm: 'maxscore' });
    const full = searchAll(index, queries, 10);
    expect(pruned.latency.algorithm).toBe('maxscore');
    expect(full.latency.algorithm).toBe('exhaustive');
    pruned.rankings.forEach((ranking, q) => expectSameRanking(ranking, full.rankings[q]));
    const touched = queries.reduce((sum, query) => sum + exhaustiveSearch(documents, query, documents.length).docs.length, 0);
    expect(full.latency.fullyScoredDocs).toBe(touched);
    expect(pruned.latency.fullyScoredDocs).toBeGreaterThan(0);
    expect(pruned.latency.fullyScoredDocs).toBeLessThan(touched);
    expect(pruned.latency.meanFullyScoredDocs).toBeCloseTo(pruned.latency.fullyScoredDocs / 30, 12);
  });

  it('refuses an unknown algorithm by name', () => {
    const index = buildInvertedIndex([sparseOf([0, 1])]);
    // @ts-expect-error an algorithm that does not exist, as a caller from plain JavaScript could pass it
    expect(() => searchAll(index, [], 1, undefined, { algorithm: 'wand' })).toThrow(/unknown search algorithm "wand"/);
  });
});
