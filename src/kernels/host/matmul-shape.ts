// The matmul family's shape rules, shared by its kernel (src/kernels/matmul.ts) and its float64 reference: layouts,
// extents, strides and batch broadcasting resolved once.

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
