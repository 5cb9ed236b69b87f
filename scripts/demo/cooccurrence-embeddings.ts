// Count-based word vectors for the demo backbone's warm start: co-occurrence counts within a window, positive PMI with
// context smoothing (alpha 0.75), and a rank-d truncated SVD by randomized subspace iteration; deterministic for a seed.
// The documents' token frequencies and the stripping of the most frequent ids (topical, not syntactic, neighbours).
import { Random } from '../../src/util/random.ts';

export interface EmbeddingOptions {
  dim: number;
  /** Tokens on each side counted as context. */
  window: number;
  seed: number;
  /** Ids seen fewer times get no vector (a zero row). */
  minCount: number;
}

/** Unit-norm vectors (vocabSize x dim; zero rows for rare ids) and the occurrences of every id. */
export function cooccurrenceEmbeddings(
  documents: readonly ArrayLike<number>[],
  vocabSize: number,
  options: EmbeddingOptions,
): { vectors: Float32Array; counts: Uint32Array } {
  const counts = new Uint32Array(vocabSize);
  for (const ids of documents) for (let i = 0; i < ids.length; i++) counts[ids[i]]++;
  const dense = new Int32Array(vocabSize).fill(-1);
  const idOf: number[] = [];
  for (let id = 0; id < vocabSize; id++) if (counts[id] >= options.minCount) dense[id] = idOf.push(id) - 1;
  const n = idOf.length;
  const pairs = countPairs(documents, dense, n, options.window);
  const matrix = ppmi(pairs, n);
  const vectors = new Float32Array(vocabSize * options.dim);
  const U = symmetricTopVectors(matrix, n, options.dim, new Random(options.seed));
  for (let i = 0; i < n; i++) {
    let norm = 0;
    for (let k = 0; k < options.dim; k++) norm += U[i * options.dim + k] ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let k = 0; k < options.dim; k++) vectors[idOf[i] * options.dim + k] = U[i * options.dim + k] / norm;
  }
  return { vectors, counts };
}

/** In how many documents each id occurs. */
export function documentFrequencies(documents: readonly ArrayLike<number>[], vocabSize: number): Uint32Array {
  const df = new Uint32Array(vocabSize);
  const lastSeen = new Int32Array(vocabSize).fill(-1);
  documents.forEach((ids, d) => {
    for (let i = 0; i < ids.length; i++) {
      if (lastSeen[ids[i]] === d) continue;
      lastSeen[ids[i]] = d;
      df[ids[i]]++;
    }
  });
  return df;
}

/**
 * The documents without the `count` ids found in the most documents (ties by the smaller id), so that a window spans
 * content words: neighbours then share topics ("judge": prosecutor, appellate) rather than grammar ("asked": told,
 * wished). Returns the stripped documents and the dropped ids.
 */
export function withoutMostFrequent(
  documents: readonly ArrayLike<number>[],
  df: Uint32Array,
  count: number,
): { documents: Int32Array[]; dropped: number[] } {
  const dropped = [...df.keys()].sort((a, b) => df[b] - df[a] || a - b).slice(0, count);
  const drop = new Uint8Array(df.length);
  for (const id of dropped) drop[id] = 1;
  return { documents: documents.map((ids) => Int32Array.from(ids).filter((id) => !drop[id])), dropped };
}

/** A sparse symmetric matrix in CSR form. */
export interface Csr {
  rowStart: Uint32Array;
  columns: Uint32Array;
  values: Float64Array;
}

/** Co-occurrences weighted 1/distance within the window, both directions, as an open-addressing table. */
function countPairs(documents: readonly ArrayLike<number>[], dense: Int32Array, n: number, window: number) {
  let capacity = 1 << 22;
  let keys = new Uint32Array(capacity);
  let weights = new Float32Array(capacity);
  let used = 0;
  const insert = (key: number, weight: number) => {
    let slot = (Math.imul(key, 0x9e3779b1) >>> 0) & (capacity - 1);
    while (keys[slot] !== 0 && keys[slot] !== key) slot = (slot + 1) & (capacity - 1);
    if (keys[slot] === 0) {
      keys[slot] = key;
      used++;
    }
    weights[slot] += weight;
  };
  const grow = () => {
    const [oldKeys, oldWeights] = [keys, weights];
    capacity *= 2;
    keys = new Uint32Array(capacity);
    weights = new Float32Array(capacity);
    used = 0;
    for (let s = 0; s < oldKeys.length; s++) if (oldKeys[s]) insert(oldKeys[s], oldWeights[s]);
  };
  for (const ids of documents) {
    for (let i = 0; i < ids.length; i++) {
      const a = dense[ids[i]];
      if (a < 0) continue;
      for (let j = i + 1; j <= Math.min(ids.length - 1, i + window); j++) {
        const b = dense[ids[j]];
        if (b < 0 || b === a) continue;
        if (used > capacity * 0.6) grow();
        const [lo, hi] = a < b ? [a, b] : [b, a];
        insert(lo * n + hi + 1, 1 / (j - i));
      }
    }
  }
  return { keys, weights, n };
}

