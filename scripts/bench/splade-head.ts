// Benchmark section: fused SPLADE head forward/backward GFLOP/s, and fused vs naive unfused (materialised logits);
// and the largest single forward dispatch at the paper's recipe, unsplit and split under a GPU's per-dispatch budget.
import type { GpuContext, KernelSpec } from '../../src/gpu/context.ts';
import type { Tensor } from '../../src/gpu/tensor.ts';
import { GPU_DISPATCH_FLOPS } from '../../src/kernels/dispatch-budget.ts';
import { planMatmulPieces } from '../../src/kernels/matmul.ts';
import { SpladeHead, type SpladeHeadDims } from '../../src/kernels/splade-head.ts';

/** The documents' head at the paper's recipe (64 triplets per GPU: 128 documents of 256 tokens), for two backbones. */
const PAPER_HEADS: [string, SpladeHeadDims][] = [
  ['BERT-base', { B: 128, T: 256, d: 768, V: 30522 }],
  ['ModernBERT-base', { B: 128, T: 256, d: 768, V: 50368 }],
];

import { Random } from '../../src/util/random.ts';
import headSource from '../../shaders/splade_head.wgsl?raw';
import naiveSource from './splade_head_naive.wgsl?raw';
import { medianMs } from './timing.ts';
import type { BenchRow } from './types.ts';

/** Sizes kept small enough for SwiftShader (~60 s for the section); T x V grows 7.5x from the first to the second. */
export const SPLADE_HEAD_SIZES: SpladeHeadDims[] = [
  { B: 4, T: 64, d: 128, V: 8192 },
  { B: 4, T: 128, d: 128, V: 30522 },
];

const NAIVE_WG = 64;
/** The naive kernels compile with the product shader's declarations, as a family of their own. */
const NAIVE_SOURCE = `${headSource}\n${naiveSource}`;
const naive = (entryPoint: string): KernelSpec => ({
  family: 'splade_head_naive',
  source: NAIVE_SOURCE,
  entryPoint,
  constants: { FWD_WG: NAIVE_WG },
});

export async function benchSpladeHead(ctx: GpuContext, sizes = SPLADE_HEAD_SIZES, reps = 3): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  // pipelines compile during the first size's warm-up runs; later sizes skip the warm-up (SwiftShader is slow)
  for (const [i, dims] of sizes.entries()) rows.push(...(await benchOne(ctx, dims, reps, i === 0)));
  return [...rows, ...dispatchRows(ctx)];
}

/**
 * The paper's recipe planned (nothing allocated, nothing run): the largest head forward dispatch and the largest
 * encoder matmul (BERT-base's MLP over the 128 x 256 document tokens), unsplit and split under a GPU's budget.
 */
function dispatchRows(ctx: GpuContext): BenchRow[] {
  const mlp = { M: 128 * 256, N: 3072, K: 768, batch: 1 };
  const tiles = 4 * 16; // the tiled variant's rows per workgroup row on a GPU
  const grid = [Math.ceil(mlp.N / tiles), Math.ceil(mlp.M / tiles), 1] as const;
  const pieces = planMatmulPieces(mlp, grid, 16, GPU_DISPATCH_FLOPS);
  const matmulRow: BenchRow = {
    name: `largest encoder matmul at the paper's recipe, BERT-base MLP (M${mlp.M} N${mlp.N} K${mlp.K}), planned`,
    ms: NaN,
    extra: {
      unsplitGFlop: (2 * mlp.M * mlp.N * mlp.K) / 1e9,
      splitGFlop: Math.max(...pieces.map((p) => 2 * Math.min(p.wgY * tiles, mlp.M) * mlp.N * mlp.K)) / 1e9,
      dispatches: pieces.length,
    },
  };
  return [
    matmulRow,
    ...PAPER_HEADS.map(([name, dims]): BenchRow => {
      let unsplit: SpladeHead | undefined;
      let split: SpladeHead | undefined;
      ctx.measure(() => (unsplit = new SpladeHead(ctx, dims, { maxDispatchFlops: Infinity })));
      ctx.measure(() => (split = new SpladeHead(ctx, dims, { maxDispatchFlops: GPU_DISPATCH_FLOPS })));
      return {
        name: `largest head forward dispatch at the paper's recipe, ${name} (B${dims.B} T${dims.T} d${dims.d} V${dims.V}), planned`,
        ms: NaN,
        extra: {
          unsplitGFlop: unsplit!.largestDispatchFlops / 1e9,
          splitGFlop: split!.largestDispatchFlops / 1e9,
          dispatches: split!.forwardDispatches,
        },
      };
    }),
  ];
}

