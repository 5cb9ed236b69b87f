// The worker's training calls: the teaching demo, triplet files, a run (recorded, its model saved, resumable from
// IndexedDB checkpoints), sweeps of k or of the lambdas (queued, resumable after a reload), and cancel.
import { runKDemo } from '../app/training/k-demo.ts';
import { browserPlatform } from '../app/platform/platform-browser.ts';
import { EVAL_PAGE_MEMORY_BUDGET } from '../contract/evaluation/evaluation-memory.ts';
import type { TrainRequest } from '../contract/training/training-request.ts';
import { pageRunId, requestToTrain } from '../app/training/page-runs.ts';
import { idbSweepStore, pendingSweep } from '../app/platform/sweep-store-idb.ts';
import { runSweep } from '../app/experiments/sweep-run.ts';
import { type SweepEvent, planSweep, type SweepPlan } from '../contract/experiments/sweep-plan.ts';
import { TrainingPaused, checkpointInfo, trainRun } from '../app/training/train.ts';
import { cachedTrainingData, readHubTrainingData, readTrainingBlob } from '../app/training/training-data.ts';
import { handoffProject } from '../app/handoff/handoff-project.ts';
import { handoffTriplets } from '../app/handoff/handoff-triplets.ts';
import { calibrateLambdas } from '../app/experiments/calibrate-lambdas.ts';
import { zipFiles } from '../app/training/run-exports.ts';
import type { PageSweepRequest, WorkerApi } from './api.ts';
import type { WorkerState } from './state.ts';

type TrainingMethods = Pick<
  WorkerApi,
  | 'kDemo'
  | 'readTriplets'
  | 'readHubTriplets'
  | 'batchCaches'
  | 'clearBatchCache'
  | 'useCachedBatches'
  | 'trainingCheckpoint'
  | 'train'
  | 'sweep'
  | 'calibrate'
  | 'pendingSweep'
  | 'resumeSweep'
  | 'handoff'
  | 'cancelJob'
>;

/** The page's run key of a request on the loaded model and the read triplets. */
function runId(state: WorkerState, request: Pick<TrainRequest, 'k' | 'lambdaQueries' | 'lambdaDocuments'>): string {
  return pageRunId(state.loadedSession().model, state.loadedTriplets().data, request);
}

async function sweepWith(
  state: WorkerState,
  plan: SweepPlan,
  evaluate: PageSweepRequest['evaluate'] | null,
  signal: AbortSignal,
  onEvent: (event: SweepEvent) => void,
): Promise<SweepPlan> {
  const session = state.loadedSession();
  const triplets = state.loadedTriplets();
  return runSweep(await state.context(), browserPlatform, {
    plan,
    plans: idbSweepStore,
    model: session.model,
    data: triplets.data,
    runIdOf: (request) => runId(state, request),
    evaluate: evaluate
      ? {
          sets: evaluate.sets.map((name) => state.dataset(name)),
          request: { ...evaluate, search: 'exhaustive' },
          memoryBudget: EVAL_PAGE_MEMORY_BUDGET,
        }
      : undefined,
    signal,
    onEvent,
  });
}

