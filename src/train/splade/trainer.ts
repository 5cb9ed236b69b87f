// Full SPLADE fine-tuning on the GPU (encoder and head): one step is one command encoder per micro-batch, the paper's recipe.
import type { GpuContext } from '../../gpu/context.ts';
import type { Tensor } from '../../gpu/tensor.ts';
import type { HealthReport } from '../../kernels/finite-check.ts';
import { dispatchFlopsBudget } from '../../kernels/dispatch-budget.ts';
import { GpuEncoderPass } from '../../model/gpu-encoder.ts';
import { DROPOUT_STREAMS } from '../../model/dropout-sites.ts';
import type { GpuModel } from '../../model/gpu-model.ts';
import type { StepLosses } from '../../contract/training/training-report.ts';
import { flopsWeightsAt, microBatches, trainingDropout } from '../../contract/training/recipe-facts.ts';
import {
  LOSS_PART_NAMES,
  LOSS_SLOTS,
  SpladeObjective,
  documentsOf,
  type BatchStats,
  type ObjectiveInputs,
  type StepMeans,
} from './splade-objective.ts';
import { TrainingRecipe, distillSettings } from '../../contract/training/recipe.ts';
import { equalScoresLoss } from '../../contract/training/loss-levels.ts';
import { takesScoreLists, teacherMargins } from '../../contract/training/teacher-labels.ts';
import type { HostTensor } from '../../io/host-tensor.ts';
import { ParameterUpdate, checkStepCount, type OptimizerState } from '../parameter-update.ts';
import {
  clearQueryGrads,
  createQuerySide,
  downloadQueryTable,
  queryEncoder,
  queryHidden,
  queryParameters,
  readQueryTable,
  recordQueryBackward,
  recordQueryForward,
  restoreQueryTable,
  setQueryInputs,
  setQueryLambda,
  type QuerySide,
} from './query-side.ts';

export type { OptimizerState } from '../parameter-update.ts';
export { QUERY_WEIGHTS_PARAM } from './query-side.ts';

/** One batch of tokenized rows: B queries, then N = (1 + negatives)·B documents (B positives, then B per negative column). */
export interface TripletBatch {
  queryIds: Int32Array; // (B, Tq)
  queryMask: Uint8Array; // (B, Tq)
  documentIds: Int32Array; // (N, Td)
  documentMask: Uint8Array; // (N, Td)
  /**
   * Teacher labels of the rows, for distillation: (B, n) margins or (B, n + 1) scores [pos, neg_1..n] (MarginMSE
   * takes the margins of scores: teacherMargins).
   */
  teacher?: Float32Array;
}

/** What one step measured, read back on the steps that ask: the micro-batches' means, and the gradient's norm. */
export interface StepResult extends StepLosses {
  /** Means over the step's micro-batches of their batch statistics. */
  batch: BatchStats;
  /** Global L2 norm of the averaged gradient, before clipping (what transformers' Trainer logs as grad_norm). */
  gradNorm: number;
  /** Distillation: the mean over the micro-batches of the ranking loss equal student scores give (loss-levels.ts). */
  rankAtEqualScores?: number;
}

export class SpladeTrainer {
  /** Where the queries come from: the model's encoder, or (inference-free SPLADE) a frozen or a trained table. */
  readonly querySide: QuerySide;
  readonly documents: GpuEncoderPass;
  readonly objective: SpladeObjective;
  /** Gradient scale, optimiser update, health flags. */
  private readonly update: ParameterUpdate;
  /** Submit each micro-batch's forward and backward apart (a GPU adapter, under a watchdog's per-submit time). */
  private readonly staged: boolean;
  /** With FLOPS over the whole step: the running sums of the micro-batches' per-dimension means (null otherwise). */
  private readonly stepMeans: StepMeans | null;
  /** With micro-batches: each earlier micro-batch's copies of the objective's report tensors, read with the last's. */
  private readonly reportCopies: Tensor[][];
  /** The health flags as a report step's one readback found them after step `t` (null: read them when asked). */
  private healthAfter: { t: number; report: HealthReport } | null = null;
  /** Steps taken so far. */
  t = 0;

