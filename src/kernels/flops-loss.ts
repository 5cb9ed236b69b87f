// FLOPS regulariser Σ_v (mean_i |x_iv|)², value and gradient (shaders/flops_loss.wgsl).
import { f32Bits, grid1d, type GpuContext } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import source from '../../shaders/flops_loss.wgsl?raw';
import { expectTensor } from './shape-check.ts';

const WORKGROUP = 256;
const spec = (entryPoint: string) => ({ family: 'flops_loss', source, entryPoint, constants: { WORKGROUP } });

export class FlopsLoss {
  private readonly params: GPUBuffer;
  private readonly addUniform: GPUBuffer;
  private readonly loadUniform: GPUBuffer;
  /** The count loadUniform was last written with (0: never). */
  private loadCount = 0;
  /** (V) per-dimension mean |x|, kept from forward for backward. */
  readonly means: Tensor<'f32'>;

  constructor(
    private readonly ctx: GpuContext,
    readonly N: number,
    readonly V: number,
    readonly slot: number,
  ) {
    this.params = ctx.uniform(`flops_loss N${N} V${V}`, 4);
    this.means = ctx.tensor(`flops_loss.means V${V}`, [V], 'f32');
    this.addUniform = ctx.uniform(`flops_loss add means V${V}`, 4);
    this.loadUniform = ctx.uniform(`flops_loss load means V${V}`, 4);
    ctx.writeUniform(this.addUniform, [V, 1, f32Bits(1), 0]);
    this.setLambda(1);
  }

  /** The means of the last forward (this micro-batch's) added into `sums` (V): a step's running sum of means. */
  addMeansInto(encoder: GPUCommandEncoder, sums: Tensor): void {
    expectTensor('flops_loss', 'sums', sums, [this.V]);
    this.carry(encoder, this.addUniform, this.means, sums);
  }

  /**
   * Takes `sums / count` (a step's mean of its micro-batches' means, which is the mean over all its vectors) as this
   * loss's means: the loss and gradient that follow are those of FLOPS over the whole step.
   */
  loadMeans(encoder: GPUCommandEncoder, sums: Tensor, count: number): void {
    expectTensor('flops_loss', 'sums', sums, [this.V]);
    if (count !== this.loadCount) {
      // a trainer passes the same count every step: the uniform is written once, not per micro-batch
      this.ctx.writeUniform(this.loadUniform, [this.V, 0, f32Bits(1 / count), 0]);
      this.loadCount = count;
    }
    this.carry(encoder, this.loadUniform, sums, this.means);
  }

  /** losses[slot] = Σ_v means[v]² of the means as they are (after loadMeans). */
  reduce(encoder: GPUCommandEncoder, losses: Tensor): void {
    this.ctx.dispatch(encoder, spec('flops_reduce'), [this.params, null, this.means, losses], [1], `N=${this.N} V=${this.V}`);
  }

  private carry(encoder: GPUCommandEncoder, uniform: GPUBuffer, src: Tensor, dst: Tensor): void {
    const columns = grid1d(this.V, WORKGROUP, this.ctx.limits.maxComputeWorkgroupsPerDimension);
    this.ctx.dispatch(encoder, spec('flops_carry_means'), [uniform, src, dst], columns, `V=${this.V}`);
  }

  /** The regulariser's weight λ (after the warm-up ramp); scales the gradient only. */
  setLambda(lambda: number): void {
    this.ctx.writeUniform(this.params, [this.N, this.V, this.slot, f32Bits(lambda)]);
  }

  /** losses[slot] = Σ_v (mean_i |x_iv|)² (unweighted). */
  forward(encoder: GPUCommandEncoder, { vectors, losses }: { vectors: Tensor; losses: Tensor }): void {
    expectTensor('flops_loss', 'vectors', vectors, [this.N, this.V]);
    if (losses.size <= this.slot) throw new Error(`flops_loss: losses ${losses} has no slot ${this.slot}`);
    const shapes = `N=${this.N} V=${this.V}`;
    const columns = grid1d(this.V, WORKGROUP, this.ctx.limits.maxComputeWorkgroupsPerDimension);
    this.ctx.dispatch(encoder, spec('flops_column_means'), [this.params, vectors, this.means], columns, shapes);
    this.reduce(encoder, losses);
  }

  /** dvectors (N, V) += λ · dL/dx; needs `forward` first (it uses the means). */
  backward(encoder: GPUCommandEncoder, { vectors, dvectors }: { vectors: Tensor; dvectors: Tensor }): void {
    expectTensor('flops_loss', 'vectors', vectors, [this.N, this.V]);
    expectTensor('flops_loss', 'dvectors', dvectors, [this.N, this.V]);
    const columns = grid1d(this.V, WORKGROUP, this.ctx.limits.maxComputeWorkgroupsPerDimension);
    this.ctx.dispatch(
      encoder,
      spec('flops_backward'),
      [this.params, vectors, this.means, null, dvectors],
      columns,
      `N=${this.N} V=${this.V}`,
    );
  }
}
