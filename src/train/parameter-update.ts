// The end of every training step, whatever its objective: the averaged gradient's scale (micro-batch mean, clipping),
// the optimiser's update, the sticky health flags, and the optimiser state a checkpoint keeps.
import type { GpuContext } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import type { AdamWState, OptimizedParameter } from '../kernels/adamw.ts';
import { decodeFlags, FiniteMonitor, type HealthReport } from '../kernels/finite-check.ts';
import { GradientScale } from '../kernels/grad-norm.ts';
import type { GpuModel, GpuParameter } from '../model/gpu-model.ts';
import type { StepRecipe } from '../contract/training/recipe.ts';
import { microBatches } from '../contract/training/recipe-facts.ts';
import { learningRate } from '../contract/training/schedule.ts';
import { createOptimizer, type StepOptimizer } from './optimizer.ts';
import { momentsForParts } from './moment-parts.ts';

/** The optimiser's state with each parameter's moments under its internal name (layout.ts), for checkpoints. */
export interface OptimizerState {
  step: number;
  moments: Map<string, AdamWState['moments'][number]>;
}

/** A small tensor of loss values the health flags also watch, with a name for each element. */
export interface WatchedLosses {
  tensor: Tensor;
  names: string[];
}

export class ParameterUpdate {
  private readonly optimizer: StepOptimizer;
  /** The averaged gradient's norm and the scale every update applies (micro-batch mean, clipping). */
  private readonly gradients: GradientScale;
  /** Sticky GPU flags: loss parts, every gradient and every updated parameter, checked at each step. */
  private readonly health: FiniteMonitor;
  /** Names of the parameters whose moments the optimiser keeps, in its order (none for SGD). */
  private readonly parameterNames: string[];

  constructor(
    ctx: GpuContext,
    model: GpuModel,
    private readonly recipe: StepRecipe,
    losses: WatchedLosses,
    /**
     * Parameters the run trains beyond the model's (an inference-free run's query table), each maybe at its own
     * learning rate: the schedule's times `lrScale` (its base lr over the schedule's peak).
     */
    extra: readonly (GpuParameter & Pick<OptimizedParameter, 'lrScale'>)[] = [],
  ) {
    const parameters: (GpuParameter & Pick<OptimizedParameter, 'lrScale'>)[] = [...model.parameters(), ...extra];
    this.gradients = new GradientScale(
      ctx,
      parameters.map((p) => p.dparam),
    );
    this.optimizer = createOptimizer(ctx, recipe.optimizer, parameters, this.gradients.scale);
    // SGD keeps no moments: its checkpoints hold none
    this.parameterNames = recipe.optimizer.kind === 'sgd' ? [] : parameters.map((p) => p.name);
    this.health = new FiniteMonitor(
      ctx,
      [
        { name: 'loss parts', tensor: losses.tensor, elements: losses.names },
        ...parameters.map((p) => ({ name: `gradient of ${p.name}`, tensor: p.dparam })),
        ...parameters.map((p) => ({ name: `parameter ${p.name} after the update`, tensor: p.param })),
      ],
      'training health',
    );
  }

  /** After a step's last micro-batch: scale the summed gradients, update the parameters, check step t's health. */
  record(encoder: GPUCommandEncoder, t: number): void {
    this.gradients.record(encoder, { maxNorm: this.recipe.maxGradNorm ?? 0, microBatches: microBatches(this.recipe) });
    this.optimizer.record(encoder, learningRate(this.recipe.schedule, t));
    this.health.record(encoder, t);
  }

  /**
   * Whether any step so far left a loss part, a gradient or an updated parameter Inf or NaN, which parts, and the
   * first such step: one readback of a few words, cheap enough for every report and before every checkpoint. The
   * flags are sticky: a bad step between two reports is still seen.
   */
  readHealth(): Promise<HealthReport> {
    return this.health.read();
  }

  /**
   * What a report reads after a step's update, for a caller that reads it together with its own tensors in one
   * readback (`ctx.readAll`): the gradient's [scale, norm] and the health flags. `reportFrom` decodes those copies.
   */
  get reportTensors(): readonly Tensor[] {
    return [this.gradients.scale, this.health.flags];
  }

  /** The gradient norm and the health of the copies of `reportTensors`, in their order. */
  reportFrom([scale, flags]: readonly ArrayLike<number>[]): { gradNorm: number; health: HealthReport } {
    return { gradNorm: scale[1], health: decodeFlags(flags, this.health.names) };
  }

  /** Reads the optimiser's step count and moments back, keyed by parameter name. */
  async readOptimizerState(): Promise<OptimizerState> {
    const { step, moments } = await this.optimizer.readState();
    return { step, moments: new Map(moments.map((moment, i) => [this.parameterNames[i], moment])) };
  }

  /** Loads a checkpoint's optimiser state; refuses one saved for other parameters. */
  restoreOptimizer(optimizer: OptimizerState): void {
    // a vocabulary matrix saved whole or in other row parts (another device's binding limit) is re-sliced to ours
    const moments = momentsForParts(optimizer.moments, this.parameterNames);
    const missing = this.parameterNames.filter((name) => !moments.has(name));
    const extra = [...moments.keys()].filter((name) => !this.parameterNames.includes(name));
    if (missing.length || extra.length) {
      throw new Error(
        `optimiser state does not fit this model: ` +
          [
            missing.length ? `no moments for ${missing.join(', ')}` : '',
            extra.length ? `moments of unknown parameters ${extra.join(', ')}` : '',
          ]
            .filter(Boolean)
            .join('; '),
      );
    }
    this.optimizer.loadState({ step: optimizer.step, moments: this.parameterNames.map((name) => moments.get(name)!) });
  }
}

/** A step count a checkpoint may hold. */
export function checkStepCount(t: number): void {
  if (!Number.isInteger(t) || t < 0) throw new Error(`trainer step ${t} is not a non-negative integer`);
}
