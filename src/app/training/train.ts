// Training, once for the page and the CLI: `trainRun` is the one use case every adapter calls (the page's worker,
// `splade-lab train`, sweeps and the calibrator). A checked request becomes a run that takes the run's lock, starts
// fresh (or continues its newest checkpoint), runs train/splade/training-loop.ts, reports progress as events, saves the
// trained model where the platform keeps models (never with a NaN or Inf weight) and records how it ended.
import type { GpuContext } from '../../gpu/context.ts';
import type { HostTensor } from '../../io/host-tensor.ts';
import { QUERY_WEIGHTS_PARAM, type SpladeTrainer } from '../../train/splade/trainer.ts';
import { specialTokenIds } from './special-tokens.ts';
import { readLatestCheckpoint, type CheckpointStore } from '../../train/training-checkpoint.ts';
import type { TrainingRecipe } from '../../contract/training/recipe.ts';
import {
  spladeSteps,
  type SpladeStepEvent,
  type TrainingData,
  type TrainingRunOptions,
} from '../../train/splade/training-loop.ts';
import type { PauseRequest, StepLoopResult } from '../../train/step-loop.ts';
import { tokenizerFingerprint } from '../../io/tokenizer/tokenizer-fingerprint.ts';
import type { OpenedModel } from '../model/open-model.ts';
import type { Platform } from '../platform/platform.ts';
import { planTraining, trainedTableField, type TrainPlan, type TrainRequest } from '../../contract/training/training-request.ts';
import { checkTeacherLabels } from '../../contract/training/teacher-labels.ts';
import { queryWeightsCrc, smallIdfNote, trainingDataIdf, widenQueryWeights, type QueryWeights } from './query-weights.ts';
import type { TextTokenizer } from '../../io/tokenizer/tokenizer.ts';
import { InvalidRequestError } from '../../contract/limits.ts';
import { checkLengthsFit } from '../../contract/model/max-tokens.ts';
import { savedModelFiles, type ModelCardExtras } from '../model/save-model.ts';
import { hostRowNorms } from '../model/head-report.ts';
import { headOf } from '../model/model-session.ts';
import type { RunRecord, RunStore } from '../../contract/experiments/runs.ts';
import { RunRecorder } from './run-recorder.ts';
import type { CheckpointInfo, TrainEvent } from '../../contract/training/training-events.ts';
import type { ProbeSnapshot } from '../../contract/training/probes.ts';
import { alarmContext, type Alarm } from '../../contract/training/alarm-rules.ts';
import { AlarmWatcher } from './alarm-watcher.ts';
import { TrainingProbes } from './training-probes.ts';
import { RunOutcome } from '../../contract/experiments/sweep-plan.ts';
import { TrainingRun } from './training-run.ts';

export type { CheckpointInfo, TrainEvent } from '../../contract/training/training-events.ts';

/** A whole run: train (recorded as a run), save the trained model, record how it ended. */
export async function trainRun(ctx: GpuContext, platform: Platform, options: TrainOptions): Promise<RunOutcome> {
  const run = await trainModel(ctx, platform, options);
  let saved: RunOutcome['saved'];
  try {
    saved = await saveTrainedModel(platform, options.run, run, { data: options.data.fingerprint });
  } catch (error) {
    await run.close({ failure: error instanceof Error ? error.message : String(error) });
    throw error;
  }
  await run.close({ savedModel: saved });
  return { startStep: run.startStep, step: run.step, msPerStep: run.msPerStep, saved };
}

export { TrainingPaused } from '../../train/step-loop.ts';

