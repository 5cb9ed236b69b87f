// The MLM head of a model on the GPU, kept as loaded: its row-norm statistics at k = 1 and under any k (histogrammed
// on shared bins), and the source every W_head / k is written from. The page, inspect and the session all use it.
// A head larger than one storage binding is kept in row parts, and its statistics are computed on the host.
import type { GpuContext, Owned } from '../gpu/context.ts';
import { planRowParts, rowPartsOf, type RowPart, type RowParted } from '../gpu/row-parts.ts';
import type { Tensor } from '../gpu/tensor.ts';
import type { HostTensor } from '../io/host-tensor.ts';
import { HeadDivision } from '../kernels/head-division.ts';
import { HeadStats, histogramRangeOf } from '../kernels/head-stats.ts';
import { type HeadStatistics } from '../contract/model/head-statistics.ts';
import {
  anisotropy,
  headRowNorms,
  normHistogram,
  sampleRowPairs,
  summarizeNorms,
  type HistogramRange,
} from '../kernels/host/head-norms.ts';
import { recordHeadDivision } from './rescale.ts';
import { sharedHistogramRange } from '../util/histogram-range.ts';
import { checkK } from '../contract/limits.ts';
import { HeadStatsPair } from '../contract/model/model-results.ts';

/** Bins of the head-norm histograms. */
const HEAD_HISTOGRAM_BINS = 60;

/** Row pairs sampled for anisotropy (as HeadStats' default). */
const ANISOTROPY_PAIRS = 2000;

export interface HeadMeterOptions {
  /** Seed of the row pairs sampled for anisotropy. */
  seed?: number;
  /** What the figures come from, for captions. */
  provenance: string;
}

/** The head as loaded on the GPU: its parts (one when it fits a binding), a divider per part, the GPU statistics. */
interface HeadOnGpu {
  parts: RowPart[];
  dividers: HeadDivision[];
  /** null when the head is in several parts: its statistics come from the host copy. */
  stats: HeadStats | null;
}

export class HeadMeter {
  private base: HeadStatistics | null = null;
  /** Host-side figures of a head in parts: the float64 row norms and the k-independent anisotropy, once. */
  private hostFigures: { norms: Float64Array; anisotropy: number } | null = null;

  private constructor(
    private readonly gpu: Owned<HeadOnGpu>,
    private readonly host: HostTensor,
    private readonly seed: number,
    private readonly provenance: string,
  ) {}

  /** Uploads W_head (V, d) as loaded (in row parts when it exceeds one binding). */
  static upload(ctx: GpuContext, head: HostTensor, options: HeadMeterOptions): HeadMeter {
    const [V, d] = head.shape;
    const seed = options.seed ?? 1;
    const ranges = planRowParts(V, d, ctx.bindingLimit, 1);
    const gpu = ctx.owned((): HeadOnGpu => {
      const parts = ranges.map(({ row0, rows }) => ({
        row0,
        tensor: ctx.tensor(
          `W_head as loaded rows ${row0}+${rows}`,
          [rows, d],
          'f32',
          head.data.subarray(row0 * d, (row0 + rows) * d),
        ),
      }));
      if (ranges.length === 1) {
        const stats = new HeadStats(ctx, V, d, { bins: HEAD_HISTOGRAM_BINS, seed });
        return { parts, dividers: [new HeadDivision(ctx, V, d)], stats };
      }
      return { parts, dividers: ranges.map(({ rows }) => new HeadDivision(ctx, rows, d)), stats: null };
    });
    return new HeadMeter(gpu, head, seed, options.provenance);
  }

  /** Statistics of W_head and W_head / k, both histogrammed over the range that spans the two. */
  async measure(k: number, options: { logNorm?: boolean } = {}): Promise<HeadStatsPair> {
    checkK(k);
    const { stats, parts } = this.gpu.value;
    const at = (divisor: number, range?: Omit<HistogramRange, 'bins'>) =>
      stats ? stats.measure(parts[0].tensor, divisor, range) : Promise.resolve(this.measureOnHost(divisor, range));
    this.base ??= await at(1);
    const range = sharedHistogramRange(this.base.summary, k, HEAD_HISTOGRAM_BINS, options.logNorm ?? false);
    const before = await at(1, range);
    const after = k === 1 ? before : await at(k, range);
    return { before, after, origin: stats ? 'gpu' : 'host', provenance: this.provenance };
  }

  /** Records target <- W_head / k (a model's decoder matrix, whole or in the same row parts; tied: its word embeddings too). */
  recordDivided(encoder: GPUCommandEncoder, target: RowParted, k: number): void {
    const { parts, dividers } = this.gpu.value;
    const [V, d] = this.host.shape;
    const targets = rowPartsOf(target, V, d, 'W_head / k');
    if (targets.length !== parts.length || targets.some((t, i) => t.row0 !== parts[i].row0)) {
      throw new Error(`W_head / k: the target comes in ${targets.length} row parts, the head as loaded in ${parts.length}`);
    }
    targets.forEach((t, i) => recordHeadDivision(encoder, dividers[i], k, t.tensor as Tensor, parts[i].tensor));
  }

  get bytes(): number {
    return this.gpu.bytes;
  }

  destroy(): void {
    this.gpu.destroy();
  }

  /** What HeadStats.measure gives, from the host copy in float64 (norms of W / k as the norms of W, divided by k). */
  private measureOnHost(k: number, range?: Omit<HistogramRange, 'bins'>): HeadStatistics {
    const [V, d] = this.host.shape;
    this.hostFigures ??= {
      norms: headRowNorms(this.host.data, V, d),
      anisotropy: anisotropy(this.host.data, d, sampleRowPairs(V, ANISOTROPY_PAIRS, this.seed)),
    };
    const norms = this.hostFigures.norms.map((n) => n / k);
    const summary = summarizeNorms(norms);
    const histogramRange = histogramRangeOf(summary, HEAD_HISTOGRAM_BINS, range);
    return {
      k,
      summary,
      anisotropy: this.hostFigures.anisotropy,
      histogram: { range: histogramRange, counts: [...normHistogram(norms, histogramRange)] },
    };
  }
}
