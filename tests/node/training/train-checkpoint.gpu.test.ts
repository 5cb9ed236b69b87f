// Checkpoints: 3 steps + checkpoint + a fresh restore + 3 steps equals 6 straight steps bit for bit (parameters, AdamW
// moments and step); damaged checkpoints give errors naming the file and never cost the previous good one.
import { memoryTripletSource } from '../../../src/io/triplets/triplet-source.ts';
import { mkdtemp, readdir, readFile, rm, truncate, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import type { HostTensor } from '../../../src/io/host-tensor.ts';
import { readTriplets, type Triplet } from '../../../src/io/triplets/triplets.ts';
import { GpuModel } from '../../../src/model/gpu-model.ts';
import { loadModel, type LoadedModel } from '../../../src/model/load-model.ts';
import { TripletBatches } from '../../../src/train/splade/batches.ts';
import {
  captureTrainingState,
  CheckpointCorruptError,
  listCheckpoints,
  readCheckpoint,
  readLatestCheckpoint,
  restoreTrainer,
  saveCheckpoint,
  type TrainingState,
} from '../../../src/train/training-checkpoint.ts';
import { createFolderCheckpointStore } from '../../../src/train/checkpoint-store-node.ts';
import { SpladeTrainer } from '../../../src/train/splade/trainer.ts';
import { paperRecipe, type TrainingRecipe } from '../../../src/contract/training/recipe.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';
import { generatedTripletsFolder } from '../../helpers/generated-data.ts';

let root: string;

let loaded: LoadedModel;

let triplets: Triplet[];
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-checkpoint-'));
  await writeTinySpladeModel(join(root, 'model'));
  loaded = await loadModel(createFolderSource(join(root, 'model')));
  triplets = (await readTriplets(createFolderSource(generatedTripletsFolder()), 'triplets.tsv')).triplets;
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** Same bits, element by element (so -0 vs 0 and NaN payloads count); names the first difference. */
function expectSameBits(label: string, actual: Float32Array, expected: Float32Array): void {
  expect(actual.length, `${label}: length`).toBe(expected.length);
  const a = new Uint32Array(actual.buffer, actual.byteOffset, actual.length);
  const b = new Uint32Array(expected.buffer, expected.byteOffset, expected.length);
  const i = a.findIndex((bits, j) => bits !== b[j]);
  expect(i, i < 0 ? label : `${label}[${i}]: ${actual[i]} vs ${expected[i]}`).toBe(-1);
}

function expectSameState(label: string, actual: TrainingState, expected: TrainingState): void {
  expect(actual.t, `${label}: t`).toBe(expected.t);
  expect(actual.optimizer.step, `${label}: AdamW step`).toBe(expected.optimizer.step);
  expect(actual.position, `${label}: data position`).toEqual(expected.position);
  expect([...actual.params.keys()].sort()).toEqual([...expected.params.keys()].sort());
  for (const [name, p] of expected.params) expectSameBits(`${label}: ${name}`, actual.params.get(name)!.data, p.data);
  expect([...actual.optimizer.moments.keys()].sort()).toEqual([...expected.optimizer.moments.keys()].sort());
  for (const [name, { m, v }] of expected.optimizer.moments) {
    expectSameBits(`${label}: m of ${name}`, actual.optimizer.moments.get(name)!.m, m);
    expectSameBits(`${label}: v of ${name}`, actual.optimizer.moments.get(name)!.v, v);
  }
}

const STEPS = 6;

const SEED = 11;

function recipe(): TrainingRecipe {
  return paperRecipe(STEPS, 2, { queryLength: 8, documentLength: 12, peakLr: 3e-3 });
}

const run = () => ({
  config: loaded.checkpoint.config,
  k: 1,
  seed: SEED,
  data: { name: 'triplets.tsv', triplets: triplets.length, crc32: 0 },
});

async function train(trainer: SpladeTrainer, batches: TripletBatches, steps: number): Promise<void> {
  for (let i = 0; i < steps; i++) await trainer.step([(await batches.next()).batch], i === steps - 1);
}

describe('resuming from a checkpoint', () => {
  it('3 steps + checkpoint + fresh restore + 3 steps equals 6 straight steps, bit for bit (dropout masks included)', async () => {
    const ctx = await gpuContext();
    const shape = recipe();
    const straight = new SpladeTrainer(ctx, GpuModel.upload(ctx, loaded.config, loaded.params), shape, SEED);
    const straightData = new TripletBatches(memoryTripletSource(triplets), loaded.tokenizer, shape, SEED);
    await train(straight, straightData, STEPS);
    const expected = await captureTrainingState(straight, { ...run(), position: straightData.position });

    const first = new SpladeTrainer(ctx, GpuModel.upload(ctx, loaded.config, loaded.params), shape, SEED);
    const firstData = new TripletBatches(memoryTripletSource(triplets), loaded.tokenizer, shape, SEED);
    await train(first, firstData, 3);
    const halfway = await captureTrainingState(first, { ...run(), position: firstData.position });
    const store = createFolderCheckpointStore(join(root, 'resume'));
    expect(await saveCheckpoint(store, halfway)).toBe('step-00000003');

    const latest = (await readLatestCheckpoint(store))!;
    expect(latest.name).toBe('step-00000003');
    expectSameState('checkpoint read back', latest.state, halfway);
    expect(latest.state.recipe).toEqual(shape);
    const resumed = restoreTrainer(ctx, latest.state);
    expect(resumed.model).not.toBe(first.model);
    const resumedData = new TripletBatches(
      memoryTripletSource(triplets),
      loaded.tokenizer,
      latest.state.recipe,
      latest.state.seed,
      latest.state.position,
    );
    await train(resumed, resumedData, STEPS - 3);
    expectSameState('resumed run', await captureTrainingState(resumed, { ...run(), position: resumedData.position }), expected);

    // The comparison has teeth: the last three steps changed the parameters, and a restore without the moments differs.
    expect(halfway.params.get('layers.0.qkv.weight')!.data).not.toEqual(expected.params.get('layers.0.qkv.weight')!.data);
    const zeroMoments = new Map(
      [...halfway.optimizer.moments].map(([name, { m }]) => [
        name,
        { m: new Float32Array(m.length), v: new Float32Array(m.length) },
      ]),
    );
    const forgetful = restoreTrainer(ctx, { ...halfway, optimizer: { step: 3, moments: zeroMoments } });
    await train(
      forgetful,
      new TripletBatches(memoryTripletSource(triplets), loaded.tokenizer, shape, SEED, halfway.position),
      STEPS - 3,
    );
    const wrong = await forgetful.model.download();
    expect(wrong.get('layers.0.qkv.weight')!.data).not.toEqual(expected.params.get('layers.0.qkv.weight')!.data);
  });

  it('refuses optimiser state that does not fit the model, before uploading anything', async () => {
    const ctx = await gpuContext();
    const trainer = new SpladeTrainer(ctx, GpuModel.upload(ctx, loaded.config, loaded.params), recipe());
    const state = await trainer.readOptimizerState();
    const missing = new Map(state.moments);
    missing.delete('layers.1.qkv.weight');
    expect(() => trainer.restoreState(3, { step: 3, moments: missing })).toThrow('no moments for layers.1.qkv.weight');
    const short = new Map(state.moments).set('layers.1.qkv.weight', { m: new Float32Array(3), v: new Float32Array(3) });
    expect(() => trainer.restoreState(3, { step: 3, moments: short })).toThrow('m holds 3 and v 3 values, expected');
    expect(trainer.t).toBe(0);
  });
});

/** A small host-only state (no GPU) for the store tests. */
function fakeState(t: number): TrainingState {
  const tensor = (n: number, base: number): HostTensor => ({
    shape: [n],
    data: Float32Array.from({ length: n }, (_, i) => base + i / 8),
  });
  return {
    config: { model_type: 'bert', vocab_size: 55 },
    params: new Map([
      ['a', tensor(16, t)],
      ['b', tensor(4, -t)],
    ]),
    optimizer: {
      step: t,
      moments: new Map([
        ['a', { m: tensor(16, 1).data, v: tensor(16, 2).data }],
        ['b', { m: tensor(4, 3).data, v: tensor(4, 4).data }],
      ]),
    },
    t,
    position: { epoch: 0, index: 2 * t },
    recipe: paperRecipe(10, 2),
    k: 4,
    seed: 1,
    data: { name: 'x.tsv', triplets: 100, crc32: 123 },
  };
}

describe('checkpoint store on disk', () => {
  it('keeps the newest two, and a damaged newest checkpoint is named while the previous one still loads', async () => {
    const dir = join(root, 'damage');
    const store = createFolderCheckpointStore(dir);
    for (const t of [3, 6, 9]) await saveCheckpoint(store, fakeState(t));
    expect((await listCheckpoints(store)).map((c) => c.name)).toEqual(['step-00000006', 'step-00000009']);
    expectSameState('newest', (await readLatestCheckpoint(store))!.state, fakeState(9));

    const model = join(dir, 'step-00000009', 'model.safetensors');
    await truncate(model, 40);
    const error = await readLatestCheckpoint(store).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckpointCorruptError);
    expect((error as Error).message).toContain(`${dir}/step-00000009/model.safetensors: 40 bytes, state.json says`);
    expect((error as Error).message).toContain('truncated');
    expect((error as Error).message).toContain('The previous checkpoint step-00000006 is still in');
    expectSameState('previous', await readCheckpoint(store, 'step-00000006'), fakeState(6));
  });

  it.each([
    ['state.json', (bytes: Buffer) => bytes.subarray(0, bytes.length - 7), 'state.json: not valid JSON'],
    [
      'state.json',
      () => Buffer.from('{"format":"splade-lab-checkpoint","version":1,"t":"three"}'),
      'state.json: "t" is "three", expected a number',
    ],
    [
      'optimizer.safetensors',
      (bytes: Buffer) => Buffer.from(bytes.map((b, i) => (i === bytes.length - 1 ? b ^ 1 : b))),
      'optimizer.safetensors: CRC-32 differs',
    ],
  ])('a damaged %s gives a clear error naming it', async (file, damage, message) => {
    const dir = join(root, `damaged-${file}-${message.length}`);
    const store = createFolderCheckpointStore(dir);
    await saveCheckpoint(store, fakeState(4));
    const path = join(dir, 'step-00000004', file);
    await writeFile(path, damage(await readFile(path)));
    await expect(readCheckpoint(store, 'step-00000004')).rejects.toThrow(`${dir}/step-00000004/${message}`);
  });

  it('an interrupted write is never listed and never touches the previous checkpoint', async () => {
    const dir = join(root, 'interrupted');
    const store = createFolderCheckpointStore(dir);
    await saveCheckpoint(store, fakeState(2));
    // A write that dies half-way (here: its second file is refused) leaves only a hidden partial folder.
    const files = new Map([
      ['state.json', new Uint8Array([1, 2])],
      ['../escape', new Uint8Array([3])],
    ]);
    await expect(store.write('step-00000004', files)).rejects.toThrow('points outside');
    expect((await readdir(dir)).sort()).toEqual(['.step-00000004.partial-' + process.pid, 'step-00000002']);
    expect(await store.list()).toEqual(['step-00000002']);
    expectSameState('survivor', (await readLatestCheckpoint(store))!.state, fakeState(2));
    // A leftover from a crashed process is cleaned by the next write; replacing a checkpoint of the same name is whole.
    await mkdir(join(dir, '.step-00000007.partial-99999'));
    await saveCheckpoint(store, fakeState(2));
    expect((await readdir(dir)).sort()).toEqual(['step-00000002']);
  });

  it('an empty store has no latest checkpoint', async () => {
    expect(await readLatestCheckpoint(createFolderCheckpointStore(join(root, 'nothing')))).toBeNull();
  });
});