  /**
   * `seed`: the run's seed, which draws the dropout masks (with the step and the micro-batch). `queryWeights` (V):
   * inference-free SPLADE, a query is its tokens weighted by this table (needed when the recipe is inference-free);
   * trained when the recipe says so, except the `frozenQueryIds` (the tokenizer's special tokens).
   */
  constructor(
    private readonly ctx: GpuContext,
    readonly model: GpuModel,
    readonly recipe: TrainingRecipe,
    private readonly seed = 0,
    queryWeights?: Float32Array,
    frozenQueryIds: readonly number[] = [],
  ) {
    const { batchSize: B, queryLength: Tq, documentLength: Td } = recipe;
    const { embeddingSize: d, vocabSize: V } = model.config; // d: the decoder rows' width (ALBERT's E)
    const dropout = trainingDropout(recipe, model.config);
    this.querySide = createQuerySide(ctx, model, recipe, {
      queryWeights,
      frozenIds: frozenQueryIds,
      l1Slot: LOSS_SLOTS.flopsQueries,
    });
    const dims = { B, Tq, Td, d, V, negatives: recipe.negatives, decoderParts: model.decoderParts };
    this.documents = new GpuEncoderPass(model, documentsOf(dims), Td, 'documents', {
      dropout,
      stream: DROPOUT_STREAMS.documents,
    });
    this.objective = new SpladeObjective(ctx, dims, {
      tau: recipe.tau,
      distill: distillSettings(recipe),
      queries: this.querySide.kind,
    });
    const losses = { tensor: this.objective.losses, names: LOSS_PART_NAMES };
    this.update = new ParameterUpdate(ctx, model, recipe, losses, queryParameters(this.querySide));
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
    this.reportCopies = Array.from({ length: n - 1 }, (_, i) =>
      this.objective.reportTensors.map((t) => ctx.tensor(`${t.label} of micro-batch ${i + 1}`, [t.size], t.dtype)),
    );
  }

  /** Whether any step so far left a loss part, a gradient or an updated parameter Inf or NaN (ParameterUpdate). */
  readHealth(): Promise<HealthReport> {
    // a report step read the flags with its losses, and nothing ran on the GPU since: no second readback
    if (this.healthAfter?.t === this.t) return Promise.resolve(this.healthAfter.report);
    return this.update.readHealth();
  }

  /** Reads the optimiser's step count and moments back, keyed by parameter name. */
  readOptimizerState(): Promise<OptimizerState> {
    return this.update.readOptimizerState();
  }

  /** The query encoder pass, when the model encodes the queries (null for inference-free SPLADE: see querySide). */
  get queries(): GpuEncoderPass | null {
    return queryEncoder(this.querySide);
  }

  /** The trained query table's parameters, for checkpoints (none when the run trains no table). */
  downloadExtras(): Promise<Map<string, HostTensor>> {
    return downloadQueryTable(this.ctx, this.querySide);
  }

  /** A checkpoint's trained query table, uploaded (a run that trains one refuses a checkpoint without it). */
  restoreExtras(params: ReadonlyMap<string, HostTensor>): void {
    restoreQueryTable(this.ctx, this.querySide, params);
  }

  /** The query table as it is now: trained, or the frozen one given (null for a run that is not inference-free). */
  readQueryWeights(): Promise<Float32Array | null> {
    return readQueryTable(this.ctx, this.querySide);
  }

  /** Continues a run: the step t (schedules) and the optimiser's state; the parameters are the model's own. */
  restoreState(t: number, optimizer: OptimizerState): void {
    checkStepCount(t);
    this.update.restoreOptimizer(optimizer);
    this.t = t;
    this.healthAfter = null;
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
    setQueryLambda(this.querySide, lambdaQ);
    const losses = { rank: 0, flopsQueries: 0, flopsDocuments: 0 };
    const distill = distillSettings(recipe);
    let rankAtEqualScores = 0;
    const batch: BatchStats = { activeQueries: 0, activeDocuments: 0, squaredNormQueries: 0, squaredNormDocuments: 0 };
    if (this.stepMeans) this.recordStepMeans(batches);
    for (const [i, micro] of batches.entries()) {
      this.setInputs(micro, i);
      const label = n > 1 ? `training step ${this.t}, micro-batch ${i + 1} of ${n}` : `training step ${this.t}`;
      let encoder = this.ctx.encoder(label);
      if (i === 0) {
        model.zeroGrads(encoder);
        clearQueryGrads(this.ctx, encoder, this.querySide);
      }
      this.recordForward(encoder);
      if (this.staged) {
        // on a GPU under a watchdog, the forward and the backward are submitted apart
        this.ctx.submit(encoder);
        encoder = this.ctx.encoder(`${label}, backward`);
      }
      this.recordBackward(encoder);
      if (i === n - 1) this.update.record(encoder, this.t);
      else if (readResult) this.copyReport(encoder, this.reportCopies[i]);
      this.ctx.submit(encoder);
      if (readResult && distill)
        rankAtEqualScores +=
          equalScoresLoss(distill.kind, recipe.batchSize, recipe.negatives ?? 1, distill.temperature, micro.teacher) / n;
    }
    const step = this.t++;
    this.healthAfter = null;
    if (!readResult) return undefined;
    // one readback for the whole report: every micro-batch's losses and statistics, the gradient norm, the health
    const parts = this.objective.reportTensors.length;
    const read = await this.ctx.readAll([
      ...this.reportCopies.flat(),
      ...this.objective.reportTensors,
      ...this.update.reportTensors,
    ]);
    for (let i = 0; i < n; i++) {
      const micro = this.objective.reportFrom(read.slice(i * parts, (i + 1) * parts));
      addScaled(losses, micro.losses, 1 / n);
      addScaled(batch, micro.batch, 1 / n);
    }
    const { gradNorm: norm, health } = this.update.reportFrom(read.slice(n * parts));
    this.healthAfter = { t: this.t, report: health };
    return {
      step,
      ...losses,
      total: losses.rank + lambdaQ * losses.flopsQueries + lambdaD * losses.flopsDocuments,
      batch,
      gradNorm: norm,
      ...(distill ? { rankAtEqualScores } : {}),
    };
  }

