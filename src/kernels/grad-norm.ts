// Typed wrapper of shaders/grad_norm.wgsl: the global norm of a set of gradients and the scale an update applies to
// them (1 / micro-batches, times the clipping coefficient), computed on the GPU into a 2-float tensor.
import source from '../../shaders/grad_norm.wgsl?raw';
import { f32Bits, type GpuContext, type KernelSpec } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';

const WORKGROUP = 256;
const SUM_SQUARES: KernelSpec = { family: 'grad_norm', source, entryPoint: 'sum_squares', constants: { WORKGROUP } };
const GRAD_SCALE: KernelSpec = { family: 'grad_norm', source, entryPoint: 'grad_scale', constants: { WORKGROUP } };
/** Workgroups (partial sums) per gradient at most: enough to spread a large matrix, few enough for one final pass. */
const MAX_SLOTS = 64;

export interface GradientScaleSettings {
  /** Clip the averaged gradient to this global L2 norm (0: no clipping). */
  maxNorm: number;
  /** Micro-batches whose gradients were summed: the update uses their mean. */
  microBatches: number;
}

interface Part {
  grad: Tensor;
  slots: number;
  uniform: GPUBuffer;
}

export class GradientScale {
  /** (2) f32: the scale the optimiser multiplies every gradient by, then the averaged gradient's global norm. */
  readonly scale: Tensor<'f32'>;
  private readonly partials: Tensor<'f32'>;
  private readonly parts: Part[];
  private readonly clip: GPUBuffer;

  constructor(
    private readonly ctx: GpuContext,
    grads: readonly Tensor[],
  ) {
    let slot = 0;
    this.parts = grads.map((grad) => {
      if (grad.dtype !== 'f32') throw new Error(`gradient norm: ${grad} is not f32`);
      const slots = Math.max(1, Math.min(MAX_SLOTS, Math.ceil(grad.size / WORKGROUP)));
      const uniform = ctx.uniform(`grad norm ${grad.label}`, 4);
      ctx.writeUniform(uniform, [grad.size, slot, slots, 0]);
      slot += slots;
      return { grad, slots, uniform };
    });
    this.partials = ctx.tensor('grad norm partials', [Math.max(1, slot)], 'f32');
    this.scale = ctx.tensor('gradient scale', [2], 'f32');
    this.clip = ctx.uniform('grad norm clip', 4);
    ctx.upload(this.scale, [1, 0]);
  }

  /** Records the norm and the scale of the gradients as they are now (after every backward of the step). */
  record(encoder: GPUCommandEncoder, settings: GradientScaleSettings): void {
    const { maxNorm, microBatches } = settings;
    if (!(maxNorm >= 0 && Number.isFinite(maxNorm)))
      throw new Error(`gradient clipping: max norm ${maxNorm} is not a finite number >= 0`);
    if (!(Number.isInteger(microBatches) && microBatches >= 1))
      throw new Error(`gradient scale: ${microBatches} micro-batches is not a positive integer`);
    for (const part of this.parts) {
      this.ctx.dispatch(encoder, SUM_SQUARES, [part.uniform, part.grad, this.partials], [part.slots], `${part.grad}`);
    }
    this.ctx.writeUniform(this.clip, [this.partials.size, f32Bits(maxNorm), f32Bits(1 / microBatches), 0]);
    this.ctx.dispatch(encoder, GRAD_SCALE, [this.clip, this.partials, this.scale], [1], `${this.parts.length} gradients`);
  }

  /** The last recorded [scale, norm] (one small readback). */
  async read(): Promise<{ scale: number; norm: number }> {
    const [scale, norm] = await this.ctx.read(this.scale);
    return { scale, norm };
  }
}
