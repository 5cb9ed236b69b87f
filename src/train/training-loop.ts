// A whole SPLADE training run, browser-safe (the CLI and the page's worker share it): head divided by k, batches,
// steps, progress reports with loss parts and sparsity, checkpoints every N steps, and resuming from the newest one.
import type { GpuContext } from '../gpu/context.ts';
import type { RunSettings } from '../contract/recipe.ts';
import type { HfConfig } from '../io/model-folder.ts';
import type { HostTensor } from '../io/host-tensor.ts';
import type { TextTokenizer } from '../io/tokenizer.ts';
import type { TripletSource } from '../io/triplet-source.ts';
import type { ModelConfig } from '../contract/model-config.ts';
import { GpuModel } from '../model/gpu-model.ts';
import { divideModelHead } from '../model/rescale.ts';
import { NonFiniteError } from '../util/finite.ts';
import { TripletBatches } from './batches.ts';
import type { DataPosition, DataFingerprint, StepLosses, StepReport } from '../contract/training-report.ts';
import { CachedBatches, batchFingerprint, type BatchCacheStore } from './batch-cache.ts';
import {
  captureTrainingState,
  readLatestCheckpoint,
  uploadCheckpointModel,
  saveCheckpoint,
  type CheckpointStore,
  type TrainingState,
} from './training-checkpoint.ts';
import { PAPER_FLOPS_BATCH, flopsAtBatch } from '../contract/flops-batch.ts';
import { learningRate } from '../contract/schedule.ts';
import { jsonDifferences } from '../contract/json-differences.ts';
import { flopsWeightsAt, microBatches } from '../contract/recipe-facts.ts';
import { SpladeTrainer, type TripletBatch } from './trainer.ts';
import { buildTrainer, checkTrainingFits } from './training-memory.ts';

export interface Backbone {
  config: ModelConfig;
  /** config.json as read (stored in checkpoints, written with the trained model). */
  hfConfig: HfConfig;
  /** Internal parameter name -> fp32 tensor, before any rescaling. */
  params: Map<string, HostTensor>;
  tokenizer: TextTokenizer;
}

export interface TrainingData {
  /** The rows, read when their batch is made (a streamed file keeps only its index in memory). */
  source: TripletSource;
  fingerprint: DataFingerprint;
}

export interface TrainingRunOptions extends RunSettings {
  signal?: AbortSignal;
  /**
   * Called once before the first step (and awaited): the step the run starts from, the checkpoint it resumes (or
   * null), and the wall time of the steps before it (0 for a new run; undefined when the checkpoint did not record it).
   */
  onStart?: (startStep: number, resumedFrom: string | null, trainingMs: number | undefined) => void | Promise<void>;
  onReport?: (report: StepReport) => void;
  onCheckpoint?: (name: string, t: number) => void;
  /**
   * Awaited before each checkpoint is written: whatever records the run (run.json) is brought up to date first, so a
   * process killed right after a checkpoint never leaves that checkpoint's reports unrecorded.
   */
  beforeCheckpoint?: () => Promise<void>;
  /**
   * Looks at the model as it trains: before the first step, after every `every` steps and after the last (a resumed
   * run at the same steps as an uninterrupted one: before its first step only when that is one of them).
   */
  inspect?: { every: number; at(model: GpuModel, steps: number): Promise<void> };
  /** GPU bytes the run may take in all (the model included); over it, the run is refused with a batch that fits. */
  memoryBudget?: number;
  /**
   * Keep the run's batches in this cache (read from it first; a missing batch is made and cached). `fillAhead`: cache
   * every batch of the run before the first step (a reloaded page then resumes from the cache without the file).
   */
  batchCache?: {
    store: BatchCacheStore;
    tokenizer: string;
    fillAhead: boolean;
    onFill?: (done: number, total: number) => void;
    /** Told once when a cached batch fails its seal and is tokenized again. */
    onNote?: (note: string) => void;
  };
  /**
   * Asked after every report and inspection: a reason makes the run save a checkpoint there and stop with
   * TrainingPaused (it can be resumed from that checkpoint).
   */
  pauseReason?: () => string | null;
}

/** A run stopped on request (an alarm) after saving a checkpoint: resume it to go on. */
export class TrainingPaused extends Error {
  override name = 'TrainingPaused';
  constructor(
    readonly reason: string,
    /** Steps taken, and the checkpoint that holds them. */
    readonly step: number,
    /** The step this process started from. */
    readonly startStep: number,
    /** The checkpoint's name in the run's store, and where it is, for messages. */
    readonly checkpoint: string,
    where: string,
  ) {
    super(`training paused at step ${step}: ${reason}. Checkpoint ${where} is kept; resume the run to go on.`);
  }
}

export interface TrainingRunResult {
  trainer: SpladeTrainer;
  /** The step the run started from (0, or the resumed checkpoint's). */
  startStep: number;
  /** Milliseconds per step over this process's steps (checkpoint writes left out); NaN when no step ran. */
  msPerStep: number;
}

