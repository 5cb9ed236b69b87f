// Plain SGD over a set of parameter tensors (shaders/sgd.wgsl): no state beyond the step count.
import source from '../../shaders/sgd.wgsl?raw';
import { f32Bits, grid1d, type GpuContext } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import type { OptimizedParameter } from './adamw.ts';
import { expectTensor } from './shape-check.ts';

const WORKGROUP = 256;
const SPEC = { family: 'sgd', source, entryPoint: 'sgd_step', constants: { WORKGROUP } };

interface Slot {
  param: Tensor;
  dparam: Tensor;
  decays: boolean;
  /** Its learning rate over the step's. */
  lrScale: number;
  uniform: GPUBuffer;
}

export class Sgd {
  private readonly slots: Slot[];
  private readonly scale: Tensor<'f32'>;
  /** Updates made so far. */
  step = 0;

  /** `scale`: a GPU-computed gradient scale (GradientScale.scale), read at every update ([1, 0] unless given). */
  constructor(
    private readonly ctx: GpuContext,
    pairs: readonly OptimizedParameter[],
    scale?: Tensor<'f32'>,
  ) {
    this.scale = scale ?? ctx.tensor('sgd unit scale', [2], 'f32', [1, 0]);
    this.slots = pairs.map(({ param, dparam, decays = true, lrScale = 1 }) => {
      expectTensor('sgd', `gradient of ${param.label}`, dparam, param.shape);
      return { param, dparam, decays, lrScale, uniform: ctx.uniform(`sgd ${param.label}`, 4) };
    });
  }

  /** Records one update of every parameter, each at `hyper.lr` times its lrScale (increments the step count). */
  record(encoder: GPUCommandEncoder, hyper: { lr: number; weightDecay: number }, gradScale = 1): void {
    this.step++;
    for (const slot of this.slots) {
      const n = slot.param.size;
      this.ctx.writeUniform(slot.uniform, [
        n,
        f32Bits(hyper.lr * slot.lrScale),
        f32Bits(slot.decays ? hyper.weightDecay : 0),
        f32Bits(gradScale),
      ]);
      const groups = grid1d(n, WORKGROUP, this.ctx.limits.maxComputeWorkgroupsPerDimension);
      this.ctx.dispatch(encoder, SPEC, [slot.uniform, slot.param, slot.dparam, this.scale], groups, `${slot.param}`);
    }
  }
}
