// The optimiser a recipe names (AdamW, or plain SGD) behind one interface; both read the GPU-computed gradient scale.
import type { GpuContext } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { AdamW, type AdamWState, type OptimizedParameter } from '../kernels/adamw.ts';
import { Sgd } from '../kernels/sgd.ts';
import type { AdamWSettings, OptimizerSettings, SgdSettings } from '../contract/training/optimizer-settings.ts';

/** The optimiser's side of a step and of a checkpoint (SGD has no moments: its state is the step count). */
export interface StepOptimizer {
  readonly step: number;
  /** Records one update with learning rate `lr`. */
  record(encoder: GPUCommandEncoder, lr: number): void;
  readState(): Promise<AdamWState>;
  loadState(state: AdamWState): void;
}

class SgdOptimizer implements StepOptimizer {
  private readonly sgd: Sgd;
  constructor(
    ctx: GpuContext,
    private readonly settings: SgdSettings,
    parameters: readonly OptimizedParameter[],
    scale: Tensor<'f32'>,
  ) {
    this.sgd = new Sgd(ctx, parameters, scale);
  }
  get step(): number {
    return this.sgd.step;
  }
  record(encoder: GPUCommandEncoder, lr: number): void {
    this.sgd.record(encoder, { lr, weightDecay: this.settings.weightDecay });
  }
  async readState(): Promise<AdamWState> {
    return { step: this.sgd.step, moments: [] };
  }
  loadState(state: AdamWState): void {
    if (state.moments.length)
      throw new Error(
        `SGD state holds moments of ${state.moments.length} parameters; SGD has none (was the run trained with AdamW?)`,
      );
    if (!Number.isInteger(state.step) || state.step < 0)
      throw new Error(`SGD state: step ${state.step} is not a non-negative integer`);
    this.sgd.step = state.step;
  }
}

class AdamWOptimizer implements StepOptimizer {
  private readonly adamw: AdamW;
  constructor(
    ctx: GpuContext,
    private readonly settings: AdamWSettings,
    parameters: readonly OptimizedParameter[],
    scale: Tensor<'f32'>,
  ) {
    this.adamw = new AdamW(ctx, parameters, scale);
  }
  get step(): number {
    return this.adamw.step;
  }
  record(encoder: GPUCommandEncoder, lr: number): void {
    const { beta1, beta2, eps, weightDecay } = this.settings;
    this.adamw.record(encoder, { lr, beta1, beta2, eps, weightDecay });
  }
  readState(): Promise<AdamWState> {
    return this.adamw.readState();
  }
  loadState(state: AdamWState): void {
    this.adamw.loadState(state);
  }
}

/** The recipe's optimiser over `parameters`, multiplying every gradient by scale[0] (GradientScale). */
export function createOptimizer(
  ctx: GpuContext,
  settings: OptimizerSettings,
  parameters: readonly OptimizedParameter[],
  scale: Tensor<'f32'>,
): StepOptimizer {
  return settings.kind === 'sgd'
    ? new SgdOptimizer(ctx, settings, parameters, scale)
    : new AdamWOptimizer(ctx, settings, parameters, scale);
}
