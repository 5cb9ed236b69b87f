// How much of splade-lab's ranking an engine keeps once it has quantised the vectors: the top k of each query under
// the float dot product against the top k under the engine's scoring (EngineScoring), as overlap@k over a query set.
import type { EngineScoring } from './engine-quantisation.ts';
import type { SparseVector } from '../util/sparse-vector.ts';

/** Postings of a set of documents: for each dimension, the documents holding it and their weights. */
function postingsOf(documents: readonly SparseVector[]): Map<number, { docs: number[]; weights: number[] }> {
  const postings = new Map<number, { docs: number[]; weights: number[] }>();
  documents.forEach((vector, d) => {
    for (let i = 0; i < vector.indices.length; i++) {
      const id = vector.indices[i];
      let list = postings.get(id);
      if (!list) postings.set(id, (list = { docs: [], weights: [] }));
      list.docs.push(d);
      list.weights.push(vector.values[i]);
    }
  });
  return postings;
}

/** The k best documents of a query by dot product (float64 sums), score descending then document number ascending; only positive scores. */
function topDocuments(
  query: SparseVector,
  postings: Map<number, { docs: number[]; weights: number[] }>,
  scores: Float64Array,
  k: number,
): number[] {
  scores.fill(0);
  const touched = new Set<number>();
  for (let i = 0; i < query.indices.length; i++) {
    const list = postings.get(query.indices[i]);
    if (!list) continue;
    const q = query.values[i];
    for (let j = 0; j < list.docs.length; j++) {
      scores[list.docs[j]] += q * list.weights[j];
      touched.add(list.docs[j]);
    }
  }
  return [...touched]
    .filter((d) => scores[d] > 0)
    .sort((a, b) => scores[b] - scores[a] || a - b)
    .slice(0, k);
}

export interface RankingOverlap {
  /** Mean over the queries of |float top k ∩ engine top k| / |float top k|. */
  mean: number;
  /** The smallest per-query overlap. */
  min: number;
  /** Queries measured: those whose float top k is not empty. */
  queries: number;
}

/** overlap@k between the float ranking of `documents` for each query and the ranking under `scoring`. */
export function rankingOverlap(
  queries: readonly SparseVector[],
  documents: readonly SparseVector[],
  scoring: EngineScoring,
  k = 10,
): RankingOverlap {
  const floatPostings = postingsOf(documents);
  const storedPostings = postingsOf(scoring.documents(documents));
  const scores = new Float64Array(documents.length);
  let sum = 0;
  let min = 1;
  let measured = 0;
  for (const query of queries) {
    const expected = topDocuments(query, floatPostings, scores, k);
    if (expected.length === 0) continue;
    const got = new Set(topDocuments(scoring.query(query), storedPostings, scores, k));
    const overlap = expected.filter((d) => got.has(d)).length / expected.length;
    sum += overlap;
    min = Math.min(min, overlap);
    measured++;
  }
  return { mean: measured ? sum / measured : 1, min: measured ? min : 1, queries: measured };
}
