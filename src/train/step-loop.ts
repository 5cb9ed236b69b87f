// A whole training run whatever its objective (SPLADE, masked-LM), browser-safe, as one async generator read top to
// bottom: the head divided by k, steps over the task's batches, progress reports, checkpoints every N steps, pausing
// on request, divergence stops, and resuming from the newest checkpoint at exactly the batch and step it recorded.
import type { GpuContext } from '../gpu/context.ts';
import type { StepRecipe } from '../contract/training/recipe.ts';
import type { DataFingerprint, DataPosition } from '../contract/training/training-report.ts';
import { jsonDifferences } from '../contract/json-differences.ts';
import { microBatches } from '../contract/training/recipe-facts.ts';
import { GpuModel } from '../model/gpu-model.ts';
import { divideModelHead } from '../model/rescale.ts';
import { NonFiniteError } from '../util/finite.ts';
import type { StepTrainer } from './step-trainer.ts';
import type { HostTensor } from '../io/host-tensor.ts';

export type { StepTrainer } from './step-trainer.ts';
import type { Backbone } from '../model/backbone.ts';
import {
  captureTrainingState,
  readLatestCheckpoint,
  saveCheckpoint,
  uploadCheckpointModel,
  type CheckpointStore,
  type TrainingState,
} from './training-checkpoint.ts';

/** Batches in the run's order from a data position; `position` is where the next one starts. */
export interface BatchStream<Batch> {
  next(): Promise<{ batch: Batch }>;
  readonly position: DataPosition;
  /** Called once the run's steps are done (a cache writes what it still holds). */
  finish?(): Promise<void>;
  /** Work before the first step (a cache filled ahead), as progress: batches done of the total. */
  prepare?(signal?: AbortSignal): AsyncIterable<{ done: number; total: number }>;
  /** Notes about the data since the last call (a cached batch that failed its seal), each said once. */
  takeNotes?(): string[];
}

/** Wall time and throughput since the previous report. */
export interface StepTiming {
  msPerStep: number;
  stepsPerSecond: number;
  tokensPerSecond: number;
}

/** The objective's side of a run: its trainer, its batches, what a step's tokens are, and how a report reads. */
export interface TrainingTask<R extends StepRecipe, Batch, Result, Report, Trainer extends StepTrainer<Batch, Result>> {
  /** Builds the trainer on an uploaded model (new, or a checkpoint's before its state is restored). */
  trainer(model: GpuModel): Promise<Trainer>;
  /** The run's batches from `position` (the trainer is built and, on resume, restored). */
  batches(position: DataPosition, trainer: Trainer): Promise<BatchStream<Batch>>;
  /** Tokens a batch attends to (throughput). */
  tokens(batch: Batch): number;
  /** The report of a step that read its result back. */
  report(result: Result, t: number, timing: StepTiming, position: DataPosition): Report;
  /** The loss values of a result, by name, which must be finite. */
  losses(result: Result): [string, number][];
  /** The recipe the run trains with (compared on resume). */
  recipe: R;
  /** Checks, once the model is uploaded and before the trainer is built, that the run fits the device. */
  checkFits?(model: GpuModel): void;
}

/** Data the run's owner changes while it trains: a reason set here stops the run at its next report or inspection. */
export interface PauseRequest {
  reason: string | null;
}

export interface StepLoopOptions {
  k: number;
  seed: number;
  /** Save a checkpoint after every this many steps (and after the last step). */
  checkpointEvery: number;
  /** Report after the first step, every this many steps, and after the last. */
  reportEvery: number;
  /** Continue from the store's newest checkpoint (which must exist); without it, the store must be empty. */
  resume: boolean;
  signal?: AbortSignal;
  /**
   * Look at the model as it trains (an `inspect-due` event): before the first step, after every this many steps and
   * after the last (a resumed run at the same steps as an uninterrupted one: before its first step only when that is
   * one of them). 0 or absent: never.
   */
  inspectEvery?: number;
  /**
   * Read after every report and inspection: a reason makes the run save a checkpoint there and stop with
   * TrainingPaused (it can be resumed from that checkpoint).
   */
  pause?: Readonly<PauseRequest>;
}

