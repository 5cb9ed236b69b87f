// Matmul family: every GPU variant in every layout against the float64 reference (odd and aligned shapes, bias,
// batches with dense, broadcast and padded strides, accumulation).
import type { MatmulOptions } from '../../../../src/kernels/matmul.ts';
import { Matmul } from '../../../../src/kernels/matmul.ts';
import { matmulForward, resolveMatmul, type MatmulLayout, type MatmulShape } from '../../../../src/kernels/reference/matmul.ts';
import type { Tolerance } from '../../../helpers/allclose.ts';
import type { KernelTest } from '../../../helpers/check-kernel.ts';
import type { KernelCase, KernelFamily } from './kernel-case.ts';

export const LAYOUTS: MatmulLayout[] = ['nn', 'nt', 'tn'];

/** Kernel variants under test: registers with vec4 loads where the shape allows, forced scalar, and tiled. */
const VARIANTS: [string, MatmulOptions][] = [
  ['registers', { variant: 'registers' }],
  ['registers scalar', { variant: 'registers', vectorize: false }],
  ['tiled', { variant: 'tiled' }],
];
// (M, N, K): ones, sizes below, at and past a 4x4 block and a 32/64-wide workgroup tile; at most ~4 MFLOP each.
const SHAPES: [number, number, number][] = [
  [1, 1, 1],
  [7, 33, 1],
  [1, 257, 7],
  [33, 7, 257],
  [257, 7, 33],
  [33, 33, 33],
  [257, 257, 7],
  [7, 33, 257],
];
// Multiples of 4 (so the vec4 loads engage) that are not multiples of the workgroup tile.
const ALIGNED_SHAPES: [number, number, number][] = [
  [4, 4, 4],
  [36, 260, 12],
  [260, 36, 68],
];

/**
 * fp32 against float64 with N(0, 1) inputs: entries of C have magnitude ~sqrt(K) and fp32 rounding error grows
 * like sqrt(K)·eps·|C|, so both tolerances scale with sqrt(K).
 */
function tolerance(K: number): Tolerance {
  const scale = Math.sqrt(K + 1);
  return { rtol: 2e-5 * scale, atol: 2e-5 * scale };
}

interface Case {
  shape: MatmulShape;
  options: MatmulOptions;
  /** Records the kernel this many times into one encoder (accumulate mode only). */
  repeats?: number;
}

/** One case on the GPU against matmulForward on the same (f32-rounded) data. */
function matmulTest({ shape, options, repeats = 1 }: Case, seed = 1): KernelTest {
  const r = resolveMatmul(shape);
  const tol = tolerance(r.K * repeats);
  return {
    name: `matmul ${JSON.stringify(shape)} ${JSON.stringify(options)}`,
    seed,
    tensors: {
      a: { shape: tensorShape(r.matrices.a, r.strides.a, r.batch, r.extents.a) },
      b: { shape: tensorShape(r.matrices.b, r.strides.b, r.batch, r.extents.b) },
      // C starts with values that an overwrite must replace (and an accumulation must keep).
      c: { shape: tensorShape(r.matrices.c, r.strides.c, r.batch, r.extents.c) },
      ...(r.bias ? { bias: { shape: [r.N] } } : {}),
    },
    build: (ctx, t) => {
      const matmul = new Matmul(ctx, shape, { ...options, label: `test ${r.layout}` });
      return {
        record: (encoder) => {
          for (let i = 0; i < repeats; i++) matmul.record(encoder, { a: t.a, b: t.b, out: t.c, bias: t.bias });
        },
      };
    },
    reference: (h) => {
      // with a custom C stride, elements between batch items keep their initial values
      const expected = Float64Array.from(h.c);
      for (let i = 0; i < repeats; i++) matmulForward(shape, h.a, h.b, h.bias, expected);
      return { c: expected };
    },
    checks: { c: { tol: { rtol: tol.rtol, atol: tol.atol * repeats } } },
  };
}

/** (batch, rows, cols) for dense operands, (rows, cols) for broadcast ones, a flat span for custom strides. */
function tensorShape([rows, cols]: [number, number], stride: number, batch: number, extent: number): number[] {
  if (stride === 0 || batch === 1) return [rows, cols];
  return stride === rows * cols ? [batch, rows, cols] : [extent];
}

const name = ([M, N, K]: [number, number, number]) => `M=${M} N=${N} K=${K}`;

const matmulCase = (test: string, c: Case): KernelCase => ({ name: test, make: () => matmulTest(c) });

/** Every variant in every layout: odd and aligned shapes, bias, batches with dense, broadcast and padded strides, accumulation. */
function layoutCases(options: MatmulOptions, layout: MatmulLayout): KernelCase[] {
  const odd = (M: number, N: number, K: number) => [M, N, K] as const;
  return [
    ...[...SHAPES, ...ALIGNED_SHAPES].map(([M, N, K]) => matmulCase(name([M, N, K]), { shape: { M, N, K, layout }, options })),
    ...[odd(1, 7, 33), odd(257, 33, 7), odd(36, 12, 8)].map(([M, N, K]) =>
      matmulCase(`with bias, M=${M} N=${N} K=${K}`, { shape: { M, N, K, layout, bias: true }, options }),
    ),
    ...(
      [
        ['odd', 7, 33, 7],
        ['aligned', 12, 36, 8],
      ] as const
    ).map(([kind, M, N, K]) =>
      matmulCase(`batched (3 products) with dense strides, ${kind}`, { shape: { M, N, K, layout, batch: 3 }, options }),
    ),
    ...(
      [
        ['odd', 33, 7, 7],
        ['aligned', 36, 8, 12],
      ] as const
    ).map(([kind, M, N, K]) =>
      matmulCase(`batched with A broadcast (stride 0) and bias, ${kind}`, {
        shape: { M, N, K, layout, batch: 2, strides: { a: 0 }, bias: true },
        options,
      }),
    ),
    ...(
      [
        ['odd', 7, 7, 33, 5],
        ['aligned', 8, 12, 36, 4],
      ] as const
    ).map(([kind, M, N, K, pad]) =>
      matmulCase(`batched with B broadcast (stride 0) and padded strides for A and C, ${kind}`, {
        shape: { M, N, K, layout, batch: 3, strides: { a: M * K + pad, b: 0, c: M * N + 3 } },
        options,
      }),
    ),
    ...(
      [
        ['odd', 33, 7, 33],
        ['aligned', 36, 8, 32],
      ] as const
    ).map(([kind, M, N, K]) =>
      matmulCase(`accumulates into C over two recorded calls, ${kind}`, {
        shape: { M, N, K, layout, accumulate: true, bias: true },
        options,
        repeats: 2,
      }),
    ),
  ];
}

export const matmul: KernelFamily = {
  family: 'matmul',
  groups: VARIANTS.flatMap(([variant, options]) =>
    LAYOUTS.map((layout) => ({
      describe: [`matmul ${variant} on the GPU against the reference`, `layout ${layout}`],
      cases: layoutCases(options, layout),
    })),
  ),
};