export interface TrainOptions {
  /** The backbone, or how to open it: opened only once the run's lock is held (a busy run fails before any load). */
  model: OpenedModel | (() => Promise<OpenedModel>);
  data: TrainingData;
  /** The run: its folder in Node, its key in the page. */
  run: string;
  request: TrainRequest;
  /** A new run where checkpoints already exist: refuse (the CLI), or remove them first (the page asked the user). */
  existing: 'refuse' | 'replace';
  /** What the figures come from, for captions (defaults to the model, data and k). */
  provenance?: string;
  signal?: AbortSignal;
  onEvent?: (event: TrainEvent) => void;
  /** GPU bytes the run may take (the model included); over it the run is refused with a batch that fits. */
  memoryBudget?: number;
  /** Read and keep the run's batches in the platform's batch cache (default true). */
  batchCache?: boolean;
  /**
   * Inference-free runs: the static query weights, made for the model's tokenizer (default: IDF over the training
   * data's documents).
   */
  queryWeights?: (tokenizer: TextTokenizer) => Promise<QueryWeights>;
  /** Keep the run's record (reports, checkpoints, how it ended) in this store, under `run`. */
  record?: { store: RunStore; sweep?: RunRecord['sweep'] };
}

/** A finished run still on the GPU: read its weights, then close it (frees the GPU and releases the run). */
export interface TrainedRun {
  /** The backbone the run started from. */
  model: OpenedModel;
  startStep: number;
  /** The run's step count when it ended. */
  step: number;
  msPerStep: number;
  recipe: TrainingRecipe;
  k: number;
  seed: number;
  /** The trained parameters (internal names), read back from the GPU. */
  download(): Promise<Map<string, HostTensor>>;
  /** Inference-free runs: the static query weights (saved as the Router's query route). */
  queryWeights?: Float32Array;
  /**
   * Frees the GPU, records how the run ended (finished, with where its model was saved; or failed, when saving it
   * failed) and releases the run.
   */
  close(details?: { savedModel?: RunRecord['savedModel']; failure?: string }): Promise<void>;
}

export async function checkpointInfo(store: CheckpointStore): Promise<CheckpointInfo | null> {
  const latest = await readLatestCheckpoint(store);
  if (!latest) return null;
  const { t, recipe, k, seed } = latest.state;
  return { step: t, recipe, k, seed, store: store.label, name: latest.name };
}

/** The head a run starts from, as its record keeps it: the mean row norm and every row norm (5 significant digits). */
function headNormsOf(model: OpenedModel): { meanRowNorm: number; rowNorms: number[] } {
  const norms = hostRowNorms(headOf(model));
  return {
    meanRowNorm: norms.reduce((a, b) => a + b, 0) / Math.max(1, norms.length),
    rowNorms: Array.from(norms, (n) => Number(n.toPrecision(5))),
  };
}

/** Trains `model` on `data` as `request` says; every GPU buffer of the run is its own (the model itself is untouched). */
export async function trainModel(ctx: GpuContext, platform: Platform, options: TrainOptions): Promise<TrainedRun> {
  const { data, request } = options;
  const plan = planTraining(request, data.source.count, data.source.negatives);
  const teacher = checkedTeacherLabels(plan, data);
  const run = await TrainingRun.open<TrainEvent>(platform, options.run, options.model, options.onEvent);
  try {
    const { model } = run;
    const queryWeights = await queryTableOf(plan, request, model, data, options.queryWeights);
    const { queryLength, documentLength } = plan.recipe;
    checkLengthsFit(model.config, { 'The query length': queryLength, 'The document length': documentLength });
    await run.clear(plan.resume, options.existing);
    const watcher = new AlarmWatcher(alarmContext(plan.recipe, model.config.vocabSize), specialTokenNames(model.tokenizer));
    if (options.record) run.record(new RunRecorder(options.record.store, recordHeader(options, model), watcher));
    for (const event of openingEvents(plan, data, teacher, queryWeights)) run.emit(event);
    const pause: PauseRequest = { reason: null };
    const raise = (alarms: Alarm[]) => alarms.forEach((alarm) => run.emit(alarmEvent(alarm, plan.stopOn, pause)));
    const probe = probesOf(ctx, plan, model.tokenizer, queryWeights);
    const steps = spladeSteps(ctx, model, data, run.store, {
      ...stepOptions(platform, plan, model, options, queryWeights),
      pause,
    });
    const done = await run.drive(ctx, steps, async (event) => {
      switch (event.kind) {
        case 'start':
          run.emit({ ...event, recipe: plan.recipe, k: plan.k, seed: plan.seed, provenance: provenanceOf(options, plan, model) });
          return run.settled(); // the record is taken up (cut back to the checkpoint, the watcher fed its history) first
        case 'report':
          run.emit(event);
          return raise(watcher.onReport(event.report));
        case 'checkpoint-due':
          return run.settled(true);
        case 'checkpoint':
          return run.emit({ ...event, store: run.store.label });
        case 'inspect-due': {
          const snapshot = await probe(event);
          run.emit({ kind: 'probe', snapshot });
          return raise(watcher.onProbes(snapshot));
        }
        case 'caching': // about a hundred progress events at most
          return void ((event.done === event.total || event.done % Math.ceil(event.total / 100) === 0) && run.emit(event));
        case 'note':
          return run.emit(event);
      }
    });
    const table = queryWeights && ((await done.trainer.readQueryWeights()) ?? queryWeights.weights);
    return trainedRun(run, plan, done, table);
  } catch (error) {
    await run.fail(error);
    throw error;
  }
}

