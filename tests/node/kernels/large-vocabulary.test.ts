// A vocabulary matrix larger than one storage binding (here a binding limit lowered below the device's): the model
// holds it in row parts and one training step gives the unsplit model's gradients and parameters, tied and untied.
import { afterEach, describe, expect, it } from 'vitest';
import type { HostTensor } from '../../../src/io/host-tensor.ts';
import { parseModelConfig } from '../../../src/model/config.ts';
import { HeadMeter } from '../../../src/model/head-meter.ts';
import { GpuModel } from '../../../src/model/gpu-model.ts';
import { P, parameterLayout } from '../../../src/model/layout.ts';
import { divideModelHead } from '../../../src/model/rescale.ts';
import { makeTinyCheckpoint, type TinyModelOptions } from '../../../src/model/tiny-model.ts';
import { loadParameters } from '../../../src/model/weights.ts';
import { SpladeTrainer, type TripletBatch } from '../../../src/train/splade/trainer.ts';
import { paperRecipe } from '../../../src/contract/training/recipe.ts';
import { Random } from '../../../src/util/random.ts';
import { gpuContext } from '../../helpers/gpu.ts';

const [V, d, B, Tq, Td] = [301, 16, 2, 5, 7];

/** 12 KiB: every tensor of the model and its passes fits, but not the 301 x 16 vocabulary matrices (19 KiB). */
const LIMIT = 12 * 1024;

/** The one-layer tiny BERT of these tests over the V-word vocabulary; the seed and anything else as a test gives it. */
const tinyBert = (options: Pick<TinyModelOptions, 'seed'> & Partial<TinyModelOptions>) =>
  makeTinyCheckpoint('bert', { vocabSize: V, hidden: d, layers: 1, heads: 2, intermediate: 24, ...options });

afterEach(async () => {
  (await gpuContext()).bindingLimitOverride = null;
});

function batch(seed: number): TripletBatch {
  const random = new Random(seed);
  // ids spread over the whole vocabulary (both parts); each sequence ends in one or two pads
  const part = (n: number, T: number) => {
    const ids = Int32Array.from({ length: n * T }, (_, i) =>
      i % T < T - 1 - (Math.floor(i / T) % 2) ? 2 + random.int(V - 2) : 0,
    );
    return { ids, mask: Uint8Array.from(ids, (id) => (id === 0 ? 0 : 1)) };
  };
  const queries = part(B, Tq);
  const documents = part(2 * B, Td);
  return { queryIds: queries.ids, queryMask: queries.mask, documentIds: documents.ids, documentMask: documents.mask };
}

type Optimizer = 'sgd' | 'adamw';

interface Stepped {
  before: Map<string, HostTensor>;
  params: Map<string, HostTensor>;
  grads: Map<string, HostTensor>;
  parts: number;
}

async function trainOneStep(tie: boolean, limit: number | null, optimizer: Optimizer): Promise<Stepped> {
  const ctx = await gpuContext();
  const checkpoint = tinyBert({ seed: 12, headNormScale: 2.5, tieWordEmbeddings: tie });
  const config = parseModelConfig(checkpoint.config);
  ctx.bindingLimitOverride = limit;
  const model = GpuModel.upload(ctx, config, loadParameters(config, checkpoint.tensors));
  try {
    await divideModelHead(ctx, model, 4);
    const before = await model.download();
    // no warm-up, so that the first step moves the weights; the backbone's dropout (the same masks in both runs)
    const paper = paperRecipe(4, B, { queryLength: Tq, documentLength: Td });
    const recipe = {
      ...paper,
      optimizer: optimizer === 'sgd' ? { kind: 'sgd' as const, weightDecay: 0 } : paper.optimizer,
      schedule: { peakLr: 1e-2, totalSteps: 4, warmupRatio: 0 },
    };
    const trainer = new SpladeTrainer(ctx, model, recipe);
    await trainer.step([batch(1)], false);
    expect(await trainer.readHealth()).toEqual({ finite: true, parts: [], firstStep: null });
    return { before, params: await model.download(), grads: await model.downloadGrads(), parts: model.decoderParts.length };
  } finally {
    ctx.bindingLimitOverride = null;
  }
}

