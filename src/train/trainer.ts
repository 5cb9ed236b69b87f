// Full SPLADE fine-tuning on the GPU (encoder and head): one step is one command encoder per micro-batch, the paper's recipe.
import type { GpuContext } from '../gpu/context.ts';
import type { AdamWState } from '../kernels/adamw.ts';
import { FiniteMonitor, type HealthReport } from '../kernels/finite-check.ts';
import { dispatchFlopsBudget } from '../kernels/dispatch-budget.ts';
import { GradientScale } from '../kernels/grad-norm.ts';
import { GpuEncoderPass } from '../model/gpu-encoder.ts';
import { DROPOUT_STREAMS } from '../model/dropout-sites.ts';
import type { GpuModel } from '../model/gpu-model.ts';
import type { StepLosses } from '../contract/training-report.ts';
import { createOptimizer, type StepOptimizer } from './optimizer.ts';
import { flopsWeightsAt, microBatches, trainingDropout } from '../contract/recipe-facts.ts';
import { learningRate } from '../contract/schedule.ts';
import {
  LOSS_PART_NAMES,
  SpladeObjective,
  documentsOf,
  type BatchStats,
  type ObjectiveInputs,
  type StepMeans,
} from './splade-objective.ts';
import { momentsForParts } from './moment-parts.ts';
import { TrainingRecipe } from '../contract/recipe.ts';

/** One batch of tokenized rows: B queries, then N = (1 + negatives)·B documents (B positives, then B per negative column). */
export interface TripletBatch {
  queryIds: Int32Array; // (B, Tq)
  queryMask: Uint8Array; // (B, Tq)
  documentIds: Int32Array; // (N, Td)
  documentMask: Uint8Array; // (N, Td)
}

/** What one step measured, read back on the steps that ask: the micro-batches' means, and the gradient's norm. */
export interface StepResult extends StepLosses {
  /** Means over the step's micro-batches of their batch statistics. */
  batch: BatchStats;
  /** Global L2 norm of the averaged gradient, before clipping (what transformers' Trainer logs as grad_norm). */
  gradNorm: number;
}

/** The optimiser's state with each parameter's moments under its internal name (layout.ts), for checkpoints. */
export interface OptimizerState {
  step: number;
  moments: Map<string, AdamWState['moments'][number]>;
}

export class SpladeTrainer {
  readonly queries: GpuEncoderPass;
  readonly documents: GpuEncoderPass;
  readonly objective: SpladeObjective;
  private readonly optimizer: StepOptimizer;
  /** The averaged gradient's norm and the scale every update applies (micro-batch mean, clipping). */
  private readonly gradients: GradientScale;
  /** Sticky GPU flags: loss parts, every gradient and every updated parameter, checked at each step. */
  private readonly health: FiniteMonitor;
  /** Submit each micro-batch's forward and backward apart (a GPU adapter, under a watchdog's per-submit time). */
  private readonly staged: boolean;
  /** With FLOPS over the whole step: the running sums of the micro-batches' per-dimension means (null otherwise). */
  private readonly stepMeans: StepMeans | null;
  /** Names of the parameters whose moments the optimiser keeps, in its order (none for SGD). */
  private readonly parameterNames: string[];
  /** Steps taken so far. */
  t = 0;

