// Inference-free SPLADE's queries on the host (B x V): a frozen table's vectors (each token once, at its static weight,
// IDF) and a trained table's token presence; the query side (splade/query-side.ts) makes and uploads them per batch.

/**
 * Fills `vectors` (B, V) with the queries' static vectors: vectors[b, id] = weights[id] for every token id of query b
 * under mask 1, 0 elsewhere. Special tokens weigh what the table says (a table from `idf` gives them 0).
 */
export function staticQueryVectors(
  vectors: Float32Array,
  weights: Float32Array,
  ids: Int32Array,
  mask: Uint8Array,
): Float32Array {
  const V = weights.length;
  const B = vectors.length / V;
  const T = ids.length / B;
  vectors.fill(0);
  for (let b = 0; b < B; b++)
    for (let t = 0; t < T; t++) {
      if (!mask[b * T + t]) continue;
      const id = ids[b * T + t];
      vectors[b * V + id] = weights[id];
    }
  return vectors;
}

/**
 * Fills `presence` (B, V) with 1 where query b holds token id (under mask 1) and the id is not `frozen`, 0 elsewhere:
 * what a trained table's vectors and gradient are made of (special tokens never train: sentence-transformers
 * tokenizes such queries without them).
 */
export function staticQueryPresence(
  presence: Float32Array,
  V: number,
  ids: Int32Array,
  mask: Uint8Array,
  frozen: ReadonlySet<number>,
): Float32Array {
  const B = presence.length / V;
  const T = ids.length / B;
  presence.fill(0);
  for (let b = 0; b < B; b++)
    for (let t = 0; t < T; t++) {
      const id = ids[b * T + t];
      if (mask[b * T + t] && !frozen.has(id)) presence[b * V + id] = 1;
    }
  return presence;
}
