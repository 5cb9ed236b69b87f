// Float64 reference of the matmul family (C (+)= op(A)·op(B) + bias, batched) and its backward; shared shape rules.

/** nn: C = A·B, nt: C = A·Bᵀ, tn: C = Aᵀ·B. */
export type MatmulLayout = 'nn' | 'nt' | 'tn';

export interface MatmulShape {
  /** Rows of C. */
  M: number;
  /** Columns of C. */
  N: number;
  /** The summed dimension. */
  K: number;
  layout: MatmulLayout;
  /** Independent products (attention's batch x heads); 1 when absent. */
  batch?: number;
  /**
   * Elements between consecutive batch items of A, B and C. Default: dense (M·K, K·N, M·N).
   * 0 for A or B broadcasts one matrix to every batch item (C's stride must not be 0).
   */
  strides?: { a?: number; b?: number; c?: number };
  /** Adds bias (N) to every row of C. */
  bias?: boolean;
  /** C += result (gradients summed over calls); zeroing C is the caller's step. */
  accumulate?: boolean;
}

/** A shape with every default filled in, plus the stored extent of each operand. */
export interface ResolvedMatmul {
  M: number;
  N: number;
  K: number;
  layout: MatmulLayout;
  batch: number;
  strides: { a: number; b: number; c: number };
  bias: boolean;
  accumulate: boolean;
  transposeA: boolean;
  transposeB: boolean;
  /** Stored (rows, cols) of one A, B and C matrix: A is (M, K) or (K, M) for tn; B is (K, N) or (N, K) for nt. */
  matrices: { a: [number, number]; b: [number, number]; c: [number, number] };
  /** Elements each operand must hold: (batch - 1)·stride + rows·cols. */
  extents: { a: number; b: number; c: number };
}

export function resolveMatmul(shape: MatmulShape): ResolvedMatmul {
  const { M, N, K, layout } = shape;
  const batch = shape.batch ?? 1;
  for (const [name, value] of Object.entries({ M, N, K, batch })) {
    if (!Number.isInteger(value) || value < 0) throw new Error(`matmul: ${name} must be a whole number >= 0, got ${value}`);
  }
  if (layout !== 'nn' && layout !== 'nt' && layout !== 'tn') {
    throw new Error(`matmul: layout must be 'nn', 'nt' or 'tn', got '${String(layout)}'`);
  }
  const transposeA = layout === 'tn';
  const transposeB = layout === 'nt';
  const strides = {
    a: shape.strides?.a ?? M * K,
    b: shape.strides?.b ?? K * N,
    c: shape.strides?.c ?? M * N,
  };
  for (const [name, value] of Object.entries(strides)) {
    if (!Number.isInteger(value) || value < 0)
      throw new Error(`matmul: stride of ${name} must be a whole number >= 0, got ${value}`);
  }
  if (batch > 1 && strides.c < M * N) {
    throw new Error(
      `matmul: the stride of C (${strides.c}) is below M·N = ${M * N}: batch items would write the same elements (workgroups of different items would race)`,
    );
  }
  const extent = (stride: number, size: number) => (batch === 0 || size === 0 ? 0 : (batch - 1) * stride + size);
  return {
    M,
    N,
    K,
    layout,
    batch,
    strides,
    bias: shape.bias ?? false,
    accumulate: shape.accumulate ?? false,
    transposeA,
    transposeB,
    matrices: { a: transposeA ? [K, M] : [M, K], b: transposeB ? [N, K] : [K, N], c: [M, N] },
    extents: { a: extent(strides.a, M * K), b: extent(strides.b, K * N), c: extent(strides.c, M * N) },
  };
}

/** op(A)[m, k] and op(B)[k, n] as flat indices into the stored operands. */
function indexers(r: ResolvedMatmul) {
  const { M, N, K, strides } = r;
  const aIndex = r.transposeA
    ? (z: number, m: number, k: number) => z * strides.a + k * M + m
    : (z: number, m: number, k: number) => z * strides.a + m * K + k;
  const bIndex = r.transposeB
    ? (z: number, k: number, n: number) => z * strides.b + n * K + k
    : (z: number, k: number, n: number) => z * strides.b + k * N + n;
  const cIndex = (z: number, m: number, n: number) => z * strides.c + m * N + n;
  return { aIndex, bIndex, cIndex };
}

/**
 * C (+)= op(A)·op(B) (+ bias) for every batch item. a: extents.a, b: extents.b, bias: (N), out: extents.c
 * (read first when accumulating; a fresh zero array when not given). Returns out.
 */
export function matmulForward(
  shape: MatmulShape,
  a: Float64Array,
  b: Float64Array,
  bias?: Float64Array,
  out?: Float64Array,
): Float64Array {
  const r = resolveMatmul(shape);
  checkLength('a', a, r.extents.a);
  checkLength('b', b, r.extents.b);
  if (r.bias) checkLength('bias', bias, r.N);
  const c = out ?? new Float64Array(r.extents.c);
  checkLength('out', c, r.extents.c);
  const { aIndex, bIndex, cIndex } = indexers(r);
  for (let z = 0; z < r.batch; z++) {
    for (let m = 0; m < r.M; m++) {
      for (let n = 0; n < r.N; n++) {
        let sum = r.bias ? bias![n] : 0;
        for (let k = 0; k < r.K; k++) sum += a[aIndex(z, m, k)] * b[bIndex(z, k, n)];
        const i = cIndex(z, m, n);
        c[i] = r.accumulate ? c[i] + sum : sum;
      }
    }
  }
  return c;
}

export interface MatmulGradients {
  /** Same layout and extent as a (summed over batch items when A is broadcast). */
  da: Float64Array;
  /** Same layout and extent as b. */
  db: Float64Array;
  /** (N), summed over batch items and rows; present when the shape has a bias. */
  dbias?: Float64Array;
}

/** Gradients of <C, dout> with respect to a, b and bias; dout: extents.c. Accumulation does not change them. */
export function matmulBackward(shape: MatmulShape, a: Float64Array, b: Float64Array, dout: Float64Array): MatmulGradients {
  const r = resolveMatmul(shape);
  checkLength('a', a, r.extents.a);
  checkLength('b', b, r.extents.b);
  checkLength('dout', dout, r.extents.c);
  const { aIndex, bIndex, cIndex } = indexers(r);
  const da = new Float64Array(r.extents.a);
  const db = new Float64Array(r.extents.b);
  const dbias = r.bias ? new Float64Array(r.N) : undefined;
  for (let z = 0; z < r.batch; z++) {
    for (let m = 0; m < r.M; m++) {
      for (let n = 0; n < r.N; n++) {
        const g = dout[cIndex(z, m, n)];
        if (dbias) dbias[n] += g;
        for (let k = 0; k < r.K; k++) {
          da[aIndex(z, m, k)] += g * b[bIndex(z, k, n)];
          db[bIndex(z, k, n)] += g * a[aIndex(z, m, k)];
        }
      }
    }
  }
  return { da, db, dbias };
}

function checkLength(name: string, array: Float64Array | undefined, expected: number): void {
  if (!array || array.length !== expected) {
    throw new Error(`matmul reference: ${name} has ${array?.length ?? 'no'} elements, expected ${expected}`);
  }
}
