// Issue 12's acceptance: one SGD step moves every weight (encoder and head, head divided by k = 2) by exactly -lr x its
// float64 reference gradient; with --batch 2 --grad-accum 2 on the same four triplets, by -lr x the mean of the two
// micro-batches' gradients; with --max-grad-norm, by the clipped gradient. The reference gradient itself is checked
// against central finite differences of the float64 loss. With --dropout, the update follows the float64 model under
// the very masks the GPU drew (the same counter-based mask and key). The matrix runs through the application layer's
// trainModel (what `splade-lab train` calls) on one GPU context; two cases run through the CLI end to end (flags,
// saved model folder, loaded back).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trainModel, type TrainEvent } from '../../../src/app/training/train.ts';
import { nodePlatform } from '../../../src/app/platform/platform-node.ts';
import { openModelRef } from '../../../src/app/model/open-model.ts';
import { readTrainingData } from '../../../src/app/training/training-data.ts';
import type { TrainRequest } from '../../../src/contract/training/training-request.ts';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { parseTriplets } from '../../../src/io/triplets/triplets.ts';
import type { ModelParams } from '../../../src/model/layout.ts';
import { loadModel, type LoadedModel } from '../../../src/model/load-model.ts';
import { uniformDropout } from '../../../src/contract/model/model-config.ts';
import { gradientScale } from '../../../src/kernels/reference/grad-norm.ts';
import { TripletBatches } from '../../../src/train/splade/batches.ts';
import { memoryTripletSource } from '../../../src/io/triplets/triplet-source.ts';
import {
  spladeStepReference,
  spladeTrainingReference,
  type TrainingReferenceSettings,
} from '../../../src/train/splade/splade-training-reference.ts';
import type { TripletBatch } from '../../../src/train/splade/trainer.ts';
import { Random } from '../../../src/util/random.ts';
import { runCli } from '../../helpers/cli.ts';
import { FOUR_TRIPLETS_TSV, startingPoint } from '../../helpers/one-step-run.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { centralDifference } from '../../helpers/gradcheck.ts';
import { expectClose } from '../../helpers/compare.ts';
import { writeTinyFamilyModels } from '../../helpers/tiny-model-families.ts';
import { describeOnCpu } from '../../helpers/portable-run.ts';

const TSV = FOUR_TRIPLETS_TSV;
const K = 2;

const LR = 0.05;

const SETTINGS: TrainingReferenceSettings = {
  queryLength: 8,
  documentLength: 12,
  tau: 1,
  lambdaQueries: 0.05,
  lambdaDocuments: 0.003,
};

/** No warm-up, no lambda ramp, no clipping, file order, one SGD step: the update is -lr x the gradient. */
const PLAIN = [
  '--optimizer',
  'sgd',
  '--steps',
  '1',
  '--lr',
  String(LR),
  '--warmup-ratio',
  '0',
  '--flops-ramp-ratio',
  '0',
  '--no-shuffle',
  '--k',
  String(K),
  '--query-length',
  '8',
  '--doc-length',
  '12',
  '--lambda-q',
  '0.05',
  '--lambda-d',
  '0.003',
  '--report-every',
  '1',
  '--json',
];

/**
 * ModernBERT with a local layer; GTE with NTK-scaled rotary and its gated MLP (dropout on both MLP sites); ALBERT with
 * E = 8 < d and its one layer shared by both applications.
 */
let root: string;

let triplets: string;

const models: Record<string, { dir: string; loaded: LoadedModel }> = {};
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'splade-sgd-step-'));
  triplets = join(root, 'four.tsv');
  await writeFile(triplets, TSV);
  Object.assign(models, await writeTinyFamilyModels(root, ['bert', 'modernbert', 'gte', 'albert']));
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** The run's batches of `size` triplets in file order, tokenized as training tokenizes them. */
async function batchesOf(loaded: LoadedModel, size: number, count: number, tsv = TSV): Promise<TripletBatch[]> {
  const { triplets: list } = parseTriplets(tsv, 'four.tsv');
  const source = memoryTripletSource(list);
  const batches = new TripletBatches(
    source,
    loaded.tokenizer,
    { batchSize: size, queryLength: 8, documentLength: 12, dataOrder: 'file', negatives: source.negatives },
    1,
  );
  const out: TripletBatch[] = [];
  for (let i = 0; i < count; i++) out.push((await batches.next()).batch);
  return out;
}

/** The step's recipe as the tests vary it; everything else is PLAIN's. */
interface StepOptions {
  batch: number;
  gradAccum?: number;
  dropout: number;
  maxGradNorm: number;
  flopsOver?: 'step';
}

