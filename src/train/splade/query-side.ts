// Where a SPLADE run's query vectors come from (QuerySide): encoded by the model, a frozen static table, or a trained
// table (inference-free SPLADE); what each kind builds, uploads per batch, records in a step and keeps in checkpoints.
import type { GpuContext } from '../../gpu/context.ts';
import type { Tensor } from '../../gpu/tensor.ts';
import type { OptimizedParameter } from '../../kernels/adamw.ts';
import { StaticQueryTable } from '../../kernels/static-query-table.ts';
import { DROPOUT_STREAMS } from '../../model/dropout-sites.ts';
import { GpuEncoderPass } from '../../model/gpu-encoder.ts';
import type { GpuModel, GpuParameter } from '../../model/gpu-model.ts';
import type { HostTensor } from '../../io/host-tensor.ts';
import { queryTableLr, type TrainingRecipe } from '../../contract/training/recipe.ts';
import { trainingDropout } from '../../contract/training/recipe-facts.ts';
import { staticQueryPresence, staticQueryVectors } from './static-queries.ts';

/** The internal name of an inference-free run's trained query table (its optimiser moments and checkpoint tensor). */
export const QUERY_WEIGHTS_PARAM = 'query_weights';

/** The queries are encoded by the model, as the documents are. */
export interface EncodedQuerySide {
  readonly kind: 'encoded';
  /** The query encoder pass (B, Tq): the model's, with its own dropout stream. */
  readonly pass: GpuEncoderPass;
}

/** Inference-free, frozen: a query is its tokens weighted by a static table (IDF), made on the host per batch. */
export interface FrozenTableSide {
  readonly kind: 'frozen-table';
  readonly weights: Float32Array; // (V)
  /** Host scratch of the batch's query vectors, uploaded into the objective's pooled queries. */
  readonly vectors: Float32Array; // (B, V)
}

/** Inference-free, trained (the recipe's inferenceFree.trained): the table is a parameter on the GPU. */
export interface TrainedTableSide {
  readonly kind: 'trained-table';
  /** The batch's vectors from the table, and backward the table's gradient with the L1 on the queries. */
  readonly kernel: StaticQueryTable;
  readonly weights: Tensor<'f32'>; // (V)
  readonly dweights: Tensor<'f32'>; // (V)
  /** Each query's token presence (1 where query b holds token id and the id is not frozen). */
  readonly presence: Tensor<'f32'>; // (B, V)
  readonly hostPresence: Float32Array; // (B, V)
  /** Ids left at their weight (the tokenizer's special tokens). */
  readonly frozen: ReadonlySet<number>;
  /** The optimiser's view: the table learns at its own peak lr on the run's schedule (its lr over the model's). */
  readonly lrScale: number;
}

export type QuerySide = EncodedQuerySide | FrozenTableSide | TrainedTableSide;
export type QueryKind = QuerySide['kind'];

/** The objective's tensors a table's queries feed and read (SpladeObjective has them). */
export interface QueryTensors {
  readonly pooledQueries: Tensor<'f32'>; // (B, V) the vectors the objective scores
  readonly dpooledQueries: Tensor<'f32'>; // (B, V) their gradient, after the objective
  readonly losses: Tensor<'f32'>; // the loss parts; a trained table writes its L1 in its slot
}

/** A micro-batch's queries as token rows. */
export interface QueryRows {
  queryIds: Int32Array; // (B, Tq)
  queryMask: Uint8Array; // (B, Tq)
}

/**
 * The query side `recipe` asks for: encoded without its `inferenceFree`; with it, the table `queryWeights` (V), frozen,
 * or trained when the recipe says so except the `frozenIds`. A trained table's unweighted L1 goes to losses[`l1Slot`].
 */
export function createQuerySide(
  ctx: GpuContext,
  model: GpuModel,
  recipe: TrainingRecipe,
  table: { queryWeights?: Float32Array; frozenIds: readonly number[]; l1Slot: number },
): QuerySide {
  const { batchSize: B, queryLength: Tq } = recipe;
  const V = model.config.vocabSize;
  const { queryWeights } = table;
  if (!recipe.inferenceFree) {
    const dropout = trainingDropout(recipe, model.config);
    return { kind: 'encoded', pass: new GpuEncoderPass(model, B, Tq, 'queries', { dropout, stream: DROPOUT_STREAMS.queries }) };
  }
  if (queryWeights?.length !== V)
    throw new Error(`an inference-free run needs one query weight per token (${V}), got ${queryWeights?.length ?? 'none'}`);
  if (!recipe.inferenceFree.trained) return { kind: 'frozen-table', weights: queryWeights, vectors: new Float32Array(B * V) };
  return {
    kind: 'trained-table',
    kernel: new StaticQueryTable(ctx, B, V, table.l1Slot),
    weights: ctx.tensor(`query weights [${V}]`, [V], 'f32', queryWeights),
    dweights: ctx.tensor(`d query weights [${V}]`, [V], 'f32'),
    presence: ctx.tensor(`query token presence [${B}x${V}]`, [B, V], 'f32'),
    hostPresence: new Float32Array(B * V),
    frozen: new Set(table.frozenIds),
    lrScale: queryTableLr(recipe)! / recipe.schedule.peakLr,
  };
}

