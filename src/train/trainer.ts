// Full SPLADE fine-tuning on the GPU (encoder and head): one step is one command encoder per micro-batch, the paper's recipe.
import type { GpuContext } from '../gpu/context.ts';
import type { HealthReport } from '../kernels/finite-check.ts';
import { dispatchFlopsBudget } from '../kernels/dispatch-budget.ts';
import { GpuEncoderPass } from '../model/gpu-encoder.ts';
import { DROPOUT_STREAMS } from '../model/dropout-sites.ts';
import type { GpuModel } from '../model/gpu-model.ts';
import type { StepLosses } from '../contract/training-report.ts';
import { flopsWeightsAt, microBatches, trainingDropout } from '../contract/recipe-facts.ts';
import {
  LOSS_PART_NAMES,
  LOSS_SLOTS,
  SpladeObjective,
  documentsOf,
  type BatchStats,
  type ObjectiveInputs,
  type StepMeans,
} from './splade-objective.ts';
import { TrainingRecipe, distillSettings, queryTableLr } from '../contract/recipe.ts';
import { equalScoresLoss } from '../contract/loss-levels.ts';
import { takesScoreLists, teacherMargins } from '../contract/teacher-labels.ts';
import { staticQueryPresence, staticQueryVectors } from './static-queries.ts';
import { StaticQueryTable } from '../kernels/static-query-table.ts';
import type { Tensor } from '../gpu/tensor.ts';
import type { HostTensor } from '../io/host-tensor.ts';

/** The internal name of an inference-free run's trained query table (its optimiser moments and checkpoint tensor). */
export const QUERY_WEIGHTS_PARAM = 'query_weights';

/** An inference-free run's trained query table: on the GPU with its gradient, and the batch's token presence. */
interface TrainedQueryTable {
  kernel: StaticQueryTable;
  weights: Tensor<'f32'>;
  dweights: Tensor<'f32'>;
  presence: Tensor<'f32'>;
  hostPresence: Float32Array;
  frozen: ReadonlySet<number>;
}
import { ParameterUpdate, checkStepCount, type OptimizerState } from './parameter-update.ts';

