// Sparsity figures as sentence-transformers reports them: active dimensions per vector and the expected FLOPs of a dot product.
import { EfficiencyReport, SparsityStats } from '../contract/evaluation/results.ts';
import type { SparseVector } from '../util/sparse-vector.ts';

function sparsityStats(vectors: readonly SparseVector[], dimension: number): SparsityStats {
  const total = vectors.reduce((sum, v) => sum + v.indices.length, 0);
  const meanActiveDims = vectors.length ? total / vectors.length : 0;
  return { vectors: vectors.length, meanActiveDims, sparsityRatio: dimension > 0 ? 1 - meanActiveDims / dimension : 0 };
}

/** activeShare[j] = fraction of the vectors whose dimension j is non-zero. */
function activeShare(vectors: readonly SparseVector[], dimension: number): Float64Array {
  const share = new Float64Array(dimension); // (V,)
  for (const v of vectors) for (const j of v.indices) if (j < dimension) share[j]++;
  if (vectors.length) for (let j = 0; j < dimension; j++) share[j] /= vectors.length;
  return share;
}

/**
 * Expected number of multiply-adds in one query-document dot product:
 * sum over dimensions j of P(query uses j) * P(document uses j), the FLOPS measure of SPLADE papers.
 */
export function averageFlops(queries: readonly SparseVector[], documents: readonly SparseVector[], dimension: number): number {
  const q = activeShare(queries, dimension);
  const d = activeShare(documents, dimension);
  let flops = 0;
  for (let j = 0; j < dimension; j++) flops += q[j] * d[j];
  return flops;
}

export function efficiencyReport(
  queries: readonly SparseVector[],
  documents: readonly SparseVector[],
  dimension: number,
): EfficiencyReport {
  const q = sparsityStats(queries, dimension);
  const d = sparsityStats(documents, dimension);
  return {
    query_active_dims: q.meanActiveDims,
    query_sparsity_ratio: q.sparsityRatio,
    corpus_active_dims: d.meanActiveDims,
    corpus_sparsity_ratio: d.sparsityRatio,
    avg_flops: averageFlops(queries, documents, dimension),
  };
}