export function trainingMethods(state: WorkerState): TrainingMethods {
  return {
    async kDemo(request, onRun) {
      return state.job(async (signal) => runKDemo(await state.context(), request, { signal, onRun }));
    },
    async readTriplets(file) {
      state.triplets = null;
      // streamed: the worker keeps an index of the rows and the File, never the whole text
      state.triplets = { ...(await readTrainingBlob(file, file.name)), file };
      return state.triplets.summary;
    },
    async readHubTriplets({ hubUrl, ...ref }) {
      state.triplets = null;
      const read = await readHubTrainingData(browserPlatform, ref, { baseUrl: hubUrl });
      state.triplets = { data: read.data, summary: read.summary, file: null };
      return read.summary;
    },
    async batchCaches() {
      return browserPlatform.batchCache.store.list();
    },
    async clearBatchCache(fingerprint) {
      await browserPlatform.batchCache.store.clear(fingerprint);
      if (state.triplets?.file === null && (fingerprint === undefined || state.triplets.summary.cacheFingerprint === fingerprint))
        state.triplets = null;
    },
    async useCachedBatches(fingerprint) {
      const entry = (await browserPlatform.batchCache.store.list()).find((e) => e.fingerprint === fingerprint);
      if (!entry)
        throw new Error('Those cached batches are gone (cleared, or the browser freed the storage); pick the file again.');
      state.triplets = { ...cachedTrainingData(entry), file: null };
      return state.triplets.summary;
    },
    async trainingCheckpoint(k, lambdas) {
      return checkpointInfo(browserPlatform.checkpointStore(runId(state, { k, ...lambdas })));
    },
    async train(request, onEvent) {
      return state.job(async (signal) => {
        const session = state.loadedSession();
        const triplets = state.loadedTriplets();
        const run = runId(state, request);
        const asked = await requestToTrain(browserPlatform, run, request);
        const label = state.summary?.label ?? session.model.name;
        const provenance = `${label} (${session.model.config.hfArchitecture}), fine-tuned on ${triplets.summary.triplets} triplets of ${triplets.summary.name}, head divided by k = ${request.k}`;
        try {
          const outcome = await trainRun(await state.context(), browserPlatform, {
            model: session.model,
            data: triplets.data,
            run,
            request: asked,
            existing: 'replace',
            provenance,
            signal,
            onEvent,
            record: { store: browserPlatform.runs },
          });
          return { startStep: outcome.startStep, step: outcome.step, msPerStep: outcome.msPerStep };
        } catch (error) {
          if (!(error instanceof TrainingPaused)) throw error;
          return {
            startStep: error.startStep,
            step: error.step,
            msPerStep: NaN,
            paused: { reason: error.reason, checkpoint: error.checkpoint },
          };
        }
      });
    },
    async sweep(request, onEvent) {
      return state.job(async (signal) => {
        const plan = planSweep(
          request,
          state.loadedSession().model.key,
          state.loadedTriplets().data.fingerprint,
          new Date().toISOString(),
        );
        await idbSweepStore.put(plan);
        return sweepWith(state, plan, request.evaluate ?? null, signal, onEvent);
      });
    },
    async calibrate(request, onEvent) {
      return state.job(async (signal) => {
        const { evaluate, ...calibration } = request;
        return calibrateLambdas(await state.context(), browserPlatform, {
          model: state.loadedSession().model,
          data: state.loadedTriplets().data,
          request: calibration,
          // each trial is a run of its own (the lambdas and batch are in its key), kept with the page's runs
          runIdOf: (train) => `${runId(state, train)} | batch ${train.batchSize} | calibration`,
          evaluate: evaluate
            ? {
                sets: evaluate.sets.map((name) => state.dataset(name)),
                request: { ...evaluate, search: 'exhaustive' },
                memoryBudget: EVAL_PAGE_MEMORY_BUDGET,
              }
            : undefined,
          signal,
          onEvent,
        });
      });
    },
    async pendingSweep() {
      return pendingSweep(state.loadedSession().model.key, state.loadedTriplets().data.fingerprint);
    },
    async resumeSweep(id, evaluate, onEvent) {
      return state.job(async (signal) => {
        const plan = await idbSweepStore.get(id);
        if (!plan) throw new Error(`There is no sweep "${id}" in this browser to resume.`);
        return sweepWith(state, plan, evaluate, signal, onEvent);
      });
    },
    async handoff(request) {
      return state.job(async () => {
        const { file } = state.loadedTriplets();
        if (!file)
          throw new Error(
            'The hand-off copies the triplet file into its project: pick the file again (cached batches are not enough).',
          );
        const read = await handoffTriplets(new Uint8Array(await file.arrayBuffer()), file.name);
        const files = await handoffProject(await state.context(), {
          model: state.loadedSession().model,
          data: read.data,
          tripletBytes: read.bytes,
          request,
        });
        return { name: 'splade-lab-handoff.zip', type: 'application/zip', bytes: zipFiles(files, 'splade-lab-handoff') };
      });
    },
    cancelJob() {
      state.cancelJob();
    },
  };
}