interface StepUpdate {
  updates: ModelParams;
  start: ModelParams;
  /** The step's report: its loss parts and gradNorm. */
  step: { total: number; gradNorm: number };
}

/** The update of every parameter: trained minus the starting point, for each parameter the backbone has. */
function updatesFrom(params: Map<string, { data: ArrayLike<number> }>, start: ModelParams): ModelParams {
  const updates: ModelParams = {};
  for (const name of Object.keys(start)) {
    const tensor = params.get(name);
    expect(tensor, `the trained model has ${name}`).toBeDefined();
    updates[name] = Float64Array.from(tensor!.data, (x, i) => x - start[name][i]);
  }
  return updates;
}

/** Trains through the CLI and returns the saved model's update of every parameter (saved minus starting point). */
async function cliUpdate(arch: string, out: string, o: StepOptions): Promise<StepUpdate> {
  const { dir, loaded } = models[arch];
  const extra = ['--batch', String(o.batch), '--max-grad-norm', String(o.maxGradNorm), '--dropout', String(o.dropout)];
  if (o.gradAccum) extra.push('--grad-accum', String(o.gradAccum));
  if (o.flopsOver) extra.push('--flops-over', o.flopsOver);
  const { code, stdout, stderr } = await runCli(
    'train',
    '--model',
    dir,
    '--triplets',
    triplets,
    '--out',
    join(root, out),
    ...PLAIN,
    ...extra,
  );
  expect(stderr).toBe('');
  expect(code).toBe(0);
  const saved = await loadModel(createFolderSource(join(root, out, 'model')));
  const start = startingPoint(loaded, K);
  const step = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
    .find((event) => event.event === 'step');
  return { updates: updatesFrom(saved.params, start), start, step };
}

/** PLAIN as a request of the application layer. */
const PLAIN_REQUEST: Omit<TrainRequest, 'batchSize' | 'dropout' | 'maxGradNorm'> = {
  k: K,
  steps: 1,
  queryLength: 8,
  documentLength: 12,
  peakLr: LR,
  optimizer: 'sgd',
  warmupRatio: 0,
  flopsRampRatio: 0,
  lambdaQueries: 0.05,
  lambdaDocuments: 0.003,
  shuffle: false,
  checkpointEvery: 50,
  reportEvery: 1,
  probeEvery: 0,
  resume: false,
};

/** Trains through trainModel (the CLI's path without its files) and returns the update of every parameter. */
async function trainerUpdate(arch: string, out: string, o: StepOptions, tsv = TSV): Promise<StepUpdate> {
  const { dir, loaded } = models[arch];
  const ctx = await gpuContext();
  const model = await openModelRef(nodePlatform, { kind: 'folder', path: dir }, { limits: ctx.limits });
  const { data } = readTrainingData(new TextEncoder().encode(tsv), `${out}.tsv`);
  const request: TrainRequest = {
    ...PLAIN_REQUEST,
    batchSize: o.batch,
    gradAccum: o.gradAccum,
    dropout: o.dropout,
    maxGradNorm: o.maxGradNorm,
    flopsOver: o.flopsOver,
  };
  const reports: StepUpdate['step'][] = [];
  const onEvent = (event: TrainEvent) => void (event.kind === 'report' && reports.push(event.report));
  const trained = await trainModel(ctx, nodePlatform, {
    model,
    data,
    run: join(root, out),
    request,
    existing: 'refuse',
    batchCache: false,
    onEvent,
  });
  try {
    const start = startingPoint(loaded, K);
    expect(reports).toHaveLength(1);
    return { updates: updatesFrom(await trained.download(), start), start, step: reports[0] };
  } finally {
    await trained.close();
  }
}

/** Every parameter's update equals -lr x scale x the gradient, and the update is far above fp32 rounding. */
function expectUpdates(updates: ModelParams, grads: ModelParams, scale: number, what: string): void {
  let largest = 0;
  for (const [name, update] of Object.entries(updates)) {
    const expected = grads[name].map((g) => -LR * scale * g);
    const tensorLargest = expected.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
    largest = Math.max(largest, tensorLargest);
    // atol: the saved fp32 parameter minus its float64 start carries the rounding of a value of about 1, and an fp32
    // gradient element that is a sum of cancelling terms is off by a small fraction of the tensor's largest one
    expectClose(`${what}: update of ${name}`, update, expected, { rtol: 2e-3, atol: 3e-7 + 1e-3 * tensorLargest });
  }
  expect(largest, `${what}: the largest update`).toBeGreaterThan(1e-4);
}

