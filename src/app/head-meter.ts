// The MLM head of a model on the GPU, kept as loaded: its row-norm statistics at k = 1 and under any k (histogrammed
// on shared bins), and the source every W_head / k is written from. The page, inspect and the session all use it.
import type { GpuContext, Owned } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import type { HostTensor } from '../io/host-tensor.ts';
import { HeadStats, type HeadStatistics } from '../kernels/head-stats.ts';
import { recordHeadDivision } from '../model/rescale.ts';
import { sharedHistogramRange } from '../util/histogram-range.ts';
import { checkK } from './limits.ts';

/** Bins of the head-norm histograms. */
const HEAD_HISTOGRAM_BINS = 60;

/** Row-norm statistics of W_head (k = 1) and W_head / k, histogrammed over one shared range. */
export interface HeadStatsPair {
  before: HeadStatistics;
  after: HeadStatistics;
  /** "gpu": measured now by the head-statistics kernels; "precomputed": the demo's shipped figures (no WebGPU). */
  origin: 'gpu' | 'precomputed';
  /** What data and model the figures come from, for the caption. */
  provenance: string;
}

export interface HeadMeterOptions {
  /** Seed of the row pairs sampled for anisotropy. */
  seed?: number;
  /** What the figures come from, for captions. */
  provenance: string;
}

export class HeadMeter {
  private base: HeadStatistics | null = null;

  private constructor(
    private readonly gpu: Owned<{ head: Tensor<'f32'>; stats: HeadStats }>,
    private readonly provenance: string,
  ) {}

  /** Uploads W_head (V, d) as loaded. */
  static upload(ctx: GpuContext, head: HostTensor, options: HeadMeterOptions): HeadMeter {
    const [V, d] = head.shape;
    const gpu = ctx.owned(() => ({
      head: ctx.tensor('W_head as loaded', [V, d], 'f32', head.data),
      stats: new HeadStats(ctx, V, d, { bins: HEAD_HISTOGRAM_BINS, seed: options.seed ?? 1 }),
    }));
    return new HeadMeter(gpu, options.provenance);
  }

  /** Statistics of W_head and W_head / k, both histogrammed over the range that spans the two. */
  async measure(k: number, options: { logNorm?: boolean } = {}): Promise<HeadStatsPair> {
    checkK(k);
    const { stats, head } = this.gpu.value;
    this.base ??= await stats.measure(head, 1);
    const range = sharedHistogramRange(this.base.summary, k, HEAD_HISTOGRAM_BINS, options.logNorm ?? false);
    const before = await stats.measure(head, 1, range);
    const after = k === 1 ? before : await stats.measure(head, k, range);
    return { before, after, origin: 'gpu', provenance: this.provenance };
  }

  /** Records target <- W_head / k (a model's decoder matrix; tied: its word embeddings too). */
  recordDivided(encoder: GPUCommandEncoder, target: Tensor, k: number): void {
    recordHeadDivision(encoder, this.gpu.value.stats, k, target, this.gpu.value.head);
  }

  get bytes(): number {
    return this.gpu.bytes;
  }

  destroy(): void {
    this.gpu.destroy();
  }
}
