// AdamW over a set of parameter tensors, moments allocated once (shaders/adamw.wgsl).
import { f32Bits, grid1d, type GpuContext } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import source from '../../shaders/adamw.wgsl?raw';
import type { AdamWHyper } from './reference/adamw.ts';
import { expectTensor } from './shape-check.ts';

const WORKGROUP = 256;
const SPEC = { family: 'adamw', source, entryPoint: 'adamw_step', constants: { WORKGROUP } };

interface Slot {
  param: Tensor;
  grad: Tensor;
  m: Tensor<'f32'>;
  v: Tensor<'f32'>;
  uniform: GPUBuffer;
}

export class AdamW {
  private readonly slots: Slot[];
  /** Steps taken so far (t of the bias correction). */
  step = 0;

  constructor(private readonly ctx: GpuContext, pairs: readonly { param: Tensor; grad: Tensor }[]) {
    this.slots = pairs.map(({ param, grad }) => {
      expectTensor('adamw', `gradient of ${param.label}`, grad, param.shape);
      return {
        param,
        grad,
        m: ctx.tensor(`adamw.m ${param.label}`, param.shape, 'f32'),
        v: ctx.tensor(`adamw.v ${param.label}`, param.shape, 'f32'),
        uniform: ctx.uniform(`adamw ${param.label}`, 9),
      };
    });
  }

  /** The moment tensors, for checkpoints (m then v per parameter, in construction order). */
  get state(): Tensor<'f32'>[] {
    return this.slots.flatMap((s) => [s.m, s.v]);
  }

  /** Records one update of every parameter with learning rate `hyper.lr` (increments the step count). */
  record(encoder: GPUCommandEncoder, hyper: AdamWHyper, gradScale = 1): void {
    this.step++;
    const c1 = 1 - hyper.beta1 ** this.step;
    const c2 = 1 - hyper.beta2 ** this.step;
    for (const slot of this.slots) {
      const n = slot.param.size;
      this.ctx.writeUniform(slot.uniform, [
        n,
        f32Bits(hyper.lr),
        f32Bits(hyper.beta1),
        f32Bits(hyper.beta2),
        f32Bits(hyper.eps),
        f32Bits(hyper.weightDecay),
        f32Bits(c1),
        f32Bits(c2),
        f32Bits(gradScale),
      ]);
      const groups = grid1d(n, WORKGROUP, this.ctx.limits.maxComputeWorkgroupsPerDimension);
      this.ctx.dispatch(encoder, SPEC, [slot.uniform, slot.param, slot.grad, slot.m, slot.v], groups, `${slot.param}`);
    }
  }
}