/** Refuses to resume a checkpoint made with another recipe, k, seed, data (count and CRC-32; the file may move) or backbone. */
function checkResumable(
  state: TrainingState,
  expected: Pick<TrainingState, 'recipe' | 'k' | 'seed' | 'data' | 'config'>,
  where: string,
): void {
  const key = ({ recipe, k, seed, data, config }: Pick<TrainingState, 'recipe' | 'k' | 'seed' | 'data' | 'config'>) => ({
    recipe,
    k,
    seed,
    data: { triplets: data.triplets, crc32: data.crc32 },
    config,
  });
  const found = jsonDifferences(key(state), key(expected), 'checkpoint');
  if (found.length) {
    throw new Error(
      `${where} was made by another run; resume with the same model, data and options, or start a new run elsewhere:\n  ${found.join('\n  ')}`,
    );
  }
}

export async function runTrainingLoop(
  ctx: GpuContext,
  backbone: Backbone,
  data: TrainingData,
  store: CheckpointStore,
  options: TrainingRunOptions,
): Promise<TrainingRunResult> {
  const { recipe, k, seed } = options;
  const run = { config: backbone.hfConfig, k, seed, data: data.fingerprint };
  const latest = await readLatestCheckpoint(store);
  let trainer: SpladeTrainer;
  let position: DataPosition = { epoch: 0, index: 0 };
  if (latest && !options.resume) {
    throw new Error(`${store.label} already holds a checkpoint (${latest.name}); resume it, or train into another folder`);
  }
  if (options.resume) {
    if (!latest) throw new Error(`${store.label} holds no checkpoint to resume`);
    checkResumable(latest.state, { ...run, recipe }, `${store.label}/${latest.name}`);
    const model = uploadCheckpointModel(ctx, latest.state, `${store.label}/${latest.name}`);
    checkTrainingFits(ctx, model, recipe, options.memoryBudget);
    trainer = await buildTrainer(ctx, () => new SpladeTrainer(ctx, model, recipe, seed), model, recipe);
    trainer.restoreState(latest.state.t, latest.state.optimizer);
    position = latest.state.position;
  } else {
    const model = GpuModel.upload(ctx, backbone.config, backbone.params);
    await divideModelHead(ctx, model, k);
    checkTrainingFits(ctx, model, recipe, options.memoryBudget);
    trainer = await buildTrainer(ctx, () => new SpladeTrainer(ctx, model, recipe, seed), model, recipe);
  }
  const plain = new TripletBatches(data.source, backbone.tokenizer, recipe, seed, position);
  const cache = options.batchCache;
  let batches: TripletBatches | CachedBatches = plain;
  if (cache) {
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
    const cached = new CachedBatches(cache.store, plain, !data.source.cacheOnly, identity, known, cache.onNote);
    if (cache.fillAhead)
      await cached.fill((recipe.schedule.totalSteps - trainer.t) * microBatches(recipe), cache.onFill, options.signal);
    batches = cached;
  } else if (data.source.cacheOnly) {
    throw new Error(
      `${data.fingerprint.name}: only its cached batches are at hand, and this run does not read the batch cache; pick the file again`,
    );
  }
  const total = recipe.schedule.totalSteps;
  const startStep = trainer.t;
  let savedAt = latest && options.resume ? latest.state.t : -1;
  let savedName = latest && options.resume ? latest.name : null;
  /** Wall time of the steps before this process's (as the checkpoint recorded it), and of this process's steps. */
  const earlierMs = latest && options.resume ? latest.state.trainingMs : 0;
  let stepMs = 0;
  await options.onStart?.(startStep, options.resume && latest ? latest.name : null, earlierMs);
  const kept = () => (savedName ? `${store.label}/${savedName} (step ${savedAt})` : null);
  const save = async () => {
    await checkHealth(trainer, kept());
    await options.beforeCheckpoint?.();
    const trainingMs = earlierMs === undefined ? undefined : earlierMs + stepMs;
    const name = await saveCheckpoint(store, await captureTrainingState(trainer, { ...run, position, trainingMs }));
    savedAt = trainer.t;
    savedName = name;
    options.onCheckpoint?.(name, trainer.t);
  };
  const pauseIfAsked = async () => {
    const reason = options.pauseReason?.();
    if (!reason) return;
    if (savedAt !== trainer.t) await save();
    throw new TrainingPaused(reason, trainer.t, startStep, savedName!, kept()!);
  };
  // a resumed run inspects and reports at the steps an uninterrupted one does, so that its records and alarms match
  if (options.inspect && trainer.t < total && trainer.t % options.inspect.every === 0) {
    await options.inspect.at(trainer.model, trainer.t);
    await pauseIfAsked();
  }
  let intervalMs = 0;
  let intervalSteps = 0;
  let intervalTokens = 0;
  /** The micro-batches of one step, read from the source and tokenized. */
  const readStep = async (): Promise<TripletBatch[]> => {
    const micro: TripletBatch[] = [];
    for (let i = 0; i < microBatches(recipe); i++) micro.push((await batches.next()).batch);
    return micro;
  };
  let upcoming: Promise<TripletBatch[]> | null = null;
  while (trainer.t < total) {
    if (options.signal?.aborted)
      throw options.signal.reason instanceof Error
        ? options.signal.reason
        : new DOMException('training was cancelled', 'AbortError');
    const t = trainer.t;
    const last = t + 1 === total;
    const report = t === 0 || (t + 1) % options.reportEvery === 0 || last;
    const checkpoint = (t + 1) % options.checkpointEvery === 0 || last;
    const began = performance.now();
    const micro = await (upcoming ?? readStep());
    position = batches.position; // where the step after this one starts (what a checkpoint after it records)
    for (const batch of micro) intervalTokens += attendedTokens(batch);
    const stepping = trainer.step(micro, report);
    // the next step's rows are read and tokenized while the GPU runs this one
    upcoming = last ? null : readStep();
    upcoming?.catch(() => undefined); // a run that stops first never awaits it: its failure is not an unhandled one
    const result = await stepping;
    if (checkpoint && !report) await ctx.sync(); // the step's GPU work counts as step time, not checkpoint time
    const ms = performance.now() - began;
    stepMs += ms;
    intervalMs += ms;
    intervalSteps++;
    if (result) {
      await checkHealth(trainer, kept());
      const { batch: stats, ...losses } = result;
      checkFiniteLosses(losses, kept());
      const B = recipe.batchSize;
      options.onReport?.({
        ...losses,
        steps: total,
        lr: learningRate(recipe.schedule, t),
        ...flopsWeightsAt(recipe, t),
        activeQueries: stats.activeQueries,
        activeDocuments: stats.activeDocuments,
        paperBatchFlopsQueries: flopsAtBatch(losses.flopsQueries, stats.squaredNormQueries, B, PAPER_FLOPS_BATCH),
        paperBatchFlopsDocuments: flopsAtBatch(
          losses.flopsDocuments,
          stats.squaredNormDocuments,
          batches.documentsPerBatch,
          (batches.documentsPerBatch / B) * PAPER_FLOPS_BATCH,
        ),
        squaredNormQueries: stats.squaredNormQueries,
        squaredNormDocuments: stats.squaredNormDocuments,
        msPerStep: intervalMs / intervalSteps,
        stepsPerSecond: (1000 * intervalSteps) / intervalMs,
        tokensPerSecond: (1000 * intervalTokens) / intervalMs,
        position,
      });
      intervalMs = 0;
      intervalSteps = 0;
      intervalTokens = 0;
    }
    if (checkpoint) await save();
    if (options.inspect && ((t + 1) % options.inspect.every === 0 || last)) {
      await checkHealth(trainer, kept());
      await options.inspect.at(trainer.model, trainer.t);
    }
    await pauseIfAsked();
  }
  if (savedAt !== trainer.t) await save(); // a run of 0 steps still leaves its (rescaled) starting point
  if (batches instanceof CachedBatches) await batches.flush();
  const steps = trainer.t - startStep;
  return { trainer, startStep, msPerStep: steps > 0 ? stepMs / steps : NaN };
}