/** The query encoder pass, when the model encodes the queries; null for a table's. */
export function queryEncoder(side: QuerySide): GpuEncoderPass | null {
  return side.kind === 'encoded' ? side.pass : null;
}

/** Parameters the side trains beyond the model's, for the optimiser: a trained table's weights, else none. */
export function queryParameters(side: QuerySide): (GpuParameter & Pick<OptimizedParameter, 'lrScale'>)[] {
  if (side.kind !== 'trained-table') return [];
  return [{ name: QUERY_WEIGHTS_PARAM, param: side.weights, dparam: side.dweights, decays: true, lrScale: side.lrScale }];
}

/** The step's weight of a trained table's L1 (the query FLOPS weight, after its ramp); other kinds have none. */
export function setQueryLambda(side: QuerySide, lambdaQueries: number): void {
  if (side.kind === 'trained-table') side.kernel.setLambda(lambdaQueries);
}

/**
 * Uploads a micro-batch's queries: an encoder's ids and mask (and the micro-batch's dropout keys), a frozen table's
 * vectors (each token once; padding 0) into the objective's pooled queries, or a trained table's token presence.
 */
export function setQueryInputs(
  ctx: GpuContext,
  side: QuerySide,
  rows: QueryRows,
  objective: QueryTensors,
  dropout: { seed: number; step: number; microBatch: number },
): void {
  switch (side.kind) {
    case 'encoded':
      side.pass.setInputs(rows.queryIds, rows.queryMask);
      side.pass.setDropoutKeys(dropout.seed, dropout.step, dropout.microBatch);
      return;
    case 'frozen-table':
      staticQueryVectors(side.vectors, side.weights, rows.queryIds, rows.queryMask);
      ctx.upload(objective.pooledQueries, side.vectors);
      return;
    case 'trained-table':
      staticQueryPresence(side.hostPresence, side.weights.size, rows.queryIds, rows.queryMask, side.frozen);
      ctx.upload(side.presence, side.hostPresence);
      return;
  }
}

/** A step's first micro-batch: clears a trained table's gradient (the model's are the model's to clear). */
export function clearQueryGrads(ctx: GpuContext, encoder: GPUCommandEncoder, side: QuerySide): void {
  if (side.kind === 'trained-table') ctx.clear(encoder, side.dweights);
}

/**
 * The uploaded micro-batch's queries, before the objective: the encoder's forward (into its head hidden states), or a
 * trained table's vectors into the objective's pooled queries; a frozen table's are uploaded already.
 */
export function recordQueryForward(encoder: GPUCommandEncoder, side: QuerySide, objective: QueryTensors): void {
  switch (side.kind) {
    case 'encoded':
      side.pass.forward(encoder);
      return;
    case 'frozen-table':
      return;
    case 'trained-table':
      side.kernel.vectors(encoder, { weights: side.weights, presence: side.presence, vectors: objective.pooledQueries });
      return;
  }
}

/** What the objective reads of encoded queries: their head hidden states and mask, and where their gradient goes. */
export function queryHidden(side: QuerySide): { hiddenQueries?: Tensor; maskQueries?: Tensor; dhiddenQueries?: Tensor } {
  if (side.kind !== 'encoded') return {};
  return { hiddenQueries: side.pass.headHidden, maskQueries: side.pass.mask, dhiddenQueries: side.pass.dheadHidden };
}

/**
 * After the objective: the encoder's backward (its gradients added to the model's), or a trained table's gradient
 * from the objective's dpooled queries, and its L1 into the losses; a frozen table takes no gradient.
 */
export function recordQueryBackward(encoder: GPUCommandEncoder, side: QuerySide, objective: QueryTensors): void {
  switch (side.kind) {
    case 'encoded':
      side.pass.backward(encoder);
      return;
    case 'frozen-table':
      return;
    case 'trained-table':
      side.kernel.backward(encoder, {
        weights: side.weights,
        presence: side.presence,
        dvectors: objective.dpooledQueries,
        dweights: side.dweights,
        losses: objective.losses,
      });
      return;
  }
}

/** The query table as it is now: trained (read back), or the frozen one given; null for encoded queries. */
export async function readQueryTable(ctx: GpuContext, side: QuerySide): Promise<Float32Array | null> {
  switch (side.kind) {
    case 'encoded':
      return null;
    case 'frozen-table':
      return side.weights;
    case 'trained-table':
      return ctx.read(side.weights);
  }
}

/** A trained table's parameters, for checkpoints (none for the other kinds). */
export async function downloadQueryTable(ctx: GpuContext, side: QuerySide): Promise<Map<string, HostTensor>> {
  if (side.kind !== 'trained-table') return new Map();
  return new Map([[QUERY_WEIGHTS_PARAM, { shape: [side.weights.size], data: await ctx.read(side.weights) }]]);
}

/** A checkpoint's trained table, uploaded (a side that trains one refuses a checkpoint without it). */
export function restoreQueryTable(ctx: GpuContext, side: QuerySide, params: ReadonlyMap<string, HostTensor>): void {
  if (side.kind !== 'trained-table') return;
  const saved = params.get(QUERY_WEIGHTS_PARAM);
  if (!saved || saved.data.length !== side.weights.size)
    throw new Error(
      `the checkpoint holds no trained query table of ${side.weights.size} weights (${saved ? `${saved.data.length} found` : 'none'})`,
    );
  ctx.upload(side.weights, saved.data);
}
