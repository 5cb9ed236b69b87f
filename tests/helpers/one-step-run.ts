// One training step of a tiny model as the SGD-step tests take it: the plain request (SGD, no warm-up, no ramp, no
// clipping, no dropout, file order), the float64 starting point (head divided by k), and a run through the
// application layer's trainModel in this process, saved, with its events named as the CLI's JSON lines name them.
import { openModelRef } from '../../src/app/model/open-model.ts';
import { nodePlatform } from '../../src/app/platform/platform-node.ts';
import { saveTrainedModel, trainModel, type TrainEvent, type TrainOptions } from '../../src/app/training/train.ts';
import { readTrainingData } from '../../src/app/training/training-data.ts';
import type { TrainRequest } from '../../src/contract/training/training-request.ts';
import { decoderWeightName, type ModelParams } from '../../src/model/layout.ts';
import type { LoadedModel } from '../../src/model/load-model.ts';
import { toFloat64Params } from '../../src/model/weights.ts';
import { expectClose } from './compare.ts';
import { gpuContext } from './gpu.ts';

/** One batch of the SGD-step tests: four triplets over the tiny vocabulary (tiny-splade-model.ts), as a TSV. */
export const FOUR_TRIPLETS_TSV =
  [
    'cat on a mat\tthe cat sat on the mat\tthe dog ran in the forest',
    'gene drug study\ta drug study of the gene\tthe sun and the moon',
    'heart blood\tthe blood of the heart\ta song of the sea',
    'sparse vector search\tsparse vector search of the data\tthe car on the road',
  ].join('\n') + '\n';

/** One SGD step of a batch of 4 at lengths 8 and 12, the update then -lr x the gradient (as the CLI flags say). */
export function plainStepRequest(k: number, lr: number): TrainRequest {
  return {
    k,
    steps: 1,
    batchSize: 4,
    queryLength: 8,
    documentLength: 12,
    peakLr: lr,
    optimizer: 'sgd',
    weightDecay: 0,
    warmupRatio: 0,
    flopsRampRatio: 0,
    maxGradNorm: 0,
    dropout: 0,
    lambdaQueries: 0.05,
    lambdaDocuments: 0.003,
    shuffle: false,
    checkpointEvery: 50,
    reportEvery: 1,
    probeEvery: 0,
    resume: false,
  };
}

/** The float64 parameters training starts from: the backbone's, head divided by k. */
export function startingPoint(loaded: LoadedModel, k: number): ModelParams {
  const params = toFloat64Params(loaded.params);
  const head = params[decoderWeightName(loaded.config)];
  for (let i = 0; i < head.length; i++) head[i] /= k;
  return params;
}

/**
 * Expects every parameter of `saved` to have moved from `start` by `expected(name)` (rtol 2e-3, atol 3e-7 plus 1e-3 of
 * the tensor's largest expected move), each check named `<label>: update of <name>`; returns the largest move expected.
 */
export function expectUpdates(
  label: string,
  saved: LoadedModel,
  start: ModelParams,
  expected: (name: string) => Float64Array,
): number {
  let largest = 0;
  for (const name of Object.keys(start)) {
    const update = Float64Array.from(saved.params.get(name)!.data, (x, i) => x - start[name][i]);
    const move = expected(name);
    const tensorLargest = move.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
    largest = Math.max(largest, tensorLargest);
    expectClose(`${label}: update of ${name}`, update, move, { rtol: 2e-3, atol: 3e-7 + 1e-3 * tensorLargest });
  }
  return largest;
}

export type StepEvent = { event: string; [key: string]: unknown };

/**
 * Trains `modelDir` on the rows of `text` (named `name`, which says its format) through trainModel, saves the model
 * into `<run>/model` as the CLI does, and returns the teacher and step events as the CLI's JSON names them.
 */
export async function trainOneStepInProcess(
  modelDir: string,
  text: string,
  name: string,
  run: string,
  request: TrainRequest,
  options: Pick<TrainOptions, 'queryWeights'> = {},
): Promise<StepEvent[]> {
  const ctx = await gpuContext();
  const model = await openModelRef(nodePlatform, { kind: 'folder', path: modelDir }, { limits: ctx.limits });
  const { data } = readTrainingData(new TextEncoder().encode(text), name);
  const events: StepEvent[] = [];
  const onEvent = (event: TrainEvent) => {
    if (event.kind === 'teacher') events.push({ event: 'teacher', ...event.labels, warning: event.warning });
    if (event.kind === 'report') events.push({ event: 'step', ...event.report });
  };
  const trained = await trainModel(ctx, nodePlatform, {
    model,
    data,
    run,
    request,
    existing: 'refuse',
    batchCache: false,
    onEvent,
    ...options,
  });
  try {
    await saveTrainedModel(nodePlatform, run, trained);
  } finally {
    await trained.close();
  }
  return events;
}