/** A finished run still on the GPU, as TrainedRun: its weights read from its trainer, closed through the run. */
function trainedRun(
  run: TrainingRun<TrainEvent>,
  plan: TrainPlan,
  { trainer, startStep, msPerStep }: StepLoopResult<SpladeTrainer>,
  queryWeights: Float32Array | undefined,
): TrainedRun {
  const { recipe, k, seed } = plan;
  return {
    model: run.model,
    ...{ startStep, step: trainer.t, msPerStep, recipe, k, seed },
    download: () => trainer.model.download(),
    ...(queryWeights ? { queryWeights } : {}),
    close: ({ savedModel, failure } = {}) =>
      run.close(failure !== undefined ? { status: 'failed', message: failure } : { status: 'finished', savedModel }),
  };
}

/** The teacher labels' check for the run's loss: refused before anything is opened, its warning and note kept. */
function checkedTeacherLabels(plan: TrainPlan, data: TrainingData): ReturnType<typeof checkTeacherLabels> {
  const teacher = checkTeacherLabels(
    plan.recipe.loss ?? 'contrastive',
    data.source.negatives,
    data.labels,
    data.fingerprint.name,
  );
  // a page resuming from cached batches alone has no rows to check: they were checked when the batches were made
  if (teacher.error && !data.source.cacheOnly) throw new InvalidRequestError(teacher.error);
  return teacher;
}

/** Inference-free runs: the static query weights, one per row of the head, named in the plan's recipe (which they change). */
async function queryTableOf(
  plan: TrainPlan,
  request: TrainRequest,
  model: OpenedModel,
  data: TrainingData,
  made: TrainOptions['queryWeights'],
): Promise<QueryWeights | undefined> {
  if (!request.inferenceFree) return undefined;
  // a tokenizer smaller than the head (GTE: 30522 of 30528) leaves the rest at 0
  const weights = widenQueryWeights(
    await (made ?? ((tokenizer) => trainingDataIdf(data, tokenizer)))(model.tokenizer),
    model.config.vocabSize,
  );
  plan.recipe = {
    ...plan.recipe,
    inferenceFree: {
      queryWeights: weights.source,
      crc32: queryWeightsCrc(weights),
      ...trainedTableField(request, plan.recipe.schedule.peakLr),
    },
  };
  return weights;
}

/** The tokenizer's special tokens by name (the alarms leave them out of "the top terms are ..."). */
function specialTokenNames(tokenizer: TextTokenizer): Set<string> {
  const ids = Object.values(tokenizer.specialIds).filter((id): id is number => id !== null);
  return new Set(ids.map((id) => tokenizer.idToToken(id) ?? '').filter(Boolean));
}

/** What a run's record says of it before its first event: its id, sweep, model (and head) and data. */
function recordHeader(options: TrainOptions, model: OpenedModel) {
  const { name, key, config } = model;
  return {
    id: options.run,
    sweep: options.record?.sweep,
    model: { name, key, architecture: config.hfArchitecture, ...headNormsOf(model) },
    data: options.data.fingerprint,
  };
}

