// Inverted-index retrieval must return exactly what exhaustive scoring returns (same documents, same scores, same order).
import { describe, expect, it } from 'vitest';
import { exhaustiveSearch } from '../../../src/retrieval/exhaustive-search.ts';
import { buildInvertedIndex, indexMemoryBytes } from '../../../src/retrieval/inverted-index.ts';
import { IndexSearcher, latencyReport, searchAll } from '../../../src/retrieval/search.ts';
import { pruneTopK, sparseDot, sparseFromDense, sparseFromEntries, type SparseVector } from '../../../src/util/sparse-vector.ts';
import { TopK } from '../../../src/retrieval/top-k.ts';
import { Random } from '../../../src/util/random.ts';
import { sparseOf } from '../../helpers/sparse-of.ts';

/**
 * Random sparse vectors over V dimensions with Zipf-like dimension popularity (so posting lists differ
 * a lot in length). With `coarse`, weights are multiples of 0.25, which makes many scores tie exactly.
 */
function randomVectors(rng: Random, count: number, V: number, maxNnz: number, coarse: boolean): SparseVector[] {
  return Array.from({ length: count }, () => {
    const nnz = rng.int(maxNnz + 1);
    const entries: [number, number][] = [];
    for (let i = 0; i < nnz; i++) {
      const dim = Math.min(V - 1, Math.floor(V * rng.next() ** 3));
      const weight = coarse ? 0.25 * (1 + rng.int(4)) : Math.fround(0.01 + 3 * rng.next());
      entries.push([dim, weight]);
    }
    return sparseFromEntries(new Map(entries)); // one weight per dimension
  });
}

const settings = [
  { name: 'continuous weights', seed: 1, docs: 700, V: 300, maxNnz: 40, coarse: false },
  { name: 'coarse weights with many exact ties', seed: 2, docs: 500, V: 60, maxNnz: 12, coarse: true },
  { name: 'a vocabulary larger than any posting', seed: 3, docs: 257, V: 30522, maxNnz: 90, coarse: false },
];

describe('inverted index equals exhaustive scoring', () => {
  it.each(settings)(
    '$name: same ids and bit-identical scores for k = 1, 7, 100 and k > #docs',
    ({ seed, docs, V, maxNnz, coarse }) => {
      const rng = new Random(seed);
      const documents = randomVectors(rng, docs, V, maxNnz, coarse);
      const queries = randomVectors(rng, 40, V, maxNnz, coarse);
      const index = buildInvertedIndex(documents, V);
      const searcher = new IndexSearcher(index);
      let compared = 0;
      for (const k of [1, 7, 100, docs + 5]) {
        for (const query of queries) {
          const fromIndex = searcher.search(query, k);
          const reference = exhaustiveSearch(documents, query, k);
          expect(Array.from(fromIndex.docs)).toEqual(Array.from(reference.docs));
          expect(Array.from(fromIndex.scores)).toEqual(Array.from(reference.scores));
          compared += reference.docs.length;
        }
      }
      expect(compared).toBeGreaterThan(docs); // the comparison saw real results, not empty lists
    },
  );

  it('ignores query dimensions beyond the index and returns nothing for an empty query', () => {
    const documents = [sparseOf([0, 1], [2, 2]), sparseOf([1, 3])];
    const searcher = new IndexSearcher(buildInvertedIndex(documents));
    expect(searcher.search(sparseOf(), 5).docs.length).toBe(0);
    const result = searcher.search(sparseOf([2, 0.5], [99, 7]), 5);
    expect(Array.from(result.docs)).toEqual([0]);
    expect(Array.from(result.scores)).toEqual([1]);
  });

  it('refuses document vectors whose ids are not strictly increasing', () => {
    const unsorted = { indices: Uint32Array.of(3, 1), values: Float32Array.of(1, 1) };
    expect(() => buildInvertedIndex([unsorted])).toThrow(/document 0: indices must be strictly increasing/);
  });
});

describe('index layout and reports', () => {
  it('stores each posting once, per-dimension maxima, and reports the bytes of its arrays', () => {
    const documents = [sparseOf([0, 1], [2, 2]), sparseOf([2, 5]), sparseOf()];
    const index = buildInvertedIndex(documents, 4);
    expect(Array.from(index.offsets)).toEqual([0, 1, 1, 3, 3]);
    expect(Array.from(index.docs)).toEqual([0, 0, 1]);
    expect(Array.from(index.maxWeights)).toEqual([1, 0, 5, 0]);
    expect(indexMemoryBytes(index)).toBe(5 * 4 + 3 * 4 + 3 * 4 + 4 * 4);
  });

  it('searchAll reports one latency per query and consistent quantiles', () => {
    const rng = new Random(9);
    const documents = randomVectors(rng, 100, 50, 10, false);
    const { rankings, latency } = searchAll(buildInvertedIndex(documents), randomVectors(rng, 20, 50, 10, false), 10);
    expect(rankings).toHaveLength(20);
    expect(latency.queries).toBe(20);
    expect(latency.p50Ms).toBeLessThanOrEqual(latency.p95Ms);
    expect(latency.meanMs).toBeCloseTo(latency.totalMs / 20, 12);
    expect(latencyReport(Float64Array.of(4, 1, 3, 2)).p50Ms).toBe(2);
  });
});

describe('top-k selection and sparse vector helpers', () => {
  it('TopK keeps the k best by score, ties by smaller document number', () => {
    const rng = new Random(4);
    const pairs = Array.from({ length: 300 }, (_, d) => [d, rng.int(20)] as const);
    const best = new TopK(25);
    for (const [d, s] of pairs) best.offer(d, s);
    const expected = [...pairs].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 25);
    expect(Array.from(best.sorted().docs)).toEqual(expected.map(([d]) => d));
  });

  it('sparseFromEntries sorts, sums duplicates and drops zeros; sparseFromDense keeps non-zeros', () => {
    const v = sparseFromEntries([
      [5, 1],
      [2, 0.5],
      [5, 1],
      [7, 0],
    ]);
    expect(Array.from(v.indices)).toEqual([2, 5]);
    expect(Array.from(v.values)).toEqual([0.5, 2]);
    const d = sparseFromDense([0, 0, 1.5, 0, -2]);
    expect(Array.from(d.indices)).toEqual([2, 4]);
    expect(sparseDot(v, d)).toBe(0.75);
  });

  it('pruneTopK keeps the largest weights, still sorted by id', () => {
    const v = sparseOf([1, 0.1], [4, 0.9], [6, 0.5], [9, 0.7]);
    const pruned = pruneTopK(v, 2);
    expect(Array.from(pruned.indices)).toEqual([4, 9]);
    expect(pruneTopK(v, 0)).toBe(v);
  });
});
