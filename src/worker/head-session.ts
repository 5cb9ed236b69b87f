// The loaded model's pristine MLM head on the GPU: its statistics (k = 1 measured once, then any k on shared bins)
// and W_head / k written into the model that encodes previews.
import type { GpuContext } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { HeadStats, type HeadStatistics } from '../kernels/head-stats.ts';
import type { HostTensor } from '../io/host-tensor.ts';
import type { HeadStatsPair } from './api.ts';
import { sharedHistogramRange } from './histogram-range.ts';

const BINS = 60;

export class HeadSession {
  private readonly stats: HeadStats;
  private base: HeadStatistics | null = null;

  private constructor(
    private readonly weight: Tensor<'f32'>,
    V: number,
    d: number,
    ctx: GpuContext,
    private readonly provenance: string,
  ) {
    this.stats = new HeadStats(ctx, V, d, { bins: BINS });
  }

  /** Uploads the decoder matrix W_head (V, d). */
  static upload(ctx: GpuContext, head: HostTensor, provenance: string): HeadSession {
    const [V, d] = head.shape;
    const weight = ctx.tensor('W_head', [V, d], 'f32', head.data);
    return new HeadSession(weight, V, d, ctx, provenance);
  }

  /** Statistics of W_head and W_head / k, both histogrammed over the range that spans the two. */
  async measure(k: number, logNorm: boolean): Promise<HeadStatsPair> {
    this.base ??= await this.stats.measure(this.weight, 1);
    const range = sharedHistogramRange(this.base.summary, k, BINS, logNorm);
    const before = await this.stats.measure(this.weight, 1, range);
    const after = k === 1 ? before : await this.stats.measure(this.weight, k, range);
    return { before, after, origin: 'gpu', provenance: this.provenance };
  }

  /** Records target <- W_head / k (the paper's correction, applied to a model's decoder matrix from the pristine copy). */
  writeScaled(encoder: GPUCommandEncoder, target: Tensor, k: number): void {
    encoder.copyBufferToBuffer(this.weight.buffer, 0, target.buffer, 0, this.weight.byteLength);
    if (k !== 1) this.stats.rescale(encoder, target, k);
  }

}
