// Float64 reference: dot-product scores of every query vector against every in-batch document vector.

/** scores (B, N) = queries (B, V) · docs (N, V)ᵀ. */
export function sparseScoresForward(queries: Float64Array, docs: Float64Array, B: number, N: number, V: number): Float64Array {
  const scores = new Float64Array(B * N);
  for (let i = 0; i < B; i++) {
    for (let j = 0; j < N; j++) {
      let s = 0;
      for (let v = 0; v < V; v++) s += queries[i * V + v] * docs[j * V + v];
      scores[i * N + j] = s;
    }
  }
  return scores;
}

/** Gradients of the scores w.r.t. queries (B, V) and docs (N, V), given dscores (B, N). */
export function sparseScoresBackward(
  queries: Float64Array,
  docs: Float64Array,
  dscores: Float64Array,
  B: number,
  N: number,
  V: number,
): { dqueries: Float64Array; ddocs: Float64Array } {
  const dqueries = new Float64Array(B * V);
  const ddocs = new Float64Array(N * V);
  for (let i = 0; i < B; i++) {
    for (let j = 0; j < N; j++) {
      const g = dscores[i * N + j];
      for (let v = 0; v < V; v++) {
        dqueries[i * V + v] += g * docs[j * V + v];
        ddocs[j * V + v] += g * queries[i * V + v];
      }
    }
  }
  return { dqueries, ddocs };
}
