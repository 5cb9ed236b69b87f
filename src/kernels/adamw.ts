// AdamW over a set of parameter tensors, moments allocated once (shaders/adamw.wgsl).
import { f32Bits, grid1d, type GpuContext } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import source from '../../shaders/adamw.wgsl?raw';
import type { AdamWHyper } from './host/adamw-hyper.ts';
import { expectTensor } from './shape-check.ts';

const WORKGROUP = 256;
const SPEC = { family: 'adamw', source, entryPoint: 'adamw_step', constants: { WORKGROUP } };

/** What a resumed run needs of the optimiser: the step count and both moments of every parameter. */
export interface AdamWState {
  /** Steps taken (t of the bias correction). */
  step: number;
  /** First (m) and second (v) moments per parameter, in construction order. */
  moments: { m: Float32Array; v: Float32Array }[];
}

/**
 * A parameter an optimiser updates: its tensor, its gradient, whether weight decay applies (default true), and its
 * learning rate as a multiple of the step's (default 1: a parameter group with its own base lr under one schedule).
 */
export interface OptimizedParameter {
  param: Tensor;
  dparam: Tensor;
  decays?: boolean;
  lrScale?: number;
}

interface Slot {
  param: Tensor;
  dparam: Tensor;
  /** Whether the weight decay applies (not to biases and LayerNorm parameters, as transformers' Trainer does). */
  decays: boolean;
  /** Its learning rate over the step's. */
  lrScale: number;
  m: Tensor<'f32'>;
  v: Tensor<'f32'>;
  uniform: GPUBuffer;
}

export class AdamW {
  private readonly slots: Slot[];
  /** scale[0] multiplies every gradient (GradientScale's clipping and averaging); [1, 0] unless given. */
  private readonly scale: Tensor<'f32'>;
  /** Steps taken so far (t of the bias correction). */
  step = 0;

  /**
   * `decays: false` exempts a parameter from the weight decay (default: it decays). `scale`: a GPU-computed gradient
   * scale (GradientScale.scale), read at every update.
   */
  constructor(
    private readonly ctx: GpuContext,
    pairs: readonly OptimizedParameter[],
    scale?: Tensor<'f32'>,
  ) {
    this.scale = scale ?? ctx.tensor('adamw unit scale', [2], 'f32', [1, 0]);
    this.slots = pairs.map(({ param, dparam, decays = true, lrScale = 1 }) => {
      expectTensor('adamw', `gradient of ${param.label}`, dparam, param.shape);
      return {
        param,
        dparam,
        decays,
        lrScale,
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

  /** Reads the step count and every moment back (checkpoints). */
  async readState(): Promise<AdamWState> {
    const moments = [];
    for (const slot of this.slots) moments.push({ m: await this.ctx.read(slot.m), v: await this.ctx.read(slot.v) });
    return { step: this.step, moments };
  }

  /** Restores a state read by readState (same parameters, same order); every size is checked before any upload. */
  loadState(state: AdamWState): void {
    if (!Number.isInteger(state.step) || state.step < 0)
      throw new Error(`AdamW state: step ${state.step} is not a non-negative integer`);
    if (state.moments.length !== this.slots.length) {
      throw new Error(`AdamW state holds moments of ${state.moments.length} parameters, this optimiser has ${this.slots.length}`);
    }
    this.slots.forEach((slot, i) => {
      const { m, v } = state.moments[i];
      if (m.length !== slot.param.size || v.length !== slot.param.size) {
        throw new Error(
          `AdamW state of ${slot.param}: m holds ${m.length} and v ${v.length} values, expected ${slot.param.size}`,
        );
      }
    });
    this.slots.forEach((slot, i) => {
      this.ctx.upload(slot.m, state.moments[i].m);
      this.ctx.upload(slot.v, state.moments[i].v);
    });
    this.step = state.step;
  }

  /**
   * Records one update of every parameter with learning rate `hyper.lr` (times its lrScale), decaying those that decay
   * (increments the step count).
   */
  record(encoder: GPUCommandEncoder, hyper: AdamWHyper, gradScale = 1): void {
    this.step++;
    const c1 = 1 - hyper.beta1 ** this.step;
    const c2 = 1 - hyper.beta2 ** this.step;
    for (const slot of this.slots) {
      const n = slot.param.size;
      this.ctx.writeUniform(slot.uniform, [
        n,
        f32Bits(hyper.lr * slot.lrScale),
        f32Bits(hyper.beta1),
        f32Bits(hyper.beta2),
        f32Bits(hyper.eps),
        f32Bits(slot.decays ? hyper.weightDecay : 0),
        f32Bits(c1),
        f32Bits(c2),
        f32Bits(gradScale),
      ]);
      const groups = grid1d(n, WORKGROUP, this.ctx.limits.maxComputeWorkgroupsPerDimension);
      this.ctx.dispatch(
        encoder,
        SPEC,
        [slot.uniform, slot.param, slot.dparam, slot.m, slot.v, this.scale],
        groups,
        `${slot.param}`,
      );
    }
  }
}