async function benchOne(ctx: GpuContext, dims: SpladeHeadDims, reps: number, warmUp: boolean): Promise<BenchRow[]> {
  const { B, T, d, V } = dims;
  const tag = `B${B} T${T} d${d} V${V}`;
  const random = new Random(B * T + V);
  const owned: Tensor[] = [];
  const tensor = <D extends 'f32' | 'u32'>(label: string, shape: number[], dtype: D, data?: ArrayLike<number>) => {
    const t = ctx.tensor(label, shape, dtype, data);
    owned.push(t);
    return t;
  };
  const bytes = (...ts: (Tensor | GPUBuffer)[]) => ts.reduce((s, t) => s + ('byteLength' in t ? t.byteLength : t.size), 0);

  // shared inputs: hidden (B, T, d), weight (V, d), bias (V), mask (B, T) all ones, so that both paths do the
  // same 2·B·T·V·d FLOPs (the fused kernel skips fully padded token blocks; the naive one cannot)
  const hidden = tensor('bench hidden', [B, T, d], 'f32', random.normals(B * T * d, 0.5));
  const weight = tensor('bench weight', [V, d], 'f32', random.normals(V * d, 0.1));
  const bias = tensor('bench bias', [V], 'f32', random.uniforms(V, -1, 0));
  const mask = tensor('bench mask', [B, T], 'u32', new Uint32Array(B * T).fill(1));
  const inputBytes = bytes(hidden, weight, bias, mask);

  // fused path: outputs (B, V) x 2 and the head's own buffers; backward adds dpooled and the three gradients
  const headScope = ctx.owned(() => new SpladeHead(ctx, dims)); // freed before the naive path allocates its logits
  const head = headScope.value;
  const pooled = tensor('bench pooled', [B, V], 'f32');
  const argmax = tensor('bench argmax', [B, V], 'u32');
  const dpooled = tensor('bench dpooled', [B, V], 'f32', random.normals(B * V));
  const dhidden = tensor('bench dhidden', [B, T, d], 'f32');
  const dweight = tensor('bench dweight', [V, d], 'f32');
  const dbias = tensor('bench dbias', [V], 'f32');
  const fusedBytes = inputBytes + bytes(pooled, argmax) + head.scratchBytes;
  const backwardBytes = fusedBytes + bytes(dpooled, dhidden, dweight, dbias);
  const fwdMs = await timeRecorded(ctx, reps, warmUp, (enc) => head.forward(enc, { hidden, weight, bias, mask, pooled, argmax }));
  // the other forward variant on the same inputs (registers on CPUs, tiled on GPUs by default), as a ratio
  const otherVariant = head.variant === 'tiled' ? 'registers' : 'tiled';
  const otherScope = ctx.owned(() => new SpladeHead(ctx, dims, { forwardVariant: otherVariant }));
  const otherMs = await timeRecorded(ctx, reps, true, (enc) =>
    otherScope.value.forward(enc, { hidden, weight, bias, mask, pooled, argmax }),
  );
  otherScope.destroy();
  const bwdMs = await timeRecorded(ctx, reps, warmUp, (enc) =>
    head.backward(enc, { hidden, weight, pooled, argmax, dpooled, dhidden, dweight, dbias }),
  );
  const fusedPooled = await ctx.read(pooled);
  const fusedArgmax = await ctx.read(argmax);
  headScope.destroy();

  // naive path: logits (B, T, V) materialised, then log1p∘ReLU + masked max in a second kernel
  const dimsBuffer = ctx.uniform(`splade_head naive dims ${tag}`, 4);
  ctx.writeUniform(dimsBuffer, [B, T, d, V]);
  const logits = tensor('bench naive logits', [B, T, V], 'f32');
  const naivePooled = tensor('bench naive pooled', [B, V], 'f32');
  const naiveArgmax = tensor('bench naive argmax', [B, V], 'u32');
  const naiveBytes = inputBytes + bytes(logits, naivePooled, naiveArgmax, dimsBuffer);
  const naiveMs = await timeRecorded(ctx, reps, warmUp, (enc) => {
    ctx.dispatch(
      enc,
      naive('naive_logits'),
      [dimsBuffer, hidden, weight, bias, logits],
      [Math.ceil((B * T) / 4), Math.ceil(V / (4 * NAIVE_WG))],
      tag,
    );
    ctx.dispatch(
      enc,
      naive('naive_pool'),
      [dimsBuffer, logits, mask, naivePooled, naiveArgmax],
      [Math.ceil(V / NAIVE_WG), B],
      tag,
    );
  });
  const agreement = compare(fusedPooled, fusedArgmax, await ctx.read(naivePooled), await ctx.read(naiveArgmax));
  dimsBuffer.destroy();
  for (const t of owned) t.buffer.destroy();

  const fwdFlops = 2 * B * T * V * d;
  const bwdFlops = 4 * B * V * d; // dweight and dhidden: one multiply-add per (b, v, k) each, at most
  return [
    {
      name: `splade head fused forward ${tag} (${head.variant})`,
      ms: fwdMs,
      gflops: fwdFlops / fwdMs / 1e6,
      peakBytes: fusedBytes,
      extra: {
        pathBytes: fusedBytes - inputBytes,
        naiveOverFusedTime: naiveMs / fwdMs,
        naiveOverFusedBytes: naiveBytes / fusedBytes,
      },
    },
    {
      name: `splade head fused forward ${tag} (${otherVariant})`,
      ms: otherMs,
      gflops: fwdFlops / otherMs / 1e6,
      extra: { overDefaultVariantTime: otherMs / fwdMs },
    },
    {
      name: `splade head naive forward ${tag}`,
      ms: naiveMs,
      gflops: fwdFlops / naiveMs / 1e6,
      peakBytes: naiveBytes,
      extra: { pathBytes: naiveBytes - inputBytes, logitsBytes: logits.byteLength, ...agreement },
    },
    {
      name: `splade head fused backward ${tag}`,
      ms: bwdMs,
      gflops: bwdFlops / bwdMs / 1e6,
      peakBytes: backwardBytes,
      extra: { pathBytes: backwardBytes - inputBytes, backwardOverForwardTime: bwdMs / fwdMs },
    },
  ];
}

/** Median wall time of `reps` submissions (after an optional warm-up that also compiles the pipelines). */
async function timeRecorded(
  ctx: GpuContext,
  reps: number,
  warmUp: boolean,
  record: (encoder: GPUCommandEncoder) => void,
): Promise<number> {
  if (warmUp) await ctx.run('bench warm-up', record);
  return medianMs(reps, () => ctx.run('bench', record));
}

/** Sanity figures: the two paths must compute the same thing. */
function compare(fp: Float32Array, fa: Uint32Array, np: Float32Array, na: Uint32Array): Record<string, number> {
  let maxDiff = 0;
  let same = 0;
  for (let i = 0; i < fp.length; i++) {
    maxDiff = Math.max(maxDiff, Math.abs(fp[i] - np[i]));
    if (fa[i] === na[i]) same++;
  }
  return { maxPooledDiffVsFused: maxDiff, argmaxAgreement: same / fa.length };
}