  /** Copies the objective's report tensors of this micro-batch before the next one overwrites them. */
  private copyReport(encoder: GPUCommandEncoder, copies: readonly Tensor[]): void {
    this.objective.reportTensors.forEach((t, i) => this.ctx.copy(encoder, t.buffer, 0, copies[i].buffer, 0, t.size * 4));
  }

  /** Uploads micro-batch `i` of this step and draws its dropout masks (the same for both passes of a step). */
  private setInputs(micro: TripletBatch, i: number): void {
    setQueryInputs(this.ctx, this.querySide, micro, this.objective, { seed: this.seed, step: this.t, microBatch: i });
    this.documents.setInputs(micro.documentIds, micro.documentMask);
    const { teacher } = this.objective;
    if (teacher) {
      if (!micro.teacher) throw new Error(`a ${this.recipe.loss} run needs teacher labels in every batch; this one has none`);
      this.ctx.upload(teacher, this.teacherLabels(micro.teacher));
    }
    this.documents.setDropoutKeys(this.seed, this.t, i);
  }

  /** A micro-batch's teacher labels as the loss reads them: MarginMSE on (B, n + 1) scores takes their margins. */
  private teacherLabels(labels: Float32Array): Float32Array {
    const { batchSize: B, loss = 'contrastive' } = this.recipe;
    const n = this.recipe.negatives ?? 1;
    return takesScoreLists(loss, n, labels.length / B) ? teacherMargins(labels, B, n) : labels;
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
      recordQueryForward(encoder, this.querySide, this.objective);
      this.documents.forward(encoder);
      this.objective.recordStepMeans(encoder, this.objectiveInputs(), sums);
      this.ctx.submit(encoder);
    }
  }

  private objectiveInputs(): ObjectiveInputs {
    const { hiddenQueries, maskQueries } = queryHidden(this.querySide);
    return {
      hiddenQueries,
      maskQueries,
      hiddenDocuments: this.documents.headHidden,
      maskDocuments: this.documents.mask,
      weight: this.model.decoderWeight,
      bias: this.model.decoderBias,
    };
  }

  /** Forward and objective (losses, and the gradients down to the head's input) of the uploaded micro-batch. */
  private recordForward(encoder: GPUCommandEncoder): void {
    const { model } = this;
    recordQueryForward(encoder, this.querySide, this.objective);
    this.documents.forward(encoder);
    this.objective.record(
      encoder,
      this.objectiveInputs(),
      {
        dweight: model.ddecoderWeight,
        dbias: model.ddecoderBias,
        dhiddenQueries: queryHidden(this.querySide).dhiddenQueries,
        dhiddenDocuments: this.documents.dheadHidden,
      },
      this.stepMeans ?? undefined,
    );
  }

  /**
   * The micro-batch's backward below the objective: the query side's (the encoder's gradients added to the model's, or
   * a trained table's gradient and its L1, in the query FLOPS slot), then the document encoder's.
   */
  private recordBackward(encoder: GPUCommandEncoder): void {
    recordQueryBackward(encoder, this.querySide, this.objective);
    this.documents.backward(encoder);
  }
}

/** target[key] += scale · values[key], for every key of target. */
function addScaled<T extends object>(target: T, values: T, scale: number): void {
  const into = target as Record<string, number>;
  for (const [key, value] of Object.entries(values) as [string, number][]) into[key] += value * scale;
}
