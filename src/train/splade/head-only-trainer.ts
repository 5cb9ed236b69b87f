// Head-only SPLADE training (frozen hidden states; AdamW on the decoder matrix and bias): the smallest real
// training loop, used by the smoke test, the benchmark and the teaching demo.
import { wholeMatrix } from '../../gpu/row-parts.ts';
import type { GpuContext } from '../../gpu/context.ts';
import type { Tensor } from '../../gpu/tensor.ts';
import { AdamW } from '../../kernels/adamw.ts';
import { FiniteMonitor, type HealthReport } from '../../kernels/finite-check.ts';
import type { AdamWHyper } from '../../kernels/host/adamw-hyper.ts';
import { flopsWeight, learningRate, type LinearSchedule } from '../../contract/training/schedule.ts';
import { LOSS_PART_NAMES, SpladeObjective, type ObjectiveInputs, type SpladeObjectiveDims } from './splade-objective.ts';
import { StepLosses } from '../../contract/training/training-report.ts';

export interface HeadOnlyRecipe {
  optimizer: Omit<AdamWHyper, 'lr'>;
  schedule: LinearSchedule;
  lambdaQueries: number;
  lambdaDocuments: number;
  tau: number;
  /** Fraction of the steps over which the FLOPS weights ramp up (absent: a third, as the full trainer; 0: none). */
  flopsRampRatio?: number;
}

export class HeadOnlyTrainer {
  readonly objective: SpladeObjective;
  private readonly dweight: Tensor<'f32'>;
  private readonly dbias: Tensor<'f32'>;
  private readonly optimizer: AdamW;
  private readonly health: FiniteMonitor;
  private t = 0;

  /** `inputs.weight` and `inputs.bias` are trained in place. */
  constructor(
    private readonly ctx: GpuContext,
    dims: SpladeObjectiveDims,
    private readonly inputs: ObjectiveInputs,
    private readonly recipe: HeadOnlyRecipe,
  ) {
    this.objective = new SpladeObjective(ctx, dims, { tau: recipe.tau });
    this.dweight = ctx.tensor('dweight', [dims.V, dims.d], 'f32');
    this.dbias = ctx.tensor('dbias', [dims.V], 'f32');
    const weight = wholeMatrix(inputs.weight, 'head-only training');
    this.optimizer = new AdamW(ctx, [
      { param: weight, dparam: this.dweight },
      { param: inputs.bias, dparam: this.dbias },
    ]);
    this.health = new FiniteMonitor(
      ctx,
      [
        { name: 'loss parts', tensor: this.objective.losses, elements: LOSS_PART_NAMES },
        { name: 'gradient of the decoder weight', tensor: this.dweight },
        { name: 'gradient of the decoder bias', tensor: this.dbias },
        { name: 'decoder weight after the update', tensor: weight },
        { name: 'decoder bias after the update', tensor: inputs.bias },
      ],
      'head-only health',
    );
  }

  /** As SpladeTrainer.readHealth: sticky flags of the loss parts, gradients and updated parameters, one readback. */
  readHealth(): Promise<HealthReport> {
    return this.health.read();
  }

  /** One step in one command encoder; reads the losses back only when `readLosses`. */
  async step(readLosses: boolean): Promise<StepLosses | undefined> {
    const { recipe } = this;
    const total = recipe.schedule.totalSteps;
    const lambdaQ = flopsWeight(recipe.lambdaQueries, this.t, total, recipe.flopsRampRatio);
    const lambdaD = flopsWeight(recipe.lambdaDocuments, this.t, total, recipe.flopsRampRatio);
    this.objective.setLambdas(lambdaQ, lambdaD);
    const lr = learningRate(recipe.schedule, this.t);
    const encoder = this.ctx.encoder(`head-only step ${this.t}`);
    this.ctx.clear(encoder, this.dweight);
    this.ctx.clear(encoder, this.dbias);
    this.objective.record(encoder, this.inputs, { dweight: this.dweight, dbias: this.dbias });
    this.optimizer.record(encoder, { ...recipe.optimizer, lr });
    this.health.record(encoder, this.t);
    this.ctx.submit(encoder);
    const step = this.t++;
    if (!readLosses) return undefined;
    const l = await this.objective.readLosses();
    return { step, ...l, total: l.rank + lambdaQ * l.flopsQueries + lambdaD * l.flopsDocuments };
  }
}