/** Tokens of a batch's queries and documents that are attended to (its padding left out). */
function attendedTokens(batch: TripletBatch): number {
  let n = 0;
  for (const mask of [batch.queryMask, batch.documentMask]) for (let i = 0; i < mask.length; i++) n += mask[i];
  return n;
}

const LOSS_PARTS = [
  ['rank', 'ranking loss'],
  ['flopsQueries', 'FLOPS of the queries'],
  ['flopsDocuments', 'FLOPS of the documents'],
  ['total', 'total loss'],
] as const;

/** Why a diverged run stopped and what is left of it, as every divergence message ends. */
function keptAdvice(kept: string | null): string {
  return (
    `${kept ? `The last good checkpoint, ${kept}, is kept` : 'No checkpoint was saved before it'}; ` +
    'a lower learning rate (or a larger k for a head with long rows) usually helps.'
  );
}

/**
 * Stops a run as soon as the trainer's sticky GPU flags saw a loss part, a gradient or an updated parameter go Inf or
 * NaN (a NaN logit reads as 0 through the head's ReLU, so the losses alone can look finite while the weights are not).
 */
async function checkHealth(trainer: SpladeTrainer, kept: string | null): Promise<void> {
  const health = await trainer.readHealth();
  if (health.finite) return;
  const step = health.firstStep === null ? 'a step' : `step ${health.firstStep + 1}`;
  const parts =
    health.parts.length > 3
      ? `${health.parts.slice(0, 3).join(', ')} and ${health.parts.length - 3} more`
      : health.parts.join(', ');
  throw new NonFiniteError(`training diverged at ${step}: NaN or Inf in ${parts}. ${keptAdvice(kept)}`);
}

/** Stops a run whose read-back losses are NaN or Inf, naming the step, the part and the checkpoint that is kept. */
function checkFiniteLosses(losses: StepLosses, kept: string | null): void {
  for (const [key, part] of LOSS_PARTS) {
    if (Number.isFinite(losses[key])) continue;
    throw new NonFiniteError(`training diverged at step ${losses.step + 1}: the ${part} is ${losses[key]}. ${keptAdvice(kept)}`);
  }
}