  /** `seed`: the run's seed, which draws the dropout masks (with the step and the micro-batch). */
  constructor(
    private readonly ctx: GpuContext,
    readonly model: GpuModel,
    readonly recipe: TrainingRecipe,
    private readonly seed = 0,
  ) {
    const { batchSize: B, queryLength: Tq, documentLength: Td } = recipe;
    const { embeddingSize: d, vocabSize: V } = model.config; // d: the decoder rows' width (ALBERT's E)
    const dropout = trainingDropout(recipe, model.config);
    this.queries = new GpuEncoderPass(model, B, Tq, 'queries', { dropout, stream: DROPOUT_STREAMS.queries });
    const dims = { B, Tq, Td, d, V, negatives: recipe.negatives, decoderParts: model.decoderParts };
    this.documents = new GpuEncoderPass(model, documentsOf(dims), Td, 'documents', {
      dropout,
      stream: DROPOUT_STREAMS.documents,
    });
    this.objective = new SpladeObjective(ctx, dims, recipe.tau);
    const parameters = model.parameters();
    this.gradients = new GradientScale(
      ctx,
      parameters.map((p) => p.dparam),
    );
    this.optimizer = createOptimizer(ctx, recipe.optimizer, parameters, this.gradients.scale);
    // SGD keeps no moments: its checkpoints hold none
    this.parameterNames = recipe.optimizer.kind === 'sgd' ? [] : parameters.map((p) => p.name);
    this.staged = Number.isFinite(dispatchFlopsBudget(ctx));
    const n = microBatches(recipe);
    this.stepMeans =
      recipe.flopsOver === 'step' && n > 1
        ? {
            queries: ctx.tensor('step FLOPS means of queries', [V], 'f32'),
            documents: ctx.tensor('step FLOPS means of documents', [V], 'f32'),
            microBatches: n,
          }
        : null;
    this.health = new FiniteMonitor(
      ctx,
      [
        { name: 'loss parts', tensor: this.objective.losses, elements: LOSS_PART_NAMES },
        ...parameters.map((p) => ({ name: `gradient of ${p.name}`, tensor: p.dparam })),
        ...parameters.map((p) => ({ name: `parameter ${p.name} after the update`, tensor: p.param })),
      ],
      'training health',
    );
  }

  /**
   * Whether any step so far left a loss part, a gradient or an updated parameter Inf or NaN, which parts, and the
   * first such step: one readback of a few words, cheap enough for every report and before every checkpoint. The
   * flags are sticky: a bad step between two reports is still seen. (A NaN logit looks like 0 to the head's ReLU,
   * so the losses alone can stay finite while the parameters are already NaN.)
   */
  readHealth(): Promise<HealthReport> {
    return this.health.read();
  }

  /** Reads the optimiser's step count and moments back, keyed by parameter name. */
  async readOptimizerState(): Promise<OptimizerState> {
    const { step, moments } = await this.optimizer.readState();
    return { step, moments: new Map(moments.map((moment, i) => [this.parameterNames[i], moment])) };
  }

  /** Continues a run: the step t (schedules) and the optimiser's state; the parameters are the model's own. */
  restoreState(t: number, optimizer: OptimizerState): void {
    if (!Number.isInteger(t) || t < 0) throw new Error(`trainer step ${t} is not a non-negative integer`);
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
    this.t = t;
  }

