// The worker's training work: the synthetic k demo (per k, cancellable between ks), triplet files, IndexedDB
// checkpoints keyed by model + data + k, and full fine-tuning of the loaded backbone through runTraining.
import type { GpuContext } from '../gpu/context.ts';
import { parseTriplets } from '../io/triplets.ts';
import { crc32 } from '../util/crc32.ts';
import { listCheckpoints, readLatestCheckpoint, type CheckpointStore } from '../train/checkpoint.ts';
import { createIdbCheckpointStore } from '../train/checkpoint-store-idb.ts';
import { K_DEMO_SHAPE, runSyntheticKDemo } from '../train/synthetic-k-demo.ts';
import { paperRecipe, type TrainingRecipe } from '../train/trainer.ts';
import { runTraining, type Backbone, type TrainingData } from '../train/training-run.ts';
import type { CheckpointInfo, KDemoRequest, KDemoResult, KDemoSeries, TrainEvent, TrainRequest, TrainResult, TripletsSummary } from './api.ts';

/** Most k values the demo draws at once (one colour and dash pattern each). */
export const K_DEMO_MAX_KS = 6;
export const K_DEMO_MAX_STEPS = 2000;
/** Points per line the demo reads back (every few steps, plus the first and the last). */
const K_DEMO_POINTS = 60;
/** Reports per run of real training (each reads the losses and active dimensions back). */
const TRAIN_REPORTS = 100;
const SEED = 1;

export const K_DEMO_PROVENANCE =
  `synthetic data: seeded random hidden states (${K_DEMO_SHAPE.B} queries of ${K_DEMO_SHAPE.Tq} tokens, ` +
  `${2 * K_DEMO_SHAPE.B} documents of ${K_DEMO_SHAPE.Td}, d = ${K_DEMO_SHAPE.d}) and a random head of ${K_DEMO_SHAPE.V} rows ` +
  `with mean row norm 2.5, divided by k; only the head is trained (no model, no real text)`;

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('Cancelled by the user', 'AbortError');
}

function checkInteger(value: number, min: number, max: number, what: string): void {
  if (!Number.isInteger(value) || value < min || value > max) throw new RangeError(`${what} must be a whole number from ${min} to ${max}, got ${value}`);
}

/** Runs the demo one k at a time; the page gets the growing line of the k in training after every read-back. */
export async function runKDemo(
  ctx: GpuContext,
  request: KDemoRequest,
  signal: AbortSignal,
  onRun: (run: KDemoSeries, index: number, total: number, finished: boolean) => void,
): Promise<KDemoResult> {
  const { ks, steps } = request;
  checkInteger(ks.length, 1, K_DEMO_MAX_KS, 'The number of k values');
  for (const k of ks) if (!(k > 0) || !Number.isFinite(k)) throw new RangeError(`k must be a positive number, got ${k}`);
  checkInteger(steps, 1, K_DEMO_MAX_STEPS, 'Steps');
  const every = Math.max(1, Math.floor(steps / K_DEMO_POINTS));
  const runs: KDemoSeries[] = [];
  for (const k of ks) {
    if (signal.aborted) throw abortError(signal);
    const index = runs.length;
    const onLosses = (_: number, losses: readonly KDemoSeries['losses'][number][]) => onRun({ k, losses: [...losses] }, index, ks.length, false);
    const [run] = await runSyntheticKDemo(ctx, { ks: [k], steps, every, onLosses, signal }).catch((error) => {
      throw signal.aborted ? abortError(signal) : error;
    });
    runs.push(run);
    onRun(run, index, ks.length, true);
  }
  return { runs, provenance: K_DEMO_PROVENANCE };
}

/** A triplet file read in the worker: what training needs and what the page shows. */
export interface ReadTriplets {
  summary: TripletsSummary;
  data: TrainingData;
}

export async function readTripletFile(file: File): Promise<ReadTriplets> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const parsed = parseTriplets(new TextDecoder('utf-8').decode(bytes), file.name);
  const fingerprint = { name: file.name, triplets: parsed.triplets.length, crc32: crc32(bytes) };
  return {
    summary: { name: file.name, triplets: parsed.triplets.length, bytes: bytes.length, blankLines: parsed.blankLines, header: parsed.header, crc32: fingerprint.crc32 },
    data: { triplets: parsed.triplets, fingerprint },
  };
}

/** The IndexedDB checkpoints of one model + data (count and CRC-32, not the file name) + k. */
export function checkpointStoreFor(model: string, data: TrainingData, k: number): CheckpointStore {
  const { triplets, crc32: crc } = data.fingerprint;
  return createIdbCheckpointStore(`${model} | ${triplets} triplets crc32 ${crc.toString(16)} | k = ${k}`);
}

export async function checkpointInfo(store: CheckpointStore): Promise<CheckpointInfo | null> {
  const latest = await readLatestCheckpoint(store);
  return latest && { step: latest.state.t, recipe: latest.state.recipe, seed: latest.state.seed, store: store.label };
}

/** The paper's recipe with the page's steps, batch size and lengths. */
export function recipeFor(request: TrainRequest): TrainingRecipe {
  checkInteger(request.steps, 1, 10_000_000, 'Steps');
  checkInteger(request.batchSize, 1, 4096, 'The batch size');
  checkInteger(request.queryLength, 2, 8192, 'The query length');
  checkInteger(request.documentLength, 2, 8192, 'The document length');
  checkInteger(request.checkpointEvery, 1, 10_000_000, 'Checkpoint every');
  return paperRecipe(request.steps, request.batchSize, { queryLength: request.queryLength, documentLength: request.documentLength });
}

/**
 * A run of full fine-tuning. Resuming continues the store's checkpoint with its own recipe and seed; a new run first
 * removes any checkpoint the store holds (the page asked the user).
 */
export async function trainBackbone(
  ctx: GpuContext,
  backbone: Backbone,
  data: TrainingData,
  store: CheckpointStore,
  request: TrainRequest,
  provenance: string,
  signal: AbortSignal,
  onEvent: (event: TrainEvent) => void,
): Promise<TrainResult> {
  let recipe = recipeFor(request);
  let seed = SEED;
  if (request.resume) {
    const info = await checkpointInfo(store);
    if (!info) throw new Error(`${store.label} holds no checkpoint to resume; start a new run`);
    ({ recipe, seed } = info);
  } else {
    for (const { name } of await listCheckpoints(store)) await store.remove(name);
  }
  // The run's model copy, trainer and passes are freed when it ends (the loaded model stays as it was).
  const run = await ctx.ownedAsync(() => runTraining(ctx, backbone, data, store, {
    recipe,
    k: request.k,
    seed,
    checkpointEvery: request.checkpointEvery,
    reportEvery: Math.max(1, Math.round(recipe.schedule.totalSteps / TRAIN_REPORTS)),
    resume: request.resume,
    signal,
    onStart: (startStep, resumedFrom) => onEvent({ kind: 'start', startStep, resumedFrom, recipe, provenance }),
    onReport: (report) => onEvent({ kind: 'report', report }),
    onCheckpoint: (name, step) => onEvent({ kind: 'checkpoint', name, step }),
  }));
  await ctx.sync();
  run.destroy();
  return { startStep: run.value.startStep, step: run.value.trainer.t, msPerStep: run.value.msPerStep };
}
