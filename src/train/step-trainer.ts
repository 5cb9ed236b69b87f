// What the shared step loop needs of a trainer, whatever its objective (SPLADE, masked-LM): its model, recipe and
// step count, one optimiser step over a step's micro-batches, its health flags, and its optimiser state.
import type { HealthReport } from '../kernels/finite-check.ts';
import type { GpuModel } from '../model/gpu-model.ts';
import type { StepRecipe } from '../contract/training/recipe.ts';
import type { OptimizerState } from './parameter-update.ts';
import type { HostTensor } from '../io/host-tensor.ts';

/** What the loop needs of a trainer, whatever its objective. */
export interface StepTrainer<Batch, Result> {
  readonly model: GpuModel;
  readonly recipe: StepRecipe;
  /** Steps taken so far. */
  t: number;
  step(batches: readonly Batch[], readResult: boolean): Promise<Result | undefined>;
  readHealth(): Promise<HealthReport>;
  readOptimizerState(): Promise<OptimizerState>;
  restoreState(t: number, optimizer: OptimizerState): void;
  /** Parameters trained beyond the model's (an inference-free run's query table), which checkpoints keep with it. */
  downloadExtras?(): Promise<Map<string, HostTensor>>;
  restoreExtras?(params: ReadonlyMap<string, HostTensor>): void;
}