/** Events said before the first step: the teacher labels of a distillation run and the notes on its data. */
function openingEvents(
  plan: TrainPlan,
  data: TrainingData,
  teacher: ReturnType<typeof checkTeacherLabels>,
  queryWeights: QueryWeights | undefined,
): TrainEvent[] {
  const events: TrainEvent[] = [];
  const { labels } = data;
  if ((plan.recipe.loss ?? 'contrastive') !== 'contrastive' && labels)
    events.push({ kind: 'teacher', labels, ...(teacher.warning ? { warning: teacher.warning } : {}) });
  if (teacher.note && labels) events.push({ kind: 'note', note: teacher.note });
  const idfNote = queryWeights && smallIdfNote(queryWeights);
  if (idfNote) events.push({ kind: 'note', note: idfNote });
  return events;
}

/** An alarm's event; the first alarm (not warning) the plan stops on asks the run to pause. */
function alarmEvent(alarm: Alarm, stopOn: readonly string[], pause: PauseRequest): TrainEvent {
  const stops = alarm.severity === 'alarm' && stopOn.includes(alarm.rule);
  if (stops) pause.reason ??= `alarm "${alarm.title}" (${alarm.rule}) at step ${alarm.step}`;
  return { kind: 'alarm', alarm, stops };
}

/** Takes the plan's probes at an inspection (the probes built on the first); a trained query table is probed as it is. */
function probesOf(
  ctx: GpuContext,
  plan: TrainPlan,
  tokenizer: TextTokenizer,
  queryWeights: QueryWeights | undefined,
): (event: Extract<SpladeStepEvent, { kind: 'inspect-due' }>) => Promise<ProbeSnapshot> {
  let probes: TrainingProbes | null = null;
  return async ({ model, step, extras }) => {
    const lengths = { query: plan.recipe.queryLength, document: plan.recipe.documentLength };
    probes ??= new TrainingProbes(ctx, model, tokenizer, plan.probes.texts, lengths, undefined, queryWeights?.weights);
    const trained = plan.recipe.inferenceFree?.trained !== undefined;
    return probes.take(step, trained ? (await extras()).get(QUERY_WEIGHTS_PARAM)?.data : undefined);
  };
}

/** The step loop's options for a plan: its settings, the query table, probes' schedule, memory and batch cache. */
function stepOptions(
  platform: Platform,
  plan: TrainPlan,
  model: OpenedModel,
  options: TrainOptions,
  queryWeights: QueryWeights | undefined,
): TrainingRunOptions {
  return {
    recipe: plan.recipe,
    k: plan.k,
    seed: plan.seed,
    queryWeights: queryWeights?.weights,
    frozenQueryIds: specialTokenIds(model.tokenizer),
    checkpointEvery: plan.checkpointEvery,
    reportEvery: plan.reportEvery,
    resume: plan.resume,
    signal: options.signal,
    inspectEvery: plan.probes.every > 0 && plan.probes.texts.length > 0 ? plan.probes.every : 0,
    memoryBudget: options.memoryBudget,
    batchCache:
      options.batchCache === false ? undefined : { ...platform.batchCache, tokenizer: tokenizerFingerprint(model.tokenizer) },
  };
}

/** How the run's figures are captioned: as the caller says, or its model, data and k. */
function provenanceOf(options: TrainOptions, plan: TrainPlan, model: OpenedModel): string {
  const { source, fingerprint } = options.data;
  return (
    options.provenance ??
    `${model.name} (${model.config.hfArchitecture}) fine-tuned on ${source.count} triplets of ${fingerprint.name}, head divided by k = ${plan.k}`
  );
}

/**
 * Saves a finished run's model (SparseEncoder files and a model card, never with a NaN/Inf weight) where the
 * platform keeps models; `card` gives what the run does not know: its data's fingerprint, and any results (without
 * it the model card says the data was not recorded).
 */
export async function saveTrainedModel(
  platform: Platform,
  run: string,
  trained: TrainedRun,
  card: ModelCardExtras = {},
): Promise<{ where: string; files: string[] }> {
  const info = { ...card, recipe: trained.recipe, k: trained.k, seed: trained.seed, steps: trained.step };
  const files = await savedModelFiles(trained.model, await trained.download(), info, trained.queryWeights);
  return { where: await platform.writeModel(run, files), files: [...files.keys()] };
}
