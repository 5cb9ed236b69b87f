// MLM-head statistics computed on the GPU: row norms under k, exact percentiles, histogram, anisotropy.
import { f32Bits, grid1d, type GpuContext } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import source from '../../shaders/head_stats.wgsl?raw';
import { histogramEdges } from '../util/histogram-range.ts';
import { sampleRowPairs, type HistogramRange } from './host/head-norms.ts';
import { type NormSummary, HeadStatistics } from '../contract/model/head-statistics.ts';
import { expectTensor } from './shape-check.ts';
const WORKGROUP = 256;

const spec = (entryPoint: string) => ({ family: 'head_stats', source, entryPoint, constants: { WORKGROUP } });

export interface HeadStatsOptions {
  bins?: number;
  /** Row pairs sampled for anisotropy. */
  /** 0: none (then the head may have a single row). */
  pairs?: number;
  seed?: number;
}

/**
 * The histogram range of norms with this summary: `range` when given, else [0, max]; a log range starts above 0, and
 * an empty range is widened to one unit (the GPU statistics and the host ones of a head in row parts agree on it).
 */
export function histogramRangeOf(summary: NormSummary, bins: number, range?: Omit<HistogramRange, 'bins'>): HistogramRange {
  const out: HistogramRange = range ? { ...range, bins } : { lo: 0, hi: summary.max, bins, log: false };
  if (out.log && !(out.lo > 0)) out.lo = summary.min > 0 ? summary.min : 1e-6;
  if (!(out.hi > out.lo)) out.hi = out.lo + 1;
  return out;
}

export class HeadStats {
  readonly bins: number;
  readonly pairCount: number;
  private readonly padded: number;
  private readonly params: GPUBuffer;
  private readonly sorted: Tensor<'f32'>;
  private readonly stats: Tensor<'f32'>;
  private readonly histogram: Tensor<'u32'>;
  private readonly pairs: Tensor<'u32'>;
  private readonly edges: Tensor<'f32'>;

  constructor(
    private readonly ctx: GpuContext,
    readonly V: number,
    readonly d: number,
    options: HeadStatsOptions = {},
  ) {
    this.bins = options.bins ?? 64;
    this.pairCount = options.pairs ?? 2000;
    if (V < 2 && this.pairCount > 0) throw new Error(`head statistics need at least 2 rows, the head has ${V}`);
    this.padded = 2 ** Math.ceil(Math.log2(V));
    this.params = ctx.uniform(`head_stats V${V} d${d}`, 6);
    this.sorted = ctx.tensor('head_stats.sorted_norms', [this.padded], 'f32');
    this.stats = ctx.tensor('head_stats.stats', [9], 'f32'); // mean std min max p50 p90 p99 anisotropy nonFiniteRows
    this.histogram = ctx.tensor('head_stats.histogram', [this.bins], 'u32');
    this.pairs = ctx.tensor(
      'head_stats.pairs',
      [this.pairCount, 2],
      'u32',
      this.pairCount > 0 ? sampleRowPairs(V, this.pairCount, options.seed ?? 1) : undefined,
    );
    this.edges = ctx.tensor('head_stats.edges', [this.bins + 1], 'f32');
  }

  /**
   * Statistics of the row norms of weight / k. Without `range`, the histogram spans [0, max] (log bins: [min, max]).
   */
  async measure(weight: Tensor, k = 1, range?: Omit<HistogramRange, 'bins'>): Promise<HeadStatistics> {
    expectTensor('head_stats', 'weight', weight, [this.V, this.d]);
    const shapes = `V=${this.V} d=${this.d} k=${k}`;
    this.writeParams(this.params, k);
    const bindings = [this.params, weight, this.sorted, this.stats, this.histogram, this.pairs];
    const limit = this.ctx.limits.maxComputeWorkgroupsPerDimension;
    await this.ctx.run('head statistics', (encoder) => {
      this.ctx.dispatch(encoder, spec('head_row_norms'), bindings.slice(0, 3), grid1d(this.padded, WORKGROUP, limit), shapes);
      this.ctx.dispatch(encoder, spec('head_sort'), [this.params, null, this.sorted], [1], shapes);
      this.ctx.dispatch(encoder, spec('head_summary'), [this.params, null, this.sorted, this.stats], [1], shapes);
      this.ctx.dispatch(encoder, spec('head_anisotropy'), [this.params, weight, null, this.stats, null, this.pairs], [1], shapes);
    });
    const s = await this.ctx.read(this.stats);
    const summary: NormSummary = {
      mean: s[0],
      std: s[1],
      min: s[2],
      max: s[3],
      p50: s[4],
      p90: s[5],
      p99: s[6],
      nonFiniteRows: s[8],
    };
    const histogramRange = histogramRangeOf(summary, this.bins, range);
    this.ctx.upload(this.edges, histogramEdges(histogramRange));
    await this.ctx.run('head histogram', (encoder) => {
      this.ctx.dispatch(
        encoder,
        spec('head_histogram'),
        [this.params, null, this.sorted, null, this.histogram, null, this.edges],
        [Math.ceil(this.bins / WORKGROUP)],
        shapes,
      );
    });
    const counts = [...(await this.ctx.read(this.histogram))];
    return { k, summary, anisotropy: s[7], histogram: { range: histogramRange, counts } };
  }

  private writeParams(buffer: GPUBuffer, k: number): void {
    this.ctx.writeUniform(buffer, [
      this.V,
      this.d,
      this.padded,
      this.bins,
      this.pairCount,
      f32Bits(1 / k), // the kernels multiply by 1/k rounded here, once: the same product on every device
    ]);
  }
}