/** What a run tells its owner, in order; the run waits while the owner handles each one (`for await`). */
export type StepEvent<Report, Trainer> =
  /** Batches cached ahead of the first step (a run that fills its batch cache first). */
  | { kind: 'caching'; done: number; total: number }
  /** Something the user should know about the run's data (said once). */
  | { kind: 'note'; note: string }
  /**
   * Before the first step: the step the run starts from, the checkpoint it resumes (or null), and the wall time of the
   * steps before it (0 for a new run; undefined when the checkpoint did not record it).
   */
  | { kind: 'start'; startStep: number; resumedFrom: string | null; trainingMs: number | undefined }
  | { kind: 'report'; report: Report }
  /**
   * A checkpoint is about to be written: whatever records the run (run.json) is brought up to date first, so a process
   * killed right after a checkpoint never leaves that checkpoint's reports unrecorded.
   */
  | { kind: 'checkpoint-due'; step: number }
  | { kind: 'checkpoint'; name: string; step: number }
  /** The model as it trains, and a reader of the parameters the run trains beyond it (an inference-free query table). */
  | { kind: 'inspect-due'; model: GpuModel; step: number; extras: () => Promise<Map<string, HostTensor>> }
  /** The last event: the trainer (its model on the GPU), where this process started, and its milliseconds per step. */
  | ({ kind: 'done' } & StepLoopResult<Trainer>);

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

export interface StepLoopResult<Trainer> {
  trainer: Trainer;
  /** The step the run started from (0, or the resumed checkpoint's). */
  startStep: number;
  /** Milliseconds per step over this process's steps (checkpoint writes left out); NaN when no step ran. */
  msPerStep: number;
}

type RunKey = Pick<TrainingState<StepRecipe>, 'recipe' | 'k' | 'seed' | 'data' | 'config'>;

