// A GPU device lost in the middle of a training run whose kernels run split (the smallest per-dispatch budget, as on
// a GPU under a watchdog): the run stops with the last checkpoint kept, and resuming it on a fresh device ends on the
// same bits as a run that was never interrupted.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GpuContext } from '../../../src/gpu/context.ts';
import { nodeGpuContext } from '../../../src/gpu/webgpu-node.ts';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { memoryTripletSource } from '../../../src/io/triplets/triplet-source.ts';
import { parseTriplets } from '../../../src/io/triplets/triplets.ts';
import { loadModel, type LoadedModel } from '../../../src/model/load-model.ts';
import { readLatestCheckpoint } from '../../../src/train/training-checkpoint.ts';
import { createFolderCheckpointStore } from '../../../src/train/checkpoint-store-node.ts';
import { paperRecipe } from '../../../src/contract/training/recipe.ts';
import {
  spladeSteps,
  type Backbone,
  type TrainingData,
  type TrainingRunOptions,
} from '../../../src/train/splade/training-loop.ts';
import { finishSteps } from '../../../src/train/step-loop.ts';
import { generatedTriplets } from '../../helpers/generated-data.ts';
import { writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';

let root: string;

let backbone: Backbone;

let data: TrainingData;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-device-loss-'));
  await writeTinySpladeModel(join(root, 'model'));
  const loaded: LoadedModel = await loadModel(createFolderSource(join(root, 'model')));
  backbone = { config: loaded.config, hfConfig: loaded.checkpoint.config, params: loaded.params, tokenizer: loaded.tokenizer };
  const path = generatedTriplets();
  const triplets = parseTriplets(await readFile(path), path).triplets;
  data = { source: memoryTripletSource(triplets), fingerprint: { name: 'triplets.tsv', triplets: triplets.length, crc32: 7 } };
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** A fresh device whose splittable kernels split into pieces of at most a few thousand FLOPs. */
async function splitContext(): Promise<GpuContext> {
  const ctx = await nodeGpuContext('device loss');
  ctx.maxDispatchFlops = 4096;
  return ctx;
}

const recipe = paperRecipe(6, 2, { queryLength: 8, documentLength: 12, peakLr: 1e-3 });

const options = (resume: boolean): TrainingRunOptions => ({ recipe, k: 2, seed: 3, checkpointEvery: 2, reportEvery: 1, resume });

/** Trains to the end, telling `onReport` each report's step. */
function runTrainingLoop(
  ctx: GpuContext,
  store: ReturnType<typeof createFolderCheckpointStore>,
  settings: TrainingRunOptions,
  onReport?: (step: number) => void,
) {
  return finishSteps(spladeSteps(ctx, backbone, data, store, settings), (event) => {
    if (event.kind === 'report') onReport?.(event.report.step);
  });
}

describe('a lost device during split training', () => {
  it('keeps the last checkpoint, and the resumed run ends on the bits of an uninterrupted one', async () => {
    const straightCtx = await splitContext();
    const straight = await runTrainingLoop(straightCtx, createFolderCheckpointStore(join(root, 'straight')), options(false));
    const expected = await straight.trainer.model.download();
    straightCtx.destroy();

    const lostCtx = await splitContext();
    const store = createFolderCheckpointStore(join(root, 'interrupted'));
    const failure = await runTrainingLoop(lostCtx, store, options(false), (step) => step === 2 && lostCtx.device.destroy()).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure, 'the run stops when its device is lost').toBeInstanceOf(Error);
    const kept = await readLatestCheckpoint(store);
    expect(kept?.state.t).toBe(2);

    const freshCtx = await splitContext();
    const resumed = await runTrainingLoop(freshCtx, store, options(true));
    expect(resumed.startStep).toBe(2);
    const got = await resumed.trainer.model.download();
    for (const [name, tensor] of expected)
      expect(Buffer.from(got.get(name)!.data.buffer).equals(Buffer.from(tensor.data.buffer)), name).toBe(true);
    freshCtx.destroy();
  });
});
