// Float64 reference of the matmul family (C (+)= op(A)·op(B) + bias, batched) and its backward; shared shape rules.

import { type MatmulShape, type ResolvedMatmul, resolveMatmul } from '../host/matmul-shape.ts';

export { type MatmulLayout, type MatmulShape, type ResolvedMatmul, resolveMatmul } from '../host/matmul-shape.ts';

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
