// A whole SPLADE training run, browser-safe (the CLI and the page's worker share it): the SPLADE task of the shared
// step loop (step-loop.ts): triplet batches (through the batch cache), the SPLADE trainer, and its step reports.
import type { GpuContext } from '../../gpu/context.ts';
import type { RunSettings } from '../../contract/training/recipe.ts';
import type { TeacherLabelSummary } from '../../contract/training/teacher-labels.ts';
import type { TripletSource } from '../../io/triplets/triplet-source.ts';
import { TripletBatches } from './batches.ts';
import type { DataFingerprint, StepReport } from '../../contract/training/training-report.ts';
import { CachedBatches, batchFingerprint, type BatchCacheStore } from './batch-cache.ts';
import type { CheckpointStore } from '../training-checkpoint.ts';
import { PAPER_FLOPS_BATCH, flopsAtBatch } from '../../contract/training/flops-batch.ts';
import { learningRate } from '../../contract/training/schedule.ts';
import { flopsWeightsAt, microBatches } from '../../contract/training/recipe-facts.ts';
import { SpladeTrainer, type StepResult, type TripletBatch } from './trainer.ts';
import { buildTrainer, checkTrainingFits } from './training-memory.ts';
import type { Backbone } from '../../model/backbone.ts';
import { runSteps, type BatchStream, type StepEvent, type StepLoopOptions } from '../step-loop.ts';

export type { Backbone } from '../../model/backbone.ts';
export { TrainingPaused } from '../step-loop.ts';

export interface TrainingData {
  /** The rows, read when their batch is made (a streamed file keeps only its index in memory). */
  source: TripletSource;
  fingerprint: DataFingerprint;
  /** The rows' teacher labels (distillation data), when they have them; a run checks them against its loss. */
  labels?: TeacherLabelSummary;
}

export interface TrainingRunOptions extends RunSettings, Omit<StepLoopOptions, keyof RunSettings> {
  /** Inference-free SPLADE: the static query weights (V) the recipe's `inferenceFree` names. */
  queryWeights?: Float32Array;
  /** Ids a trained query table leaves at their weight (the tokenizer's special tokens). */
  frozenQueryIds?: readonly number[];
  /** GPU bytes the run may take in all (the model included); over it, the run is refused with a batch that fits. */
  memoryBudget?: number;
  /**
   * Keep the run's batches in this cache (read from it first; a missing batch is made and cached). `fillAhead`: cache
   * every batch of the run before the first step (a reloaded page then resumes from the cache without the file).
   */
  batchCache?: { store: BatchCacheStore; tokenizer: string; fillAhead: boolean };
}

/** The events of a SPLADE run (step-loop.ts): its reports are StepReports, its trainer the SpladeTrainer. */
export type SpladeStepEvent = StepEvent<StepReport, SpladeTrainer>;

/** A SPLADE run's steps, as events: iterate them to train (the run waits while each event is handled). */
export function spladeSteps(
  ctx: GpuContext,
  backbone: Backbone,
  data: TrainingData,
  store: CheckpointStore,
  options: TrainingRunOptions,
): AsyncGenerator<SpladeStepEvent, void, undefined> {
  const { recipe, seed } = options;
  const B = recipe.batchSize;
  let documentsPerBatch = NaN;
  return runSteps(
    ctx,
    backbone,
    data.fingerprint,
    store,
    {
      recipe,
      checkFits: (model) => checkTrainingFits(ctx, model, recipe, options.memoryBudget),
      trainer: (model) =>
        buildTrainer(
          ctx,
          () => new SpladeTrainer(ctx, model, recipe, seed, options.queryWeights, options.frozenQueryIds),
          model,
          recipe,
        ),
      async batches(position, trainer) {
        const batches = await tripletBatches(backbone, data, options, position, trainer.t);
        documentsPerBatch = batches.documentsPerBatch;
        return batches;
      },
      tokens: attendedTokens,
      losses: (result: StepResult) => [
        ['ranking loss', result.rank],
        ['FLOPS of the queries', result.flopsQueries],
        ['FLOPS of the documents', result.flopsDocuments],
        ['total loss', result.total],
      ],
      report({ batch: stats, ...losses }: StepResult, t, timing, position): StepReport {
        return {
          ...losses,
          steps: recipe.schedule.totalSteps,
          lr: learningRate(recipe.schedule, t),
          ...flopsWeightsAt(recipe, t),
          activeQueries: stats.activeQueries,
          activeDocuments: stats.activeDocuments,
          paperBatchFlopsQueries: flopsAtBatch(losses.flopsQueries, stats.squaredNormQueries, B, PAPER_FLOPS_BATCH),
          paperBatchFlopsDocuments: flopsAtBatch(
            losses.flopsDocuments,
            stats.squaredNormDocuments,
            documentsPerBatch,
            (documentsPerBatch / B) * PAPER_FLOPS_BATCH,
          ),
          squaredNormQueries: stats.squaredNormQueries,
          squaredNormDocuments: stats.squaredNormDocuments,
          ...timing,
          position,
        };
      },
    },
    options,
  );
}

/** The run's triplet batches from `position`: through the batch cache when the run has one (filled ahead if asked). */
async function tripletBatches(
  backbone: Backbone,
  data: TrainingData,
  options: TrainingRunOptions,
  position: { epoch: number; index: number },
  t: number,
): Promise<BatchStream<TripletBatch> & { documentsPerBatch: number }> {
  const { recipe, seed } = options;
  const plain = new TripletBatches(data.source, backbone.tokenizer, recipe, seed, position);
  const cache = options.batchCache;
  if (!cache) {
    if (data.source.cacheOnly) {
      throw new Error(
        `${data.fingerprint.name}: only its cached batches are at hand, and this run does not read the batch cache; pick the file again`,
      );
    }
    return plain;
  }
  const shape = {
    batchSize: recipe.batchSize,
    queryLength: recipe.queryLength,
    documentLength: recipe.documentLength,
    dataOrder: recipe.dataOrder,
    negatives: recipe.negatives,
  };
  const identity = { data: data.fingerprint, shape, seed, tokenizer: cache.tokenizer };
  const fingerprint = batchFingerprint(identity.data, identity.tokenizer, shape, seed);
  const known = (await cache.store.list()).find((entry) => entry.fingerprint === fingerprint) ?? null;
  const notes: string[] = [];
  const cached = new CachedBatches(cache.store, plain, !data.source.cacheOnly, identity, known, (note) => notes.push(note));
  const ahead = (recipe.schedule.totalSteps - t) * microBatches(recipe);
  return Object.assign(cached, {
    takeNotes: () => notes.splice(0),
    ...(cache.fillAhead ? { prepare: (signal?: AbortSignal) => cached.filling(ahead, signal) } : {}),
  });
}

/** Tokens of a batch's queries and documents that are attended to (its padding left out). */
function attendedTokens(batch: TripletBatch): number {
  let n = 0;
  for (const mask of [batch.queryMask, batch.documentMask]) for (let i = 0; i < mask.length; i++) n += mask[i];
  return n;
}