/** PPMI (context counts smoothed by ^0.75) of the symmetric co-occurrence table, as CSR with both triangles. */
function ppmi(pairs: { keys: Uint32Array; weights: Float32Array }, n: number): Csr {
  const row = new Float64Array(n);
  let nnz = 0;
  const each = (visit: (a: number, b: number, w: number) => void) => {
    for (let s = 0; s < pairs.keys.length; s++) {
      const key = pairs.keys[s];
      if (!key) continue;
      const a = Math.floor((key - 1) / n);
      visit(a, (key - 1) % n, pairs.weights[s]);
    }
  };
  each((a, b, w) => {
    row[a] += w;
    row[b] += w;
    nnz += 2;
  });
  const smoothed = row.map((x) => x ** 0.75);
  const smoothedTotal = smoothed.reduce((s, x) => s + x, 0);
  const rowStart = new Uint32Array(n + 1);
  each((a, b) => {
    rowStart[a + 1]++;
    rowStart[b + 1]++;
  });
  for (let i = 0; i < n; i++) rowStart[i + 1] += rowStart[i];
  const fill = rowStart.slice(0, n);
  const columns = new Uint32Array(nnz);
  const values = new Float64Array(nnz);
  const put = (a: number, b: number, w: number) => {
    const pmi = Math.log((w * smoothedTotal) / (row[a] * smoothed[b]));
    columns[fill[a]] = b;
    values[fill[a]++] = Math.max(0, pmi);
  };
  each((a, b, w) => {
    put(a, b, w);
    put(b, a, w);
  });
  return { rowStart, columns, values };
}

/** Y (n x l) = X · Z (n x l) for a CSR matrix X. */
function multiply(X: Csr, Z: Float64Array, n: number, l: number): Float64Array {
  const Y = new Float64Array(n * l);
  for (let i = 0; i < n; i++) {
    for (let e = X.rowStart[i]; e < X.rowStart[i + 1]; e++) {
      const v = X.values[e];
      if (v === 0) continue;
      const base = X.columns[e] * l;
      for (let k = 0; k < l; k++) Y[i * l + k] += v * Z[base + k];
    }
  }
  return Y;
}

/** Orthonormalises the l columns of Y (n x l) in place (modified Gram-Schmidt). */
function orthonormalize(Y: Float64Array, n: number, l: number): void {
  for (let k = 0; k < l; k++) {
    for (let p = 0; p < k; p++) {
      let dot = 0;
      for (let i = 0; i < n; i++) dot += Y[i * l + k] * Y[i * l + p];
      for (let i = 0; i < n; i++) Y[i * l + k] -= dot * Y[i * l + p];
    }
    let norm = 0;
    for (let i = 0; i < n; i++) norm += Y[i * l + k] ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < n; i++) Y[i * l + k] /= norm;
  }
}

/** Eigenvalues and vectors of a small symmetric matrix (cyclic Jacobi); vectors as columns of an l x l array. */
export function jacobiEigen(A: Float64Array, l: number): { values: Float64Array; vectors: Float64Array } {
  const a = Float64Array.from(A);
  const v = new Float64Array(l * l);
  for (let i = 0; i < l; i++) v[i * l + i] = 1;
  for (let sweep = 0; sweep < 60; sweep++) {
    let off = 0;
    for (let p = 0; p < l; p++) for (let q = p + 1; q < l; q++) off += a[p * l + q] ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < l; p++) {
      for (let q = p + 1; q < l; q++) {
        const apq = a[p * l + q];
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * l + q] - a[p * l + p]) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < l; k++) {
          const akp = a[k * l + p];
          const akq = a[k * l + q];
          a[k * l + p] = c * akp - s * akq;
          a[k * l + q] = s * akp + c * akq;
        }
        for (let k = 0; k < l; k++) {
          const apk = a[p * l + k];
          const aqk = a[q * l + k];
          a[p * l + k] = c * apk - s * aqk;
          a[q * l + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < l; k++) {
          const vkp = v[k * l + p];
          const vkq = v[k * l + q];
          v[k * l + p] = c * vkp - s * vkq;
          v[k * l + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  return { values: Float64Array.from({ length: l }, (_, i) => a[i * l + i]), vectors: v };
}

/**
 * The `dim` leading singular directions of a symmetric matrix X, scaled by sqrt(singular value): U · sqrt(Σ), n x dim
 * (randomized subspace iteration with 10 extra columns and 4 power iterations).
 */
export function symmetricTopVectors(X: Csr, n: number, dim: number, random: Random): Float64Array {
  const l = Math.min(n, dim + 10);
  let Q: Float64Array = Float64Array.from({ length: n * l }, () => random.normal());
  orthonormalize(Q, n, l);
  for (let it = 0; it < 4; it++) {
    Q = multiply(X, Q, n, l);
    orthonormalize(Q, n, l);
  }
  // B = Qᵀ X Q (l x l, symmetric): its eigen-pairs give X's leading ones
  const XQ = multiply(X, Q, n, l);
  const small = new Float64Array(l * l);
  for (let p = 0; p < l; p++)
    for (let q = 0; q < l; q++) {
      let dot = 0;
      for (let i = 0; i < n; i++) dot += Q[i * l + p] * XQ[i * l + q];
      small[p * l + q] = dot;
    }
  for (let p = 0; p < l; p++)
    for (let q = 0; q < p; q++) small[p * l + q] = small[q * l + p] = (small[p * l + q] + small[q * l + p]) / 2;
  const { values, vectors } = jacobiEigen(small, l);
  const order = [...values.keys()].sort((a, b) => Math.abs(values[b]) - Math.abs(values[a])).slice(0, dim);
  const out = new Float64Array(n * dim);
  order.forEach((column, k) => {
    const scale = Math.sqrt(Math.abs(values[column]));
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let p = 0; p < l; p++) sum += Q[i * l + p] * vectors[p * l + column];
      out[i * dim + k] = sum * scale;
    }
  });
  return out;
}
