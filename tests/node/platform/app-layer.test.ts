// The application layer both the worker and the CLI call: one k check and one set of limits; the head divided by k
// once, from the pristine copy (ks never compound; a tied head stays tied); head statistics scale by 1/k; a model
// with a NaN weight is refused with the tensor's name; a run takes a lock a second writer cannot take.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { K_RANGE, checkK, checkRange, describeRange } from '../../../src/contract/limits.ts';
import { openModelSession } from '../../../src/app/model/model-session.ts';
import { openModelRef } from '../../../src/app/model/open-model.ts';
import { nodePlatform } from '../../../src/app/platform/platform-node.ts';
import {
  planTraining,
  requestFromRecipe,
  trainedTableField,
  type TrainRequest,
} from '../../../src/contract/training/training-request.ts';
import { checkKDemoRequest } from '../../../src/contract/model/model-requests.ts';
import { readSafetensors, writeSafetensors } from '../../../src/io/formats/safetensors.ts';
import { decoderWeightName } from '../../../src/model/layout.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { writeTinySpladeModel } from '../../helpers/tiny-splade-model.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-app-'));
  await writeTinySpladeModel(join(root, 'tiny'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

const REQUEST: TrainRequest = {
  k: 1,
  steps: 4,
  batchSize: 2,
  queryLength: 8,
  documentLength: 16,
  checkpointEvery: 2,
  resume: false,
};

describe('one set of limits', () => {
  it('checks k once, with one message', () => {
    expect(checkK(4)).toBe(4);
    for (const bad of [0, -1, NaN, Infinity, 65, 0.1])
      expect(() => checkK(bad)).toThrow(`k must be ${describeRange(K_RANGE)}, got ${bad}`);
    expect(describeRange(K_RANGE)).toBe('a number from 0.25 to 64');
  });

  it("a trained query table's lr plans back to itself: its own (default 1e-3), or absent (the model's) in older recipes", () => {
    const inferenceFree = { ...REQUEST, inferenceFree: true, trainQueryWeights: true, queryL1: 0.01 };
    for (const [request, trained] of [
      [inferenceFree, { l1: 0.01, lr: 1e-3 }],
      [
        { ...inferenceFree, queryTableLr: 0.05 },
        { l1: 0.01, lr: 0.05 },
      ],
      [{ ...inferenceFree, queryTableLr: 1e-4 }, { l1: 0.01 }], // the model's lr: the field's old meaning
    ] as const) {
      const plan = planTraining(request, 100);
      const field = trainedTableField(request, plan.recipe.schedule.peakLr);
      expect(field).toEqual({ trained });
      const recipe = { ...plan.recipe, inferenceFree: { queryWeights: 'idf', crc32: 1, ...field } };
      const again = requestFromRecipe(recipe, plan.k, plan.seed, 2);
      expect(trainedTableField(again, planTraining(again, 100).recipe.schedule.peakLr)).toEqual({ trained });
    }
    expect(() => planTraining({ ...REQUEST, queryTableLr: 1e-3 }, 100)).toThrow(
      "The query table's learning rate is for a trained query table",
    );
    expect(() => planTraining({ ...inferenceFree, queryTableLr: 0 }, 100)).toThrow("The query table's learning rate");
    // the KL loss defaults to sentence-transformers' T = 2, the contrastive one to the paper's 1
    expect(planTraining({ ...REQUEST, loss: 'kl' }, 100).recipe.tau).toBe(2);
    expect(planTraining(REQUEST, 100).recipe.tau).toBe(1);
  });

  it("a saved run's recipe plans back to itself, whatever its semantics (what resuming relies on)", () => {
    const requests: TrainRequest[] = [
      REQUEST,
      {
        ...REQUEST,
        optimizer: 'sgd',
        weightDecay: 0.1,
        warmupRatio: 0,
        flopsRampRatio: 0,
        temperature: 0.05,
        maxGradNorm: 0,
        gradAccum: 3,
        flopsOver: 'step',
        dropout: 0,
        shuffle: false,
      },
      { ...REQUEST, maxGradNorm: 2.5, dropout: 0.2, gradAccum: 2, flopsOver: 'micro-batch' },
    ];
    for (const request of requests) {
      for (const negatives of [1, 3]) {
        const { recipe, k, seed } = planTraining(request, 100, negatives);
        const again = planTraining(requestFromRecipe(recipe, k, seed, 2), 100, negatives).recipe;
        expect(again).toEqual(recipe);
        expect(JSON.stringify(again)).toBe(JSON.stringify(recipe));
      }
    }
    // defaults: the paper's stack (clipping at 1.0, the backbone's dropout), and the fields older recipes lack stay absent
    const plain = planTraining(REQUEST, 100).recipe;
    expect([plain.maxGradNorm, plain.dropout, plain.gradAccum, plain.flopsOver, plain.negatives, plain.flopsRampRatio]).toEqual([
      1,
      'config',
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(() => planTraining({ ...REQUEST, optimizer: 'lion' as TrainRequest['optimizer'] }, 100)).toThrow(
      'Unknown optimiser "lion"',
    );
    expect(() => planTraining({ ...REQUEST, dropout: 1 }, 100)).toThrow('The dropout probability');
    expect(() => planTraining({ ...REQUEST, gradAccum: 0 }, 100)).toThrow('Gradient accumulation');
  });

  it('refuses negative learning rates and lambdas, seeds wider than 32 bits, and steps and epochs together', () => {
    expect(() => planTraining({ ...REQUEST, peakLr: -1e-4 }, 100)).toThrow(
      'The learning rate must be a number above 0, got -0.0001',
    );
    expect(() => planTraining({ ...REQUEST, peakLr: 0 }, 100)).toThrow('learning rate');
    expect(() => planTraining({ ...REQUEST, lambdaQueries: -1 }, 100)).toThrow('lambda_q must be a number of at least 0, got -1');
    expect(() => planTraining({ ...REQUEST, lambdaDocuments: NaN }, 100)).toThrow('lambda_d');
    expect(() => planTraining({ ...REQUEST, seed: 2 ** 32 }, 100)).toThrow(
      'The seed must be a whole number from 0 to 4294967295, got 4294967296',
    );
    expect(() => planTraining({ ...REQUEST, epochs: 1 }, 100)).toThrow('not both');
    expect(() => planTraining({ ...REQUEST, batchSize: 0 }, 100)).toThrow(
      'The batch size must be a whole number from 1 to 4096, got 0',
    );
    expect(planTraining({ ...REQUEST, peakLr: 1e9 }, 100).recipe.schedule.peakLr).toBe(1e9); // large is allowed: divergence is caught while training
  });

  it("builds the paper recipe with the request's overrides, and steps from epochs", () => {
    const plan = planTraining({ ...REQUEST, steps: undefined, epochs: 2, lambdaQueries: 0.1 }, 9);
    expect(plan.recipe.schedule.totalSteps).toBe(9); // ceil(2 * 9 / 2)
    expect(plan.recipe.lambdaQueries).toBe(0.1);
    expect(plan.recipe.lambdaDocuments).toBe(3e-3);
    expect(plan.seed).toBe(1);
    expect(plan.reportEvery).toBe(1);
  });

  it('bounds the teaching demo', () => {
    expect(() => checkKDemoRequest({ ks: [1, 2, 3, 4, 5, 6, 7], steps: 10 })).toThrow(
      'The number of k values must be a whole number from 1 to 6, got 7',
    );
    expect(() => checkKDemoRequest({ ks: [1], steps: 2001 })).toThrow('Steps must be a whole number from 1 to 2000');
    expect(checkKDemoRequest({ ks: [1], steps: 600 }).every).toBe(10);
    expect(() => checkRange(1.5, { min: 0, max: 2, integer: true }, 'x')).toThrow(
      'x must be a whole number from 0 to 2, got 1.5',
    );
  });
});

describe('model session', () => {
  it('divides the tied head from its pristine copy: k = 4 then k = 2 gives W / 2, and the word embeddings follow', async () => {
    const ctx = await gpuContext();
    const session = await openModelSession(ctx, nodePlatform, { kind: 'folder', path: join(root, 'tiny') });
    try {
      const name = decoderWeightName(session.model.config);
      expect(name).toBe('embeddings.word.weight'); // tied: dividing the decoder divides the embeddings
      const W = session.model.params.get(name)!.data;
      await session.setK(4);
      expect(Array.from(await ctx.read(session.decoderWeight))).toEqual(Array.from(W, (x) => Math.fround(x / 4)));
      await session.setK(2);
      expect(Array.from(await ctx.read(session.decoderWeight))).toEqual(Array.from(W, (x) => Math.fround(x / 2)));
      await session.setK(1);
      expect(Array.from(await ctx.read(session.decoderWeight))).toEqual(Array.from(W));
      const pair = await session.measureHead(4);
      expect(pair.after.summary.mean).toBeCloseTo(pair.before.summary.mean / 4, 5);
      expect(pair.after.anisotropy).toBeCloseTo(pair.before.anisotropy, 6);
      expect(pair.before.histogram.range).toEqual(pair.after.histogram.range);
      const [v1] = await session.encode(['the cat sat'], { k: 1, maxLength: 16 });
      const [v16] = await session.encode(['the cat sat'], { k: 16, maxLength: 16 });
      expect(v16.values.reduce((a, b) => a + b, 0)).toBeLessThan(v1.values.reduce((a, b) => a + b, 0));
    } finally {
      session.destroy();
    }
  });

  it('refuses a model with a NaN weight, naming the tensor', async () => {
    const dir = join(root, 'nan');
    await writeTinySpladeModel(dir);
    const { tensors } = readSafetensors(new Uint8Array(await readFile(join(dir, 'model.safetensors'))), 'tiny');
    const [name, tensor] = [...tensors].find(([n]) => n.includes('attention.self.query.weight'))!;
    tensor.data[3] = NaN;
    await writeFile(join(dir, 'model.safetensors'), writeSafetensors(tensors));
    const ctx = await gpuContext();
    await expect(openModelRef(nodePlatform, { kind: 'folder', path: dir }, { limits: ctx.limits })).rejects.toThrow(
      new RegExp(`tensor ${name.replace(/\./g, '\\.')} \\[16x16\\] holds NaN at index 3`),
    );
  });
});

describe('run locks', () => {
  it('one writer per run folder: a second lock is refused naming the holder, a stale one is taken over', async () => {
    const run = join(root, 'run');
    const lock = await nodePlatform.lockRun(run);
    await expect(nodePlatform.lockRun(run)).rejects.toThrow(
      new RegExp(`is being written by process ${process.pid} on .*one run folder takes one writer`),
    );
    await lock.release();
    const again = await nodePlatform.lockRun(run);
    await again.release();
    await writeFile(
      join(run, '.splade-lab.lock'),
      JSON.stringify({ pid: 2 ** 30, host: (await import('node:os')).hostname(), since: 'then' }),
    );
    const stale = await nodePlatform.lockRun(run);
    await stale.release();
  });

  it('an unwritable run folder fails at once with the path and the reason', async () => {
    await expect(nodePlatform.lockRun('/proc/splade-lab-x')).rejects.toThrow(
      /cannot create the run folder \/proc\/splade-lab-x: /,
    );
  });
});
