// Float64 SPLADE training objective of one micro-batch over the whole model (encoder and head): the loss parts and
// the gradient of every parameter, composed from the float64 model and the kernels' loss references (tests only).
import { contrastiveLossBackward, contrastiveLossForward } from '../../kernels/reference/contrastive-loss.ts';
import {
  klDistillBackward,
  klDistillForward,
  marginMseBackward,
  marginMseForward,
} from '../../kernels/reference/distill-loss.ts';
import { flopsLossBackward, flopsLossForward } from '../../kernels/reference/flops-loss.ts';
import { sparseScoresBackward, sparseScoresForward } from '../../kernels/reference/sparse-scores.ts';
import { dropoutKey } from '../../kernels/reference/dropout.ts';
import type { DropoutRates, ModelConfig } from '../../contract/model/model-config.ts';
import { DROPOUT_STREAMS, dropoutSiteId } from '../../model/dropout-sites.ts';
import { zerosLike, type ModelParams } from '../../model/layout.ts';
import { spladeBackward, spladeForward } from '../../model/reference/splade.ts';
import type { TripletBatch } from './trainer.ts';
import type { RankingLossKind } from '../../contract/training/recipe.ts';
import { staticQueryPresence, staticQueryVectors } from './static-queries.ts';
import { staticTableBackward, staticTableL1, staticTableVectors } from '../../kernels/reference/static-query-table.ts';
import { takesScoreLists, teacherMargins } from '../../contract/training/teacher-labels.ts';

/** The ranking loss of scores (B, N) and its gradient: contrastive, or distillation from the batch's teacher labels. */
function rankingLoss(
  scores: Float64Array,
  B: number,
  N: number,
  settings: Pick<TrainingReferenceSettings, 'tau' | 'loss'>,
  batch: TripletBatch,
): { value: number; dscores: Float64Array } {
  const { tau, loss = 'contrastive' } = settings;
  if (loss === 'contrastive')
    return { value: contrastiveLossForward(scores, B, N, tau), dscores: contrastiveLossBackward(scores, B, N, tau) };
  const n = N / B - 1;
  const labels = batch.teacher;
  if (!labels) throw new Error(`the ${loss} reference needs the batch's teacher labels`);
  // MarginMSE on [pos, neg_1..n] scores: their margins pos - neg_i, as sentence-transformers takes them
  const teacher = takesScoreLists(loss, n, labels.length / B) ? teacherMargins(labels, B, n) : labels;
  return loss === 'kl'
    ? { value: klDistillForward(scores, teacher, B, n, tau), dscores: klDistillBackward(scores, teacher, B, n, tau) }
    : { value: marginMseForward(scores, teacher, B, n), dscores: marginMseBackward(scores, teacher, B, n) };
}

export interface TrainingReferenceSettings {
  /** Padded lengths of the batch's queries and documents. */
  queryLength: number;
  documentLength: number;
  /** Temperature of the contrastive loss, or of the KL loss when `loss` is 'kl'. */
  tau: number;
  lambdaQueries: number;
  lambdaDocuments: number;
  /** The ranking loss (absent: contrastive); a distillation loss reads the batch's teacher labels. */
  loss?: RankingLossKind;
  /** Inference-free: queries are their tokens weighted by this table (V); no query encoder, no query FLOPS. */
  queryWeights?: Float32Array;
  /**
   * The table is trained (with queryWeights): queries hold their tokens but these ids; lambdaQueries then weighs the
   * L1 of the query vectors, and the table's gradient is returned.
   */
  trainedQueryTable?: { frozenIds: readonly number[] };
  /** Dropout as the trainer draws it: the rates, the run's seed, the step and the micro-batch (absent: none). */
  dropout?: { rates: DropoutRates; seed: number; step: number; microBatch: number };
}

export interface TrainingReferenceResult {
  rank: number;
  flopsQueries: number;
  flopsDocuments: number;
  /** rank + λq · FLOPS(queries) + λd · FLOPS(documents) */
  total: number;
  /** d total / d parameter, for every parameter of the model (zeros for those the loss does not reach). */
  grads: ModelParams;
  /** d total / d query table, when the table is trained. */
  dqueryWeights?: Float64Array;
}

