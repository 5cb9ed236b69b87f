// FLOPS regulariser Σ_v (mean_i |x_iv|)², value and gradient (shaders/flops_loss.wgsl).
import { f32Bits, grid1d, type GpuContext } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import source from '../../shaders/flops_loss.wgsl?raw';
import { expectTensor } from './shape-check.ts';

const WORKGROUP = 256;
const spec = (entryPoint: string) => ({ family: 'flops_loss', source, entryPoint, constants: { WORKGROUP } });

export class FlopsLoss {
  private readonly params: GPUBuffer;
  /** (V) per-dimension mean |x|, kept from forward for backward. */
  readonly means: Tensor<'f32'>;

  constructor(private readonly ctx: GpuContext, readonly N: number, readonly V: number, readonly slot: number) {
    this.params = ctx.uniform(`flops_loss N${N} V${V}`, 4);
    this.means = ctx.tensor(`flops_loss.means V${V}`, [V], 'f32');
    this.setLambda(1);
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
    this.ctx.dispatch(encoder, spec('flops_reduce'), [this.params, null, this.means, losses], [1], shapes);
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
