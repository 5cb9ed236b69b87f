// An inverted index over sparse vectors in three flat typed arrays (CSR by dimension), built in two passes.
import { assertSparseVector, type SparseVector } from '../util/sparse-vector.ts';

export interface InvertedIndex {
  numDocs: number;
  /** Number of dimensions (V): one past the largest id seen, or the vocabulary size if larger. */
  dimension: number;
  /** Postings of dimension j are entries offsets[j] .. offsets[j+1]-1; documents in increasing order. */
  offsets: Uint32Array; // (V+1,)
  docs: Uint32Array; // (nnz,) document numbers
  weights: Float32Array; // (nnz,) document weights
  /** Largest weight in each posting list (an upper bound for dynamic pruning and for display). */
  maxWeights: Float32Array; // (V,)
}

/** Builds the index; document numbers are positions in `vectors`. `dimension` may reserve a vocabulary size. */
export function buildInvertedIndex(vectors: readonly SparseVector[], dimension = 0): InvertedIndex {
  let V = dimension;
  let nnz = 0;
  vectors.forEach((vector, d) => {
    assertSparseVector(vector, `document ${d}`);
    nnz += vector.indices.length;
    if (vector.indices.length) V = Math.max(V, vector.indices[vector.indices.length - 1] + 1);
  });
  if (vectors.length > 0xffffffff || nnz > 0xffffffff)
    throw new Error(`index too large: ${vectors.length} documents, ${nnz} postings`);

  const offsets = new Uint32Array(V + 1);
  for (const vector of vectors) for (const j of vector.indices) offsets[j + 1]++;
  for (let j = 0; j < V; j++) offsets[j + 1] += offsets[j];

  const cursor = offsets.slice(0, V);
  const docs = new Uint32Array(nnz);
  const weights = new Float32Array(nnz);
  const maxWeights = new Float32Array(V).fill(-Infinity);
  vectors.forEach((vector, d) => {
    for (let i = 0; i < vector.indices.length; i++) {
      const j = vector.indices[i];
      const at = cursor[j]++;
      docs[at] = d;
      weights[at] = vector.values[i];
      if (vector.values[i] > maxWeights[j]) maxWeights[j] = vector.values[i];
    }
  });
  for (let j = 0; j < V; j++) if (offsets[j] === offsets[j + 1]) maxWeights[j] = 0;
  return { numDocs: vectors.length, dimension: V, offsets, docs, weights, maxWeights };
}

/** Bytes held by the index's arrays. */
export function indexMemoryBytes(index: InvertedIndex): number {
  return index.offsets.byteLength + index.docs.byteLength + index.weights.byteLength + index.maxWeights.byteLength;
}

export function postingsCount(index: InvertedIndex): number {
  return index.docs.length;
}