/** The loss and every gradient of one micro-batch: B queries against its N documents (positives, then negatives). */
export function spladeTrainingReference(
  config: ModelConfig,
  params: ModelParams,
  batch: TripletBatch,
  settings: TrainingReferenceSettings,
): TrainingReferenceResult {
  const { queryLength: Tq, documentLength: Td, lambdaQueries, lambdaDocuments } = settings;
  const B = batch.queryIds.length / Tq;
  const N = batch.documentIds.length / Td; // B positives, then B per negative column
  const V = config.vocabSize;
  if (!Number.isInteger(B) || !Number.isInteger(N / B) || N < 2 * B) {
    throw new RangeError(
      `batch of ${batch.queryIds.length} query and ${batch.documentIds.length} document ids does not fit lengths ${Tq} and ${Td}`,
    );
  }
  const dropout = (stream: number) => {
    const d = settings.dropout;
    return d && { rates: d.rates, key: (site: number) => dropoutKey(d.seed, d.step, d.microBatch, dropoutSiteId(stream, site)) };
  };
  const table = settings.queryWeights;
  const queries = table
    ? null
    : spladeForward(config, params, {
        ids: batch.queryIds,
        mask: batch.queryMask,
        B,
        T: Tq,
        dropout: dropout(DROPOUT_STREAMS.queries),
      });
  const trained = table && settings.trainedQueryTable;
  const frozen = new Set(trained ? trained.frozenIds : []);
  const presence = trained ? staticQueryPresence(new Float32Array(B * V), V, batch.queryIds, batch.queryMask, frozen) : null;
  const weights = table ? Float64Array.from(table) : null;
  const pooledQueries = queries
    ? queries.pooled
    : presence
      ? staticTableVectors(weights!, presence, B)
      : Float64Array.from(staticQueryVectors(new Float32Array(B * V), table!, batch.queryIds, batch.queryMask));
  const documents = spladeForward(config, params, {
    ids: batch.documentIds,
    mask: batch.documentMask,
    B: N,
    T: Td,
    dropout: dropout(DROPOUT_STREAMS.documents),
  });
  const scores = sparseScoresForward(pooledQueries, documents.pooled, B, N, V);
  const ranking = rankingLoss(scores, B, N, settings, batch);
  const rank = ranking.value;
  // static queries have no FLOPS: a frozen table's are data (no gradient), a trained one's carry an L1 instead
  const flopsQueries = queries ? flopsLossForward(pooledQueries, B, V) : presence ? staticTableL1(weights!, presence, B) : 0;
  const flopsDocuments = flopsLossForward(documents.pooled, N, V);
  const { dqueries, ddocs } = sparseScoresBackward(pooledQueries, documents.pooled, ranking.dscores, B, N, V);
  const dqueryWeights = presence ? staticTableBackward(weights!, presence, dqueries, B, lambdaQueries) : undefined;
  const fq = flopsLossBackward(pooledQueries, B, V, lambdaQueries);
  const fd = flopsLossBackward(documents.pooled, N, V, lambdaDocuments);
  for (let i = 0; i < dqueries.length; i++) dqueries[i] += fq[i];
  for (let i = 0; i < ddocs.length; i++) ddocs[i] += fd[i];
  const grads = zerosLike(config);
  if (queries) spladeBackward(config, params, queries, dqueries, grads);
  spladeBackward(config, params, documents, ddocs, grads);
  return {
    rank,
    flopsQueries,
    flopsDocuments,
    total: rank + lambdaQueries * flopsQueries + lambdaDocuments * flopsDocuments,
    grads,
    ...(dqueryWeights ? { dqueryWeights } : {}),
  };
}

/**
 * The update of one plain-SGD step (no weight decay, no clipping) from a reference's gradients: every model parameter
 * moves by -lr × its gradient, a trained query table by -tableLr × its own (the table's own peak lr on the run's
 * schedule, `--query-table-lr`; the model's lr when not given).
 */
export function sgdUpdateReference(
  result: Pick<TrainingReferenceResult, 'grads' | 'dqueryWeights'>,
  lr: number,
  tableLr = lr,
): { params: ModelParams; queryWeights?: Float64Array } {
  const params = Object.fromEntries(Object.entries(result.grads).map(([name, g]) => [name, g.map((x) => -lr * x)]));
  return { params, ...(result.dqueryWeights ? { queryWeights: result.dqueryWeights.map((x) => -tableLr * x) } : {}) };
}

/**
 * The gradient one optimiser step applies over `batches` (its micro-batches): the mean of their gradients, or, with
 * FLOPS over the whole step, the mean of their ranking gradients plus the gradient of FLOPS over all the step's
 * vectors (mean |v| over every query, and every document, of the step). Dropout draws micro-batch i's masks.
 */
