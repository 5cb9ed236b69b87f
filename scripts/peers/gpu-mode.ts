// The peers bench's GPU mode (`--gpu`, for a machine with a real GPU: SPLADE_LAB_GPU=system): the fused head's
// achieved TFLOP/s and fraction of the device's fp32 peak (both variants), matmul GFLOP/s per layout at BERT-base's
// shapes, and one full training step of a BERT-base-sized model (B 16, queries 32, documents 128, V 30522).
import type { GpuContext } from '../../src/gpu/context.ts';
import type { AdapterReport } from '../../src/contract/model/gpu-report.ts';
import { nodeGpuContext } from '../../src/gpu/webgpu-node.ts';
import { benchMatmul } from '../bench/matmul.ts';
import { benchSpladeHead } from '../bench/splade-head.ts';
import { benchTraining, type TrainingBenchShape } from '../bench/training.ts';
import type { BenchRow } from '../bench/types.ts';
import type { SpladeHeadDims } from '../../src/kernels/splade-head.ts';
import type { PeerSize } from './problem.ts';

interface GpuModeShapes {
  head: SpladeHeadDims;
  matmuls: [number, number, number][];
  step: TrainingBenchShape;
}

const SHAPES: Record<PeerSize, GpuModeShapes> = {
  bench: {
    // 32 documents of 128 tokens through BERT-base's head: 192 GFLOP per forward
    head: { B: 32, T: 128, d: 768, V: 30522 },
    // (M, N, K) at 2048 document tokens: the q/k/v projection, the MLP's input and output
    matmuls: [
      [2048, 2304, 768],
      [2048, 3072, 768],
      [2048, 768, 3072],
    ],
    step: { B: 16, Tq: 32, Td: 128, hidden: 768, layers: 12, heads: 12, intermediate: 3072, vocab: 30522 },
  },
  // the same rows at sizes SwiftShader runs in seconds (the test of this mode)
  small: {
    head: { B: 2, T: 16, d: 32, V: 1517 },
    matmuls: [[64, 48, 32]],
    step: { B: 2, Tq: 8, Td: 16, hidden: 32, layers: 1, heads: 2, intermediate: 64, vocab: 1517 },
  },
};

export interface GpuModeReport {
  adapter: AdapterReport;
  /** The device's fp32 peak the fractions are of (given with --peak-tflops; WebGPU does not report it), or null. */
  peakTflops: number | null;
  rows: BenchRow[];
}

export async function runGpuMode(size: PeerSize, peakTflops: number | null): Promise<GpuModeReport> {
  const ctx = await nodeGpuContext('peers bench, GPU mode');
  try {
    if (ctx.onCpu && size === 'bench') {
      throw new Error(
        `--gpu wants a real GPU (SPLADE_LAB_GPU=system), but the adapter is ${ctx.adapter.description || ctx.adapter.architecture}, which computes on the CPU; --size small runs this mode's rows at small shapes`,
      );
    }
    const shapes = SHAPES[size];
    const rows = [
      ...(await benchSpladeHead(ctx, [shapes.head])).filter((row) => !row.name.includes('planned')),
      ...(await benchMatmul(ctx, shapes.matmuls)),
      ...(await stepRows(ctx, shapes.step)),
    ];
    for (const row of rows) {
      if (row.gflops === undefined) continue;
      row.extra = {
        ...row.extra,
        tflops: row.gflops / 1000,
        ...(peakTflops ? { fractionOfPeak: row.gflops / 1000 / peakTflops } : {}),
      };
    }
    return { adapter: ctx.adapter, peakTflops, rows };
  } finally {
    ctx.destroy();
  }
}

/** The full step and its forward-only twin, with tokens per second. */
async function stepRows(ctx: GpuContext, shape: TrainingBenchShape): Promise<BenchRow[]> {
  const tokens = shape.B * shape.Tq + 2 * shape.B * shape.Td;
  const rows = await benchTraining(ctx, shape);
  return rows.map((row) => ({ ...row, extra: { ...row.extra, tokensPerSecond: tokens / (row.ms / 1000) } }));
}
