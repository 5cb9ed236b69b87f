// Sparse vectors (vocabulary id -> weight) as two parallel typed arrays sorted by id, and the small operations on them.

/** A sparse vector: `indices` strictly increasing, `values[i]` the weight of dimension `indices[i]`; zeros are not stored. */
export interface SparseVector {
  indices: Uint32Array; // (nnz,)
  values: Float32Array; // (nnz,)
}

/** Builds a vector from (id, weight) pairs in any order; duplicate ids are summed, zero weights are dropped. */
export function sparseFromEntries(entries: Iterable<readonly [number, number]>): SparseVector {
  const summed = new Map<number, number>();
  for (const [id, weight] of entries) {
    if (!Number.isInteger(id) || id < 0 || id > 0xffffffff) throw new Error(`sparse vector id must be a uint32, got ${id}`);
    if (!Number.isFinite(weight)) throw new Error(`sparse vector weight for id ${id} is not finite (${weight})`);
    summed.set(id, (summed.get(id) ?? 0) + weight);
  }
  const ids = [...summed.keys()].filter((id) => summed.get(id) !== 0).sort((a, b) => a - b);
  const values = new Float32Array(ids.length);
  ids.forEach((id, i) => (values[i] = summed.get(id)!));
  return { indices: Uint32Array.from(ids), values };
}

/** Keeps the non-zero entries of a dense vector (e.g. one row of a B x V activation matrix). */
export function sparseFromDense(dense: ArrayLike<number>): SparseVector {
  let nnz = 0;
  for (let j = 0; j < dense.length; j++) if (dense[j] !== 0) nnz++;
  const indices = new Uint32Array(nnz);
  const values = new Float32Array(nnz);
  let k = 0;
  for (let j = 0; j < dense.length; j++) {
    if (dense[j] === 0) continue;
    indices[k] = j;
    values[k++] = dense[j];
  }
  return { indices, values };
}

/** Throws unless ids are strictly increasing and weights finite; `what` names the vector in the message. */
export function assertSparseVector(vector: SparseVector, what: string): void {
  if (vector.indices.length !== vector.values.length) {
    throw new Error(`${what}: ${vector.indices.length} indices but ${vector.values.length} values`);
  }
  for (let i = 0; i < vector.indices.length; i++) {
    if (i > 0 && vector.indices[i] <= vector.indices[i - 1]) {
      throw new Error(
        `${what}: indices must be strictly increasing, found ${vector.indices[i - 1]} then ${vector.indices[i]} at position ${i}`,
      );
    }
    if (!Number.isFinite(vector.values[i])) throw new Error(`${what}: weight of id ${vector.indices[i]} is ${vector.values[i]}`);
  }
}

/**
 * Dot product of two sorted sparse vectors, accumulated in float64 in increasing id order.
 * Each product of two float32 weights is exact in float64, so only the summation rounds; the inverted
 * index adds the same terms in the same order and therefore returns bit-identical scores.
 */
export function sparseDot(a: SparseVector, b: SparseVector): number {
  let i = 0;
  let j = 0;
  let sum = 0;
  while (i < a.indices.length && j < b.indices.length) {
    const ai = a.indices[i];
    const bj = b.indices[j];
    if (ai === bj) sum += a.values[i++] * b.values[j++];
    else if (ai < bj) i++;
    else j++;
  }
  return sum;
}

/** Keeps the `k` largest weights (ties: smaller id first), still sorted by id; k <= 0 or k >= nnz returns the vector. */
export function pruneTopK(vector: SparseVector, k: number): SparseVector {
  const nnz = vector.indices.length;
  if (k <= 0 || k >= nnz) return vector;
  const order = Array.from({ length: nnz }, (_, i) => i);
  order.sort((x, y) => vector.values[y] - vector.values[x] || vector.indices[x] - vector.indices[y]);
  const kept = order.slice(0, k).sort((x, y) => x - y);
  return {
    indices: Uint32Array.from(kept, (i) => vector.indices[i]),
    values: Float32Array.from(kept, (i) => vector.values[i]),
  };
}
