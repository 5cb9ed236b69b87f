// Posting-list statistics of an inverted index: the lengths of its lists, and for each query the summed length of
// the lists its terms open (the work a term-at-a-time search does, SPLADE's latency proxy in search engines).
import type { PostingLengths, QueryPostings } from '../contract/evaluation/index-stats.ts';
import type { InvertedIndex } from './inverted-index.ts';
import type { SparseVector } from '../util/sparse-vector.ts';
import { nearestRank } from '../util/nearest-rank.ts';

function mean(values: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i];
  return values.length ? sum / values.length : 0;
}

/** Length of every non-empty posting list, by term id, and the `longest` of them named by `vocab`. */
export function postingLengths(index: InvertedIndex, vocab: readonly string[], longest: number): PostingLengths {
  const { offsets, dimension } = index;
  const ids: number[] = [];
  for (let j = 0; j < dimension; j++) if (offsets[j + 1] > offsets[j]) ids.push(j);
  const lengthOf = (j: number) => offsets[j + 1] - offsets[j];
  const byLength = ids.slice().sort((a, b) => lengthOf(b) - lengthOf(a) || a - b);
  const sorted = Float64Array.from(byLength, lengthOf).reverse(); // ascending
  return {
    postings: index.docs.length,
    terms: ids.length,
    mean: mean(sorted),
    p50: nearestRank(sorted, 0.5),
    p99: nearestRank(sorted, 0.99),
    max: sorted.length ? sorted[sorted.length - 1] : 0,
    longest: byLength.slice(0, longest).map((id) => ({ term: vocab[id] ?? `[id ${id}]`, id, length: lengthOf(id) })),
  };
}

/** For each query, the sum over its terms of that term's posting length in `index` (terms beyond the index count 0). */
export function queryPostingSums(index: InvertedIndex, queries: readonly SparseVector[]): Float64Array {
  const { offsets, dimension } = index;
  return Float64Array.from(queries, (query) => {
    let sum = 0;
    for (const j of query.indices) if (j < dimension) sum += offsets[j + 1] - offsets[j];
    return sum;
  });
}

/** Mean, p50 and p99 of queryPostingSums, with each query's sum under its id. */
export function queryPostings(
  index: InvertedIndex,
  queries: readonly SparseVector[],
  queryIds: readonly string[],
): QueryPostings {
  const sums = queryPostingSums(index, queries);
  const sorted = sums.slice().sort();
  return {
    mean: mean(sums),
    p50: nearestRank(sorted, 0.5),
    p99: nearestRank(sorted, 0.99),
    perQuery: Array.from(sums, (postings, q) => ({ id: queryIds[q], postings })),
  };
}
