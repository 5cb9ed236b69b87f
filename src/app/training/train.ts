// Training, once for the page and the CLI: `trainRun` is the one use case every adapter calls (the page's worker,
// `splade-lab train`, sweeps and the calibrator). A checked request becomes a run that takes the run's lock, starts
// fresh (or continues its newest checkpoint), runs train/training-loop.ts, reports progress as events, saves the
// trained model where the platform keeps models (never with a NaN or Inf weight) and records how it ended.
import type { GpuContext } from '../../gpu/context.ts';
import type { HostTensor } from '../../io/host-tensor.ts';
import type { GpuModel } from '../../model/gpu-model.ts';
import { QUERY_WEIGHTS_PARAM } from '../../train/trainer.ts';
import { specialTokenIds } from './special-tokens.ts';
import { listCheckpoints, readLatestCheckpoint, type CheckpointStore } from '../../train/training-checkpoint.ts';
import type { TrainingRecipe } from '../../contract/recipe.ts';
import { TrainingPaused, runTrainingLoop, type TrainingData } from '../../train/training-loop.ts';
import { tokenizerFingerprint } from '../../io/tokenizer-fingerprint.ts';
import type { OpenedModel } from '../model/open-model.ts';
import type { Platform } from '../platform/platform.ts';
import { planTraining, trainedTableField, type TrainRequest } from '../../contract/training-request.ts';
import { checkTeacherLabels } from '../../contract/teacher-labels.ts';
import { queryWeightsCrc, smallIdfNote, trainingDataIdf, widenQueryWeights, type QueryWeights } from './query-weights.ts';
import type { TextTokenizer } from '../../io/tokenizer.ts';
import { InvalidRequestError } from '../../contract/limits.ts';
import { checkLengthsFit } from '../../contract/max-tokens.ts';
import { savedModelFiles, type ModelCardExtras } from '../model/save-model.ts';
import { hostRowNorms } from '../model/head-report.ts';
import { headOf } from '../model/model-session.ts';
import type { RunRecord, RunStore } from '../../contract/runs.ts';
import { RunRecorder } from './run-recorder.ts';
import type { CheckpointInfo, TrainEvent } from '../../contract/training-events.ts';
import { alarmContext, type Alarm } from '../../contract/alarm-rules.ts';
import { AlarmWatcher } from './alarm-watcher.ts';
import { TrainingProbes } from './training-probes.ts';
import { RunOutcome } from '../../contract/sweep-plan.ts';

export type { CheckpointInfo, TrainEvent } from '../../contract/training-events.ts';

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

