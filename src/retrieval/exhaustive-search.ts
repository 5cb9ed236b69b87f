// Reference retrieval: scores every document with sparseDot and sorts; the inverted index must agree with it exactly.
import { sparseDot, type SparseVector } from '../util/sparse-vector.ts';
import type { Ranking } from './top-k.ts';

/** Top k documents sharing at least one dimension with the query, by score desc then document number asc. */
export function exhaustiveSearch(documents: readonly SparseVector[], query: SparseVector, k: number): Ranking {
  const queryDims = new Set(query.indices);
  const scored: [number, number][] = [];
  documents.forEach((doc, d) => {
    if (doc.indices.some((j) => queryDims.has(j))) scored.push([d, sparseDot(query, doc)]);
  });
  scored.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const top = scored.slice(0, k);
  return { docs: Uint32Array.from(top, ([d]) => d), scores: Float64Array.from(top, ([, s]) => s) };
}