export type { OptimizerState } from './parameter-update.ts';

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
  /** The query encoder pass; null for inference-free SPLADE (queries are the static table's vectors). */
  readonly queries: GpuEncoderPass | null;
  /** Inference-free SPLADE: the per-token query weights (V) a query's vector is made of; null otherwise. */
  private readonly queryWeights: Float32Array | null;
  /** Host scratch of the static query vectors (B, V), for a frozen table. */
  private readonly staticQueries: Float32Array | null;
  /** A trained table (the recipe's inferenceFree.trained), null otherwise. */
  private readonly table: TrainedQueryTable | null;
  readonly documents: GpuEncoderPass;
  readonly objective: SpladeObjective;
  /** Gradient scale, optimiser update, health flags. */
  private readonly update: ParameterUpdate;
  /** Submit each micro-batch's forward and backward apart (a GPU adapter, under a watchdog's per-submit time). */
  private readonly staged: boolean;
  /** With FLOPS over the whole step: the running sums of the micro-batches' per-dimension means (null otherwise). */
  private readonly stepMeans: StepMeans | null;
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
    const inferenceFree = recipe.inferenceFree !== undefined;
    if (inferenceFree && queryWeights?.length !== model.config.vocabSize)
      throw new Error(
        `an inference-free run needs one query weight per token (${model.config.vocabSize}), got ${queryWeights?.length ?? 'none'}`,
      );
    const trained = recipe.inferenceFree?.trained !== undefined;
    this.queryWeights = inferenceFree ? queryWeights! : null;
    this.staticQueries = inferenceFree && !trained ? new Float32Array(B * V) : null;
    this.table = trained
      ? {
          kernel: new StaticQueryTable(ctx, B, V, LOSS_SLOTS.flopsQueries),
          weights: ctx.tensor(`query weights [${V}]`, [V], 'f32', queryWeights!),
          dweights: ctx.tensor(`d query weights [${V}]`, [V], 'f32'),
          presence: ctx.tensor(`query token presence [${B}x${V}]`, [B, V], 'f32'),
          hostPresence: new Float32Array(B * V),
          frozen: new Set(frozenQueryIds),
        }
      : null;
    this.queries = inferenceFree
      ? null
      : new GpuEncoderPass(model, B, Tq, 'queries', { dropout, stream: DROPOUT_STREAMS.queries });
    const dims = { B, Tq, Td, d, V, negatives: recipe.negatives, decoderParts: model.decoderParts };
    this.documents = new GpuEncoderPass(model, documentsOf(dims), Td, 'documents', {
      dropout,
      stream: DROPOUT_STREAMS.documents,
    });
    this.objective = new SpladeObjective(ctx, dims, {
      tau: recipe.tau,
      distill: distillSettings(recipe),
      staticQueries: inferenceFree,
    });
    // the table learns at its own peak lr, on the run's schedule: the step's lr times its lr over the model's
    const extra = this.table
      ? [
          {
            name: QUERY_WEIGHTS_PARAM,
            param: this.table.weights,
            dparam: this.table.dweights,
            decays: true,
            lrScale: queryTableLr(recipe)! / recipe.schedule.peakLr,
          },
        ]
      : [];
    this.update = new ParameterUpdate(ctx, model, recipe, { tensor: this.objective.losses, names: LOSS_PART_NAMES }, extra);
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
  }

  /** Whether any step so far left a loss part, a gradient or an updated parameter Inf or NaN (ParameterUpdate). */
  readHealth(): Promise<HealthReport> {
    return this.update.readHealth();
  }

  /** Reads the optimiser's step count and moments back, keyed by parameter name. */
  readOptimizerState(): Promise<OptimizerState> {
    return this.update.readOptimizerState();
  }

  /** The trained query table's parameters, for checkpoints (none when the run trains no table). */
  async downloadExtras(): Promise<Map<string, HostTensor>> {
    const table = this.table;
    if (!table) return new Map();
    return new Map([[QUERY_WEIGHTS_PARAM, { shape: [table.weights.size], data: await this.ctx.read(table.weights) }]]);
  }

  /** A checkpoint's trained query table, uploaded (a run that trains one refuses a checkpoint without it). */
  restoreExtras(params: ReadonlyMap<string, HostTensor>): void {
    const table = this.table;
    if (!table) return;
    const saved = params.get(QUERY_WEIGHTS_PARAM);
    if (!saved || saved.data.length !== table.weights.size)
      throw new Error(
        `the checkpoint holds no trained query table of ${table.weights.size} weights (${saved ? `${saved.data.length} found` : 'none'})`,
      );
    this.ctx.upload(table.weights, saved.data);
  }

  /** The query table as it is now: trained, or the frozen one given (null for a run that is not inference-free). */
  async readQueryWeights(): Promise<Float32Array | null> {
    return this.table ? this.ctx.read(this.table.weights) : this.queryWeights;
  }

  /** Continues a run: the step t (schedules) and the optimiser's state; the parameters are the model's own. */
  restoreState(t: number, optimizer: OptimizerState): void {
    checkStepCount(t);
    this.update.restoreOptimizer(optimizer);
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
    this.table?.kernel.setLambda(lambdaQ);
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
        if (this.table) this.ctx.clear(encoder, this.table.dweights);
      }
      this.recordForward(encoder);
      if (this.staged) {
        // on a GPU under a watchdog, the forward and the backward are submitted apart
        this.ctx.submit(encoder);
        encoder = this.ctx.encoder(`${label}, backward`);
      }
      this.recordBackward(encoder);
      if (i === n - 1) this.update.record(encoder, this.t);
      this.ctx.submit(encoder);
      if (!readResult) continue;
      addScaled(losses, await this.objective.readLosses(), 1 / n);
      addScaled(batch, await this.objective.readBatchStats(), 1 / n);
      if (distill)
        rankAtEqualScores +=
          equalScoresLoss(distill.kind, recipe.batchSize, recipe.negatives ?? 1, distill.temperature, micro.teacher) / n;
    }
    const step = this.t++;
    if (!readResult) return undefined;
    const norm = await this.update.readGradNorm();
    return {
      step,
      ...losses,
      total: losses.rank + lambdaQ * losses.flopsQueries + lambdaD * losses.flopsDocuments,
      batch,
      gradNorm: norm,
      ...(distill ? { rankAtEqualScores } : {}),
    };
  }

  /** Uploads micro-batch `i` of this step and draws its dropout masks (the same for both passes of a step). */
  private setInputs(micro: TripletBatch, i: number): void {
    if (this.queries) this.queries.setInputs(micro.queryIds, micro.queryMask);
    else if (this.table) {
      const { hostPresence, frozen, presence } = this.table;
      staticQueryPresence(hostPresence, this.model.config.vocabSize, micro.queryIds, micro.queryMask, frozen);
      this.ctx.upload(presence, hostPresence);
    } else this.uploadStaticQueries(micro);
    this.documents.setInputs(micro.documentIds, micro.documentMask);
    const { teacher } = this.objective;
    if (teacher) {
      if (!micro.teacher) throw new Error(`a ${this.recipe.loss} run needs teacher labels in every batch; this one has none`);
      this.ctx.upload(teacher, this.teacherLabels(micro.teacher));
    }
    this.queries?.setDropoutKeys(this.seed, this.t, i);
    this.documents.setDropoutKeys(this.seed, this.t, i);
  }

  /** A micro-batch's teacher labels as the loss reads them: MarginMSE on (B, n + 1) scores takes their margins. */
  private teacherLabels(labels: Float32Array): Float32Array {
    const { batchSize: B, loss = 'contrastive' } = this.recipe;
    const n = this.recipe.negatives ?? 1;
    return takesScoreLists(loss, n, labels.length / B) ? teacherMargins(labels, B, n) : labels;
  }

  /** Inference-free: each query's vector is its tokens' weights (each token once; padding and special tokens 0). */
  private uploadStaticQueries(micro: TripletBatch): void {
    const vectors = this.staticQueries!;
    const weights = this.queryWeights!;
    staticQueryVectors(vectors, weights, micro.queryIds, micro.queryMask);
    this.ctx.upload(this.objective.pooledQueries, vectors);
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
      this.recordQueryVectors(encoder);
      this.queries?.forward(encoder);
      this.documents.forward(encoder);
      this.objective.recordStepMeans(encoder, this.objectiveInputs(), sums);
      this.ctx.submit(encoder);
    }
  }

  private objectiveInputs(): ObjectiveInputs {
    return {
      hiddenQueries: this.queries?.headHidden,
      maskQueries: this.queries?.mask,
      hiddenDocuments: this.documents.headHidden,
      maskDocuments: this.documents.mask,
      weight: this.model.decoderWeight,
      bias: this.model.decoderBias,
    };
  }

  /** A trained table's query vectors of the uploaded micro-batch, into the objective's pooled queries. */
  private recordQueryVectors(encoder: GPUCommandEncoder): void {
    const table = this.table;
    if (table)
      table.kernel.vectors(encoder, { weights: table.weights, presence: table.presence, vectors: this.objective.pooledQueries });
  }

  /**
   * Forward and objective (losses, and the gradients down to the head's input) of the uploaded micro-batch; a trained
   * table's gradient (and its L1, in the query FLOPS slot) too.
   */
  private recordForward(encoder: GPUCommandEncoder): void {
    const { model } = this;
    this.recordQueryVectors(encoder);
    this.queries?.forward(encoder);
    this.documents.forward(encoder);
    this.objective.record(
      encoder,
      this.objectiveInputs(),
      {
        dweight: model.ddecoderWeight,
        dbias: model.ddecoderBias,
        dhiddenQueries: this.queries?.dheadHidden,
        dhiddenDocuments: this.documents.dheadHidden,
      },
      this.stepMeans ?? undefined,
    );
    const table = this.table;
    if (table)
      table.kernel.backward(encoder, {
        weights: table.weights,
        presence: table.presence,
        dvectors: this.objective.dpooledQueries,
        dweights: table.dweights,
        losses: this.objective.losses,
      });
  }

  /** The encoders' backward of the micro-batch: its gradients are added to the model's. */
  private recordBackward(encoder: GPUCommandEncoder): void {
    this.queries?.backward(encoder);
    this.documents.backward(encoder);
  }
}

/** target[key] += scale · values[key], for every key of target. */
function addScaled<T extends object>(target: T, values: T, scale: number): void {
  const into = target as Record<string, number>;
  for (const [key, value] of Object.entries(values) as [string, number][]) into[key] += value * scale;
}