/** Refuses to resume a checkpoint made with another recipe, k, seed, data (count and CRC-32; the file may move) or backbone. */
function checkResumable(state: RunKey, expected: RunKey, where: string): void {
  const key = ({ recipe, k, seed, data, config }: RunKey) => ({
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

/**
 * Trains `task` on `backbone` (its head divided by k first), checkpointing into `store`, as the options say: a run
 * read top to bottom, telling its owner what happens as events (the owner handles each before the run goes on).
 */
export async function* runSteps<R extends StepRecipe, Batch, Result, Report, Trainer extends StepTrainer<Batch, Result>>(
  ctx: GpuContext,
  backbone: Backbone,
  data: DataFingerprint,
  store: CheckpointStore,
  task: TrainingTask<R, Batch, Result, Report, Trainer>,
  options: StepLoopOptions,
): AsyncGenerator<StepEvent<Report, Trainer>, void, undefined> {
  const { recipe } = task;
  const { k, seed, signal, pause } = options;
  const run = { config: backbone.hfConfig, k, seed, data };
  const latest = await readLatestCheckpoint(store);
  const resumed = options.resume ? latest : null;
  if (latest && !options.resume) {
    throw new Error(`${store.label} already holds a checkpoint (${latest.name}); resume it, or train into another folder`);
  }
  if (options.resume && !latest) throw new Error(`${store.label} holds no checkpoint to resume`);
  if (resumed) checkResumable(resumed.state, { ...run, recipe }, `${store.label}/${resumed.name}`);
  const model = resumed
    ? uploadCheckpointModel(ctx, resumed.state, `${store.label}/${resumed.name}`)
    : GpuModel.upload(ctx, backbone.config, backbone.params);
  if (!resumed) await divideModelHead(ctx, model, k);
  task.checkFits?.(model);
  const trainer = await task.trainer(model);
  if (resumed) {
    trainer.restoreState(resumed.state.t, resumed.state.optimizer);
    trainer.restoreExtras?.(resumed.state.params);
  }
  let position: DataPosition = resumed?.state.position ?? { epoch: 0, index: 0 };
  const batches = await task.batches(position, trainer);
  const notes = () => (batches.takeNotes?.() ?? []).map((note) => ({ kind: 'note' as const, note }));
  yield* notes();
  if (batches.prepare) for await (const progress of batches.prepare(signal)) yield { kind: 'caching', ...progress };
  yield* notes();
  const total = recipe.schedule.totalSteps;
  const startStep = trainer.t;
  let savedAt = resumed ? resumed.state.t : -1;
  let savedName = resumed ? resumed.name : null;
  /** Wall time of the steps before this process's (as the checkpoint recorded it), and of this process's steps. */
  const earlierMs = resumed ? resumed.state.trainingMs : 0;
  let stepMs = 0;
  yield { kind: 'start', startStep, resumedFrom: resumed?.name ?? null, trainingMs: earlierMs };
  const kept = () => (savedName ? `${store.label}/${savedName} (step ${savedAt})` : null);
  async function* save(): AsyncGenerator<StepEvent<Report, Trainer>> {
    await checkHealth(trainer, kept());
    yield { kind: 'checkpoint-due', step: trainer.t };
    const trainingMs = earlierMs === undefined ? undefined : earlierMs + stepMs;
    const name = await saveCheckpoint(store, await captureTrainingState(trainer, { ...run, position, trainingMs }));
    savedAt = trainer.t;
    savedName = name;
    yield { kind: 'checkpoint', name, step: trainer.t };
  }
  async function* pauseIfAsked(): AsyncGenerator<StepEvent<Report, Trainer>> {
    const reason = pause?.reason;
    if (!reason) return;
    if (savedAt !== trainer.t) yield* save();
    throw new TrainingPaused(reason, trainer.t, startStep, savedName!, kept()!);
  }
  const inspectEvery = options.inspectEvery ?? 0;
  const inspection = () => ({
    kind: 'inspect-due' as const,
    model: trainer.model,
    step: trainer.t,
    extras: async () => (await trainer.downloadExtras?.()) ?? new Map<string, HostTensor>(),
  });
  // a resumed run inspects and reports at the steps an uninterrupted one does, so that its records and alarms match
  if (inspectEvery > 0 && trainer.t < total && trainer.t % inspectEvery === 0) {
    yield inspection();
    yield* pauseIfAsked();
  }
  let intervalMs = 0;
  let intervalSteps = 0;
  let intervalTokens = 0;
  /** The micro-batches of one step, read from the source (and tokenized). */
  const readStep = async (): Promise<Batch[]> => {
    const micro: Batch[] = [];
    for (let i = 0; i < microBatches(recipe); i++) micro.push((await batches.next()).batch);
    return micro;
  };
  let upcoming: Promise<Batch[]> | null = null;
  while (trainer.t < total) {
    if (signal?.aborted)
      throw signal.reason instanceof Error ? signal.reason : new DOMException('training was cancelled', 'AbortError');
    const t = trainer.t;
    const last = t + 1 === total;
    const report = t === 0 || (t + 1) % options.reportEvery === 0 || last;
    const checkpoint = (t + 1) % options.checkpointEvery === 0 || last;
    const began = performance.now();
    const micro = await (upcoming ?? readStep());
    position = batches.position; // where the step after this one starts (what a checkpoint after it records)
    for (const batch of micro) intervalTokens += task.tokens(batch);
    const stepping = trainer.step(micro, report);
    // the next step's rows are read (and tokenized) while the GPU runs this one
    upcoming = last ? null : readStep();
    upcoming?.catch(() => undefined); // a run that stops first never awaits it: its failure is not an unhandled one
    const result = await stepping;
    if (checkpoint && !report) await ctx.sync(); // the step's GPU work counts as step time, not checkpoint time
    const ms = performance.now() - began;
    stepMs += ms;
    intervalMs += ms;
    intervalSteps++;
    yield* notes();
    if (result) {
      await checkHealth(trainer, kept());
      checkFiniteLosses(t, task.losses(result), kept());
      const timing = {
        msPerStep: intervalMs / intervalSteps,
        stepsPerSecond: (1000 * intervalSteps) / intervalMs,
        tokensPerSecond: (1000 * intervalTokens) / intervalMs,
      };
      yield { kind: 'report', report: task.report(result, t, timing, position) };
      intervalMs = 0;
      intervalSteps = 0;
      intervalTokens = 0;
    }
    if (checkpoint) yield* save();
    if (inspectEvery > 0 && ((t + 1) % inspectEvery === 0 || last)) {
      await checkHealth(trainer, kept());
      yield inspection();
    }
    yield* pauseIfAsked();
  }
  if (savedAt !== trainer.t) yield* save(); // a run of 0 steps still leaves its (rescaled) starting point
  await batches.finish?.();
  const steps = trainer.t - startStep;
  yield { kind: 'done', trainer, startStep, msPerStep: steps > 0 ? stepMs / steps : NaN };
}

/** Runs a run's events to the end, handing each (but the last) to `on` and awaiting it; returns the last. */
export async function finishSteps<Report, Trainer>(
  steps: AsyncIterable<StepEvent<Report, Trainer>>,
  on: (event: Exclude<StepEvent<Report, Trainer>, { kind: 'done' }>) => void | Promise<void> = () => undefined,
): Promise<StepLoopResult<Trainer>> {
  for await (const event of steps) {
    if (event.kind === 'done') return { trainer: event.trainer, startStep: event.startStep, msPerStep: event.msPerStep };
    await on(event);
  }
  throw new Error('the training run ended without its last event');
}

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
async function checkHealth(trainer: StepTrainer<unknown, unknown>, kept: string | null): Promise<void> {
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
function checkFiniteLosses(t: number, losses: [string, number][], kept: string | null): void {
  for (const [part, value] of losses) {
    if (Number.isFinite(value)) continue;
    throw new NonFiniteError(`training diverged at step ${t + 1}: the ${part} is ${value}. ${keptAdvice(kept)}`);
  }
}
