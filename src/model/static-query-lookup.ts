// Inference-free SPLADE's query vector at inference: each token of the query once, at its static table weight (a
// lookup, no encoder). Training builds the same vectors in bulk (src/train/splade/static-queries.ts).

/**
 * One query's static vector as sparse entries: each token of `ids` (special tokens included, at their table weight,
 * 0 for a table from `idf`) once, at weights[id]; zero weights left out; ids ascending.
 */
export function staticQueryEntries(weights: ArrayLike<number>, ids: readonly number[]): [number, number][] {
  return [...new Set(ids)]
    .filter((id) => weights[id] !== 0)
    .sort((a, b) => a - b)
    .map((id) => [id, weights[id]]);
}