  /**
   * One optimiser step over `batches` (the recipe's micro-batches, one submit each: each uploads its own inputs):
   * forward, losses and backward of each, gradients summed; then their scale (mean, clipping) and the update. With
   * `readResult`, waits for each micro-batch and returns the step's mean losses, batch statistics and gradient norm.
   */
  async step(batches: readonly TripletBatch[], readResult: boolean): Promise<StepResult | undefined> {
    const { recipe, model } = this;
    const n = microBatches(recipe);
    if (batches.length !== n)
      throw new Error(`a training step takes ${n} micro-batches (the recipe's accumulation), got ${batches.length}`);
    const { lambdaQueries: lambdaQ, lambdaDocuments: lambdaD } = flopsWeightsAt(recipe, this.t);
    this.objective.setLambdas(lambdaQ, lambdaD);
    const losses = { rank: 0, flopsQueries: 0, flopsDocuments: 0 };
    const batch: BatchStats = { activeQueries: 0, activeDocuments: 0, squaredNormQueries: 0, squaredNormDocuments: 0 };
    if (this.stepMeans) this.recordStepMeans(batches);
    for (const [i, micro] of batches.entries()) {
      this.setInputs(micro, i);
      const label = n > 1 ? `training step ${this.t}, micro-batch ${i + 1} of ${n}` : `training step ${this.t}`;
      let encoder = this.ctx.encoder(label);
      if (i === 0) model.zeroGrads(encoder);
      this.recordForward(encoder);
      if (this.staged) {
        // on a GPU under a watchdog, the forward and the backward are submitted apart
        this.ctx.submit(encoder);
        encoder = this.ctx.encoder(`${label}, backward`);
      }
      this.recordBackward(encoder);
      if (i === n - 1) {
        this.gradients.record(encoder, { maxNorm: recipe.maxGradNorm ?? 0, microBatches: n });
        this.optimizer.record(encoder, learningRate(recipe.schedule, this.t));
        this.health.record(encoder, this.t);
      }
      this.ctx.submit(encoder);
      if (!readResult) continue;
      addScaled(losses, await this.objective.readLosses(), 1 / n);
      addScaled(batch, await this.objective.readBatchStats(), 1 / n);
    }
    const step = this.t++;
    if (!readResult) return undefined;
    const { norm } = await this.gradients.read();
    return {
      step,
      ...losses,
      total: losses.rank + lambdaQ * losses.flopsQueries + lambdaD * losses.flopsDocuments,
      batch,
      gradNorm: norm,
    };
  }

  /** Uploads micro-batch `i` of this step and draws its dropout masks (the same for both passes of a step). */
  private setInputs(micro: TripletBatch, i: number): void {
    this.queries.setInputs(micro.queryIds, micro.queryMask);
    this.documents.setInputs(micro.documentIds, micro.documentMask);
    this.queries.setDropoutKeys(this.seed, this.t, i);
    this.documents.setDropoutKeys(this.seed, this.t, i);
  }

  /** A step's first pass with FLOPS over the whole step: every micro-batch forward, their means summed. */
  private recordStepMeans(batches: readonly TripletBatch[]): void {
    const sums = this.stepMeans!;
    for (const [i, micro] of batches.entries()) {
      this.setInputs(micro, i);
      const encoder = this.ctx.encoder(`training step ${this.t}, FLOPS means of micro-batch ${i + 1}`);
      if (i === 0) {
        this.ctx.clear(encoder, sums.queries);
        this.ctx.clear(encoder, sums.documents);
      }
      this.queries.forward(encoder);
      this.documents.forward(encoder);
      this.objective.recordStepMeans(encoder, this.objectiveInputs(), sums);
      this.ctx.submit(encoder);
    }
  }

  private objectiveInputs(): ObjectiveInputs {
    return {
      hiddenQueries: this.queries.headHidden,
      maskQueries: this.queries.mask,
      hiddenDocuments: this.documents.headHidden,
      maskDocuments: this.documents.mask,
      weight: this.model.decoderWeight,
      bias: this.model.decoderBias,
    };
  }

  /** Forward and objective (losses, and the gradients down to the head's input) of the uploaded micro-batch. */
  private recordForward(encoder: GPUCommandEncoder): void {
    const { model } = this;
    this.queries.forward(encoder);
    this.documents.forward(encoder);
    this.objective.record(
      encoder,
      this.objectiveInputs(),
      {
        dweight: model.ddecoderWeight,
        dbias: model.ddecoderBias,
        dhiddenQueries: this.queries.dheadHidden,
        dhiddenDocuments: this.documents.dheadHidden,
      },
      this.stepMeans ?? undefined,
    );
  }

  /** The encoders' backward of the micro-batch: its gradients are added to the model's. */
  private recordBackward(encoder: GPUCommandEncoder): void {
    this.queries.backward(encoder);
    this.documents.backward(encoder);
  }
}

/** target[key] += scale · values[key], for every key of target. */
function addScaled<T extends object>(target: T, values: T, scale: number): void {
  const into = target as Record<string, number>;
  for (const [key, value] of Object.entries(values) as [string, number][]) into[key] += value * scale;
}