export { TrainingPaused } from '../../train/training-loop.ts';

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
  const loss = plan.recipe.loss ?? 'contrastive';
  const teacher = checkTeacherLabels(loss, data.source.negatives, data.labels, data.fingerprint.name);
  // a page resuming from cached batches alone has no rows to check: they were checked when the batches were made
  if (teacher.error && !data.source.cacheOnly) throw new InvalidRequestError(teacher.error);
  const lock = await platform.lockRun(options.run);
  try {
    const model = typeof options.model === 'function' ? await options.model() : options.model;
    // one weight per row of the head: a tokenizer smaller than the head (GTE: 30522 of 30528) leaves the rest at 0
    const queryWeights = request.inferenceFree
      ? widenQueryWeights(
          await (options.queryWeights ?? ((tokenizer) => trainingDataIdf(data, tokenizer)))(model.tokenizer),
          model.config.vocabSize,
        )
      : undefined;
    if (queryWeights)
      plan.recipe = {
        ...plan.recipe,
        inferenceFree: {
          queryWeights: queryWeights.source,
          crc32: queryWeightsCrc(queryWeights),
          ...trainedTableField(request, plan.recipe.schedule.peakLr),
        },
      };
    checkLengthsFit(model.config, {
      'The query length': plan.recipe.queryLength,
      'The document length': plan.recipe.documentLength,
    });
    const store = platform.checkpointStore(options.run);
    if (!plan.resume && options.existing === 'replace') {
      for (const { name } of await listCheckpoints(store)) await store.remove(name);
    }
    const provenance =
      options.provenance ??
      `${model.name} (${model.config.hfArchitecture}) fine-tuned on ${data.source.count} triplets of ${data.fingerprint.name}, head divided by k = ${plan.k}`;
    const tokenizer = model.tokenizer;
    const specials = Object.values(tokenizer.specialIds).flatMap((id) => (id === null ? [] : [tokenizer.idToToken(id) ?? '']));
    const watcher = new AlarmWatcher(alarmContext(plan.recipe, model.config.vocabSize), new Set(specials.filter(Boolean)));
    const recorder = options.record
      ? new RunRecorder(
          options.record.store,
          {
            id: options.run,
            sweep: options.record.sweep,
            model: { name: model.name, key: model.key, architecture: model.config.hfArchitecture, ...headNormsOf(model) },
            data: data.fingerprint,
          },
          watcher,
        )
      : null;
    let recorded = Promise.resolve();
    const emit = (event: TrainEvent) => {
      options.onEvent?.(event);
      if (!recorder) return;
      recorded = recorded.then(() => recorder.onEvent(event));
      recorded.catch(() => undefined); // awaited later (its failure is reported there), never an unhandled rejection
    };
    if (loss !== 'contrastive' && data.labels)
      emit({ kind: 'teacher', labels: data.labels, ...(teacher.warning ? { warning: teacher.warning } : {}) });
    if (teacher.note && data.labels) emit({ kind: 'note', note: teacher.note });
    const idfNote = queryWeights && smallIdfNote(queryWeights);
    if (idfNote) emit({ kind: 'note', note: idfNote });
    let stopping: Alarm | null = null;
    const raise = (alarms: Alarm[]) => {
      for (const alarm of alarms) {
        // warnings are reported; only alarms (the run is failing) stop it
        const stops = alarm.severity === 'alarm' && plan.stopOn.includes(alarm.rule);
        if (stops) stopping ??= alarm;
        emit({ kind: 'alarm', alarm, stops });
      }
    };
    let probes: TrainingProbes | null = null;
    const trained = plan.recipe.inferenceFree?.trained !== undefined;
    const inspect =
      plan.probes.every > 0 && plan.probes.texts.length > 0
        ? {
            every: plan.probes.every,
            async at(gpuModel: GpuModel, steps: number, extras: () => Promise<Map<string, HostTensor>>) {
              probes ??= new TrainingProbes(
                ctx,
                gpuModel,
                tokenizer,
                plan.probes.texts,
                { query: plan.recipe.queryLength, document: plan.recipe.documentLength },
                undefined,
                queryWeights?.weights,
              );
              // a trained query table is probed as it is now
              const trainedTable = trained ? (await extras()).get(QUERY_WEIGHTS_PARAM)?.data : undefined;
              const snapshot = await probes.take(steps, trainedTable);
              emit({ kind: 'probe', snapshot });
              raise(watcher.onProbes(snapshot));
            },
          }
        : undefined;
    const owned = await ctx
      .ownedAsync(() =>
        runTrainingLoop(ctx, model, data, store, {
          recipe: plan.recipe,
          k: plan.k,
          seed: plan.seed,
          queryWeights: queryWeights?.weights,
          frozenQueryIds: specialTokenIds(tokenizer),
          checkpointEvery: plan.checkpointEvery,
          reportEvery: plan.reportEvery,
          resume: plan.resume,
          signal: options.signal,
          onStart: async (startStep, resumedFrom, trainingMs) => {
            const k = plan.k;
            emit({ kind: 'start', startStep, resumedFrom, recipe: plan.recipe, k, seed: plan.seed, provenance, trainingMs });
            // the record is taken up (and cut back to the checkpoint, the watcher fed its history) before any step
            await recorded;
          },
          onReport: (report) => {
            emit({ kind: 'report', report });
            raise(watcher.onReport(report));
          },
          onCheckpoint: (name, step) => emit({ kind: 'checkpoint', name, step, store: store.label }),
          beforeCheckpoint: async () => {
            await recorded;
            await recorder?.flush();
          },
          memoryBudget: options.memoryBudget,
          batchCache:
            options.batchCache === false
              ? undefined
              : {
                  ...platform.batchCache,
                  tokenizer: tokenizerFingerprint(tokenizer),
                  // about a hundred progress events at most
                  onFill: (done, total) =>
                    (done === total || done % Math.ceil(total / 100) === 0) && emit({ kind: 'caching', done, total }),
                  onNote: (note) => emit({ kind: 'note', note }),
                },
          inspect,
          pauseReason: () => (stopping ? `alarm "${stopping.title}" (${stopping.rule}) at step ${stopping.step}` : null),
        }),
      )
      .catch(async (error: unknown) => {
        await recorded.catch(() => undefined); // the run's own error is the one to report
        const name = (error as { name?: string } | null)?.name;
        const status = name === 'AbortError' ? 'cancelled' : error instanceof TrainingPaused ? 'paused' : 'failed';
        await recorder?.end(status, { message: error instanceof Error ? error.message : String(error) });
        throw error;
      });
    await ctx.sync();
    await recorded;
    const { trainer, startStep, msPerStep } = owned.value;
    let closed = false;
    return {
      model,
      startStep,
      step: trainer.t,
      msPerStep,
      recipe: plan.recipe,
      k: plan.k,
      seed: plan.seed,
      download: () => trainer.model.download(),
      ...(queryWeights ? { queryWeights: (await trainer.readQueryWeights()) ?? queryWeights.weights } : {}),
      async close(details = {}) {
        if (closed) return;
        closed = true;
        owned.destroy();
        try {
          if (details.failure !== undefined) await recorder?.end('failed', { message: details.failure });
          else await recorder?.end('finished', { savedModel: details.savedModel });
        } finally {
          await lock.release();
        }
      },
    };
  } catch (error) {
    await lock.release();
    throw error;
  }
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