/** Worst |a - b| over a tensor, relative to the tensor's largest |b| (its scale). */
function worstOfScale(a: Float32Array, b: Float32Array): number {
  let scale = 0;
  let worst = 0;
  b.forEach((x, i) => {
    scale = Math.max(scale, Math.abs(x));
    worst = Math.max(worst, Math.abs(a[i] - x));
  });
  return scale === 0 ? worst : worst / scale;
}

describe('a vocabulary matrix past one binding', () => {
  it.each([
    [true, 'sgd'],
    [false, 'sgd'],
    [true, 'adamw'],
  ] as const)(
    'tied %s, %s: held in row parts, one training step gives the unsplit gradients and parameters',
    async (tie, optimizer) => {
      const whole = await trainOneStep(tie, null, optimizer);
      const split = await trainOneStep(tie, LIMIT, optimizer);
      expect(whole.parts).toBe(1);
      expect(split.parts).toBe(2); // 192 rows of 16 floats per 12 KiB binding: 192 + 109
      for (const [name, grad] of whole.grads) {
        // dhidden adds each part's share on its own, so the encoder's gradients round a little differently
        expect(worstOfScale(split.grads.get(name)!.data, grad.data), `gradient of ${name}`).toBeLessThan(1e-6);
        const [after, before] = [split.params.get(name)!, whole.params.get(name)!];
        expect(after.shape, name).toEqual(before.shape);
        // SGD moves each weight by lr x its gradient: the same up to that rounding. AdamW's first step, lr x g / (|g| + eps),
        // magnifies the rounding of near-zero gradients (measured here: 4.6e-6 of the tensor's scale at worst)
        const tolerance = optimizer === 'sgd' ? 1e-6 : 1e-4;
        expect(worstOfScale(after.data, before.data), `${name} after the step`).toBeLessThan(tolerance);
      }
      // the step moved the encoder and rows of the decoder in both parts
      const decoderName = tie ? P.wordEmbeddings : P.decoderWeight;
      const moved = (name: string, from: number, to: number) =>
        split.params
          .get(name)!
          .data.slice(from, to)
          .some((x, i) => x !== split.before.get(name)!.data[from + i]);
      expect(moved('layers.0.qkv.weight', 0, 48 * d)).toBe(true);
      expect(moved(decoderName, 0, 192 * d)).toBe(true);
      expect(moved(decoderName, 192 * d, V * d)).toBe(true);
      // the decoder was divided by k = 4 in every part
      const loaded = tinyBert({ seed: 12, headNormScale: 2.5, tieWordEmbeddings: tie });
      const original = loadParameters(parseModelConfig(loaded.config), loaded.tensors).get(decoderName)!.data;
      expect([...split.before.get(decoderName)!.data]).toEqual([...original].map((x) => Math.fround(x / 4)));
    },
  );

  it('at that limit the whole vocabulary matrix is refused, and every other parameter fits', async () => {
    const ctx = await gpuContext();
    for (const tie of [true, false]) {
      const config = parseModelConfig(tinyBert({ seed: 12, tieWordEmbeddings: tie }).config);
      const sizes = parameterLayout(config).map((spec) => ({
        name: spec.name,
        bytes: 4 * spec.shape.reduce((a, b) => a * b, 1),
      }));
      const vocabulary: string[] = [P.wordEmbeddings, P.decoderWeight];
      for (const { name, bytes } of sizes) {
        if (vocabulary.includes(name)) expect(bytes, name).toBeGreaterThan(LIMIT);
        else expect(bytes, name).toBeLessThanOrEqual(LIMIT);
      }
    }
    ctx.bindingLimitOverride = LIMIT;
    expect(() => ctx.tensor('whole vocabulary matrix', [V, d], 'f32')).toThrow(/maxStorageBufferBindingSize/);
  });

  it("the head meter keeps a head in parts: host statistics equal the GPU kernels', and W / k is written part by part", async () => {
    const ctx = await gpuContext();
    const checkpoint = tinyBert({ seed: 3, headNormScale: 2.5 });
    const config = parseModelConfig(checkpoint.config);
    const head = loadParameters(config, checkpoint.tensors).get(P.wordEmbeddings)!;
    const whole = HeadMeter.upload(ctx, head, { provenance: 'whole' });
    ctx.bindingLimitOverride = LIMIT;
    const parted = HeadMeter.upload(ctx, head, { provenance: 'parts' });
    const model = GpuModel.upload(ctx, config, loadParameters(config, checkpoint.tensors));
    ctx.bindingLimitOverride = null;
    try {
      const [a, b] = [await whole.measure(4), await parted.measure(4)];
      expect([a.origin, b.origin]).toEqual(['gpu', 'host']);
      for (const side of ['before', 'after'] as const) {
        for (const key of ['mean', 'std', 'min', 'max', 'p50', 'p90', 'p99'] as const) {
          expect(b[side].summary[key], `${side} ${key}`).toBeCloseTo(a[side].summary[key], 5);
        }
        expect(b[side].anisotropy).toBeCloseTo(a[side].anisotropy, 5);
        expect(b[side].histogram.range.hi).toBeCloseTo(a[side].histogram.range.hi, 5);
        expect(b[side].histogram.range.bins).toBe(a[side].histogram.range.bins);
        expect(b[side].histogram.counts.reduce((x, y) => x + y, 0)).toBe(V);
      }
      await ctx.run('W / 4 in parts', (encoder) => parted.recordDivided(encoder, model.decoderWeight, 4));
      const divided = (await model.download()).get(P.wordEmbeddings)!.data;
      expect([...divided]).toEqual([...head.data].map((x) => Math.fround(x * Math.fround(1 / 4))));
      expect(model.decoderParts.length).toBe(2);
    } finally {
      whole.destroy();
      parted.destroy();
    }
  });

  it('a checkpoint saved with the matrix in parts resumes where it is whole, and the reverse: the moments are re-sliced', async () => {
    const ctx = await gpuContext();
    const checkpoint = tinyBert({ seed: 12 });
    const config = parseModelConfig(checkpoint.config);
    const recipe = {
      ...paperRecipe(4, B, { queryLength: Tq, documentLength: Td }),
      schedule: { peakLr: 1e-2, totalSteps: 4, warmupRatio: 0 },
    };
    const trainerAt = (limit: number | null) => {
      ctx.bindingLimitOverride = limit;
      try {
        return new SpladeTrainer(ctx, GpuModel.upload(ctx, config, loadParameters(config, checkpoint.tensors)), recipe);
      } finally {
        ctx.bindingLimitOverride = null;
      }
    };
    const split = trainerAt(LIMIT);
    await split.step([batch(1)], false);
    const saved = await split.readOptimizerState();
    expect([...saved.moments.keys()].filter((n) => n.startsWith(P.wordEmbeddings))).toEqual([
      `${P.wordEmbeddings}[rows 0+192]`,
      `${P.wordEmbeddings}[rows 192+109]`,
    ]);
    const whole = trainerAt(null);
    whole.restoreState(1, saved);
    const restored = await whole.readOptimizerState();
    const parts = [0, 192].map((row0) => saved.moments.get(`${P.wordEmbeddings}[rows ${row0}+${row0 === 0 ? 192 : 109}]`)!.m);
    expect([...restored.moments.get(P.wordEmbeddings)!.m]).toEqual([...parts[0], ...parts[1]]);
    const again = trainerAt(LIMIT);
    again.restoreState(1, restored);
    expect([...(await again.readOptimizerState()).moments.get(`${P.wordEmbeddings}[rows 192+109]`)!.v]).toEqual([
      ...saved.moments.get(`${P.wordEmbeddings}[rows 192+109]`)!.v,
    ]);
  });
});
