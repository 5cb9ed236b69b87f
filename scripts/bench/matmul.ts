// Benchmark section: GFLOP/s of each matmul layout (and kernel variant) at training-sized shapes, GPU work awaited.
import type { GpuContext } from '../../src/gpu/context.ts';
import { Matmul, type MatmulLayout, type MatmulVariant } from '../../src/kernels/matmul.ts';
import { Random } from '../../src/util/random.ts';
import { median } from './timing.ts';
import type { BenchRow } from './types.ts';

const LAYOUTS: MatmulLayout[] = ['nn', 'nt', 'tn'];
// (M, N, K): one layer's projections and MLP slices at 512 and 2048 tokens, hidden 128 (the demo backbone's size).
export const MATMUL_SHAPES: [number, number, number][] = [
  [512, 128, 128],
  [512, 512, 128],
  [2048, 128, 512],
];
/** Timed samples per row (after one warm-up); the row reports their median. */
const SAMPLES = 5;
/** Each sample records enough calls into one encoder to last about this long (fast GPUs would otherwise time submits). */
const SAMPLE_MS = 20;

export async function benchMatmul(ctx: GpuContext, shapes = MATMUL_SHAPES): Promise<BenchRow[]> {
  const fallback = ctx.onCpu;
  const rows: BenchRow[] = [];
  for (const [M, N, K] of shapes) {
    for (const layout of LAYOUTS) {
      // On a CPU device the tiled variant is ~10x slower; measure it at the smallest shape only, for the comparison.
      const variants: MatmulVariant[] =
        fallback && M * N * K > shapes[0][0] * shapes[0][1] * shapes[0][2] ? ['registers'] : ['registers', 'tiled'];
      for (const variant of variants) rows.push(await benchOne(ctx, M, N, K, layout, variant));
    }
  }
  return rows;
}

async function benchOne(
  ctx: GpuContext,
  M: number,
  N: number,
  K: number,
  layout: MatmulLayout,
  variant: MatmulVariant,
): Promise<BenchRow> {
  const matmul = new Matmul(ctx, { M, N, K, layout }, { variant, label: `bench matmul ${layout}` });
  const { matrices, extents } = matmul.shape;
  const random = new Random(M + N + K);
  const a = ctx.tensor('bench a', matrices.a, 'f32', random.normals(extents.a));
  const b = ctx.tensor('bench b', matrices.b, 'f32', random.normals(extents.b));
  const c = ctx.tensor('bench c', matrices.c, 'f32');
  const timeCalls = async (calls: number): Promise<number> => {
    const start = performance.now();
    await ctx.run(`bench matmul ${layout} x${calls}`, (encoder) => {
      for (let i = 0; i < calls; i++) matmul.record(encoder, { a, b, out: c });
    });
    return performance.now() - start;
  };
  try {
    const warmMs = await timeCalls(1); // pipeline compile, bind group, first touch
    const calls = Math.max(1, Math.min(100, Math.ceil(SAMPLE_MS / Math.max(warmMs, 0.01))));
    const samples: number[] = [];
    for (let i = 0; i < SAMPLES; i++) samples.push((await timeCalls(calls)) / calls);
    const ms = median(samples);
    return {
      name: `matmul ${layout} ${M}x${N}x${K}${variant === 'registers' ? '' : ` ${variant}`}`,
      ms,
      gflops: matmul.flops / (ms * 1e6),
      peakBytes: a.byteLength + b.byteLength + c.byteLength,
      extra: { layout, variant, M, N, K, callsPerSample: calls, adapter: `${ctx.adapter.vendor} ${ctx.adapter.architecture}` },
    };
  } finally {
    for (const t of [a, b, c]) t.buffer.destroy();
  }
}