export function spladeStepReference(
  config: ModelConfig,
  params: ModelParams,
  batches: readonly TripletBatch[],
  settings: TrainingReferenceSettings & { flopsOver?: 'step' },
): { total: number; grads: ModelParams; dqueryWeights?: Float64Array } {
  const A = batches.length;
  const withMasks = (microBatch: number) =>
    settings.dropout ? { ...settings, dropout: { ...settings.dropout, microBatch } } : settings;
  if (settings.flopsOver !== 'step') {
    const each = batches.map((batch, i) => spladeTrainingReference(config, params, batch, withMasks(i)));
    const mean = (name: string) => each[0].grads[name].map((_, k) => each.reduce((sum, r) => sum + r.grads[name][k], 0) / A);
    const tables = each.map((r) => r.dqueryWeights).filter((g): g is Float64Array => g !== undefined);
    return {
      total: each.reduce((sum, r) => sum + r.total, 0) / A,
      grads: Object.fromEntries(Object.keys(each[0].grads).map((name) => [name, mean(name)])),
      ...(tables.length ? { dqueryWeights: tables[0].map((_, k) => tables.reduce((sum, g) => sum + g[k], 0) / A) } : {}),
    };
  }
  const { queryLength: Tq, documentLength: Td, lambdaQueries, lambdaDocuments } = settings;
  const V = config.vocabSize;
  const passes = batches.map((batch, i) => {
    const s = withMasks(i).dropout;
    const dropout = (stream: number) =>
      s && { rates: s.rates, key: (site: number) => dropoutKey(s.seed, s.step, s.microBatch, dropoutSiteId(stream, site)) };
    const B = batch.queryIds.length / Tq;
    const N = batch.documentIds.length / Td;
    return {
      B,
      N,
      queries: spladeForward(config, params, {
        ids: batch.queryIds,
        mask: batch.queryMask,
        B,
        T: Tq,
        dropout: dropout(DROPOUT_STREAMS.queries),
      }),
      documents: spladeForward(config, params, {
        ids: batch.documentIds,
        mask: batch.documentMask,
        B: N,
        T: Td,
        dropout: dropout(DROPOUT_STREAMS.documents),
      }),
    };
  });
  /** Mean over every row of the step, per vocabulary dimension. */
  const stepMeans = (pick: (p: (typeof passes)[number]) => { pooled: Float64Array; rows: number }) => {
    const sums = new Float64Array(V);
    let rows = 0;
    for (const pass of passes) {
      const { pooled, rows: n } = pick(pass);
      for (let i = 0; i < n * V; i++) sums[i % V] += pooled[i];
      rows += n;
    }
    return { means: sums.map((s) => s / rows), rows };
  };
  const q = stepMeans((p) => ({ pooled: p.queries.pooled, rows: p.B }));
  const d = stepMeans((p) => ({ pooled: p.documents.pooled, rows: p.N }));
  const grads = zerosLike(config);
  const flopsOf = (means: Float64Array) => means.reduce((sum, m) => sum + m * m, 0);
  let total = lambdaQueries * flopsOf(q.means) + lambdaDocuments * flopsOf(d.means);
  for (const [i, { B, N, queries, documents }] of passes.entries()) {
    const scores = sparseScoresForward(queries.pooled, documents.pooled, B, N, V);
    const ranking = rankingLoss(scores, B, N, settings, batches[i]);
    total += ranking.value / A;
    const { dqueries, ddocs } = sparseScoresBackward(queries.pooled, documents.pooled, ranking.dscores, B, N, V);
    const flops = (dpooled: Float64Array, pooled: Float64Array, step: { means: Float64Array; rows: number }, lambda: number) => {
      // the step's loss is the mean of its micro-batches' ranking losses plus FLOPS over all its vectors
      for (let i = 0; i < dpooled.length; i++)
        dpooled[i] = dpooled[i] / A + (pooled[i] > 0 ? (lambda * 2 * step.means[i % V]) / step.rows : 0);
      return dpooled;
    };
    spladeBackward(config, params, queries, flops(dqueries, queries.pooled, q, lambdaQueries), grads);
    spladeBackward(config, params, documents, flops(ddocs, documents.pooled, d, lambdaDocuments), grads);
  }
  return { total, grads };
}