describe('one optimiser step against the float64 gradient', () => {
  it.each([
    ['bert', 'the CLI'],
    ['modernbert', 'the trainer'],
    ['gte', 'the trainer'],
    ['albert', 'the trainer'],
  ] as const)('%s: --optimizer sgd --batch 4 through %s moves each weight by -lr x its gradient', async (arch, via) => {
    const { loaded } = models[arch];
    const sgd = via === 'the CLI' ? cliUpdate : trainerUpdate;
    const { updates, start } = await sgd(arch, `${arch}-sgd`, { batch: 4, maxGradNorm: 0, dropout: 0 });
    const [batch] = await batchesOf(loaded, 4, 1);
    expectUpdates(updates, spladeTrainingReference(loaded.config, start, batch, SETTINGS).grads, 1, `${arch} batch 4`);
  });

  it.each(['bert', 'modernbert'])(
    '%s: --batch 2 --grad-accum 2 moves each weight by -lr x the mean of the micro-batch gradients',
    async (arch) => {
      const { loaded } = models[arch];
      const { updates, start } = await trainerUpdate(arch, `${arch}-accum`, {
        batch: 2,
        gradAccum: 2,
        maxGradNorm: 0,
        dropout: 0,
      });
      const [first, second] = (await batchesOf(loaded, 2, 2)).map(
        (batch) => spladeTrainingReference(loaded.config, start, batch, SETTINGS).grads,
      );
      const mean = Object.fromEntries(
        Object.entries(first).map(([name, g]) => [name, g.map((x, i) => (x + second[name][i]) / 2)]),
      );
      expectUpdates(updates, mean, 1, `${arch} 2 x 2`);
      // and the mean is not the one batch of four: the candidate pools and the FLOPS batches differ
      const [whole] = await batchesOf(loaded, 4, 1);
      const wholeGrads = spladeTrainingReference(loaded.config, start, whole, SETTINGS).grads;
      const name = 'layers.0.qkv.weight';
      const gap = Math.max(...mean[name].map((g, i) => Math.abs(g - wholeGrads[name][i])));
      expect(gap).toBeGreaterThan(1e-3 * Math.max(...wholeGrads[name].map(Math.abs)));
    },
  );

  it.each([
    ['bert', 'the trainer'],
    ['modernbert', 'the CLI'],
    ['gte', 'the trainer'],
    ['albert', 'the trainer'],
  ] as const)(
    '%s: --dropout 0.2 with 2 x 2 accumulation through %s: the update follows the float64 model under the same masks',
    async (arch, via) => {
      const { loaded } = models[arch];
      const train = via === 'the CLI' ? cliUpdate : trainerUpdate;
      const { updates, start } = await train(arch, `${arch}-dropout`, { batch: 2, gradAccum: 2, maxGradNorm: 0, dropout: 0.2 });
      const rates = uniformDropout(0.2, loaded.config.architecture);
      const grads = (await batchesOf(loaded, 2, 2)).map(
        (batch, microBatch) =>
          spladeTrainingReference(loaded.config, start, batch, { ...SETTINGS, dropout: { rates, seed: 1, step: 0, microBatch } })
            .grads,
      );
      const mean = Object.fromEntries(
        Object.entries(grads[0]).map(([name, g]) => [name, g.map((x, i) => (x + grads[1][name][i]) / 2)]),
      );
      expectUpdates(updates, mean, 1, `${arch} dropout 0.2`);
      // the masks matter: without them the update is another one
      const plain = (await batchesOf(loaded, 2, 2)).map(
        (batch) => spladeTrainingReference(loaded.config, start, batch, SETTINGS).grads,
      );
      const name = 'layers.0.mlpOut.weight';
      const gap = Math.max(...mean[name].map((g, i) => Math.abs(g - (plain[0][name][i] + plain[1][name][i]) / 2)));
      expect(gap, name).toBeGreaterThan(1e-2 * Math.max(...mean[name].map(Math.abs)));
    },
  );

  it('bert: rows with two negatives put both in the pool (3B candidates, FLOPS over them all): the update follows the float64 model', async () => {
    const { loaded } = models.bert;
    const tsv =
      TSV.split('\n')
        .filter(Boolean)
        .map((line, i) => `${line}\t${['a song of the sea', 'the city road', 'dark forest', 'the book paper'][i]}`)
        .join('\n') + '\n';
    const { updates, start } = await trainerUpdate('bert', 'bert-two-negatives', { batch: 2, maxGradNorm: 0, dropout: 0 }, tsv);
    const [batch] = await batchesOf(loaded, 2, 1, tsv);
    expect(batch.documentIds.length).toBe(3 * 2 * 12);
    expectUpdates(updates, spladeTrainingReference(loaded.config, start, batch, SETTINGS).grads, 1, 'bert two negatives');
  });

  it.each(['bert', 'modernbert'])(
    "%s: --flops-over step with 2 x 2 accumulation: FLOPS over all the step's vectors, the update follows the float64 step",
    async (arch) => {
      const { loaded } = models[arch];
      const { updates, start, step } = await trainerUpdate(arch, `${arch}-flops-step`, {
        batch: 2,
        gradAccum: 2,
        flopsOver: 'step',
        maxGradNorm: 0,
        dropout: 0,
      });
      const micro = await batchesOf(loaded, 2, 2);
      const expected = spladeStepReference(loaded.config, start, micro, { ...SETTINGS, flopsOver: 'step' });
      expectUpdates(updates, expected.grads, 1, `${arch} FLOPS over the step`);
      // the reported FLOPS are the step's, and the update differs from per-micro-batch FLOPS
      const perMicro = spladeStepReference(loaded.config, start, micro, SETTINGS);
      const name = 'layers.0.qkv.weight';
      const gap = Math.max(...expected.grads[name].map((g, i) => Math.abs(g - perMicro.grads[name][i])));
      expect(gap).toBeGreaterThan(1e-4 * Math.max(...expected.grads[name].map(Math.abs)));
      expect(step.total).toBeCloseTo(expected.total, 4);
    },
  );

  it('bert: --max-grad-norm clips the gradient to that global norm (the norm printed as gradNorm)', async () => {
    const { loaded } = models.bert;
    const maxNorm = 0.05;
    const { updates, start, step } = await trainerUpdate('bert', 'bert-clip', { batch: 4, maxGradNorm: maxNorm, dropout: 0 });
    const [batch] = await batchesOf(loaded, 4, 1);
    const { grads } = spladeTrainingReference(loaded.config, start, batch, SETTINGS);
    const { scale, norm } = gradientScale(Object.values(grads), maxNorm, 1);
    expect(norm, 'the gradient is larger than the clip, so the test clips').toBeGreaterThan(2 * maxNorm);
    expect(step.gradNorm / norm).toBeCloseTo(1, 4);
    expectUpdates(updates, grads, scale, 'bert clipped');
  });
});

describeOnCpu('the float64 training reference', () => {
  it.each(['bert', 'modernbert'])(
    '%s: the step gradient with FLOPS over the whole step equals central finite differences of the step loss',
    async (arch) => {
      const { loaded } = models[arch];
      const params = startingPoint(loaded, K);
      const micro = await batchesOf(loaded, 2, 2);
      const settings = { ...SETTINGS, flopsOver: 'step' as const };
      const { grads } = spladeStepReference(loaded.config, params, micro, settings);
      const random = new Random(5);
      const eps = 1e-6;
      for (const name of Object.keys(grads)) {
        if (!grads[name].some((g) => g !== 0)) continue;
        const i = random.int(params[name].length);
        const loss = () => spladeStepReference(loaded.config, params, micro, settings).total;
        const numeric = centralDifference(params[name], i, loss, eps);
        expect(
          Math.abs(numeric - grads[name][i]),
          `${arch} ${name}[${i}]: numeric ${numeric}, analytic ${grads[name][i]}`,
        ).toBeLessThan(1e-6 + 1e-4 * Math.abs(numeric));
      }
    },
  );

  it.each([
    ['bert', 0],
    ['modernbert', 0],
    ['bert', 0.3],
    ['modernbert', 0.3],
    ['gte', 0.3],
    ['albert', 0.3],
  ] as const)('%s, dropout %d: its gradient equals central finite differences of its loss (masks fixed)', async (arch, rate) => {
    const { loaded } = models[arch];
    const params = startingPoint(loaded, K);
    const [batch] = await batchesOf(loaded, 2, 1);
    const settings = rate
      ? { ...SETTINGS, dropout: { rates: uniformDropout(rate, loaded.config.architecture), seed: 9, step: 4, microBatch: 1 } }
      : SETTINGS;
    const loss = () => spladeTrainingReference(loaded.config, params, batch, settings).total;
    const { grads } = spladeTrainingReference(loaded.config, params, batch, settings);
    const random = new Random(3);
    const eps = 1e-6;
    for (const name of Object.keys(grads)) {
      if (!grads[name].some((g) => g !== 0)) continue; // e.g. unused position rows
      for (let sample = 0; sample < 3; sample++) {
        const i = random.int(params[name].length);
        const numeric = centralDifference(params[name], i, loss, eps);
        expect(
          Math.abs(numeric - grads[name][i]),
          `${arch} ${name}[${i}]: numeric ${numeric}, analytic ${grads[name][i]}`,
        ).toBeLessThan(1e-6 + 1e-4 * Math.abs(numeric));
      }
    }
  });
});
