// The whole encoder on the GPU (GpuModel + GpuEncoderPass) against the float64 reference, per family: headHidden, and
// every parameter gradient after a backward from a random dheadHidden plus the fused SPLADE head's decoder gradients.
import { describe, expect, it } from 'vitest';
import type { GpuContext } from '../../../src/gpu/context.ts';
import { GpuLimitError } from '../../../src/gpu/errors.ts';
import { NO_TOKEN, SpladeHead } from '../../../src/kernels/splade-head.ts';
import type { ModelConfig, Architecture } from '../../../src/contract/model/model-config.ts';
import { parseModelConfig } from '../../../src/model/config.ts';
import { GpuEncoderPass } from '../../../src/model/gpu-encoder.ts';
import { GpuModel } from '../../../src/model/gpu-model.ts';
import { P, decoderWeightName, parameterLayout, zerosLike } from '../../../src/model/layout.ts';
import { type EncoderInput, encoderBackward, encoderForward } from '../../../src/model/reference/encoder.ts';
import { spladeBackward, spladeForward } from '../../../src/model/reference/splade.ts';
import { type TinyModelOptions, makeTinyCheckpoint } from '../../../src/model/tiny-model.ts';
import { loadParameters, toFloat64Params } from '../../../src/model/weights.ts';
import { Random } from '../../../src/util/random.ts';
import { expectClose, type Tolerance } from '../../helpers/compare.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { tinyEncoderModel, encoderBatch } from '../../helpers/tiny-encoder-model.ts';

/** fp32 GPU vs float64 reference. Gradients get an absolute floor relative to each tensor's largest entry. */
const FORWARD_TOL: Tolerance = { rtol: 1e-4, atol: 1e-5 };

const GRAD_RTOL = 1e-3;

const GRAD_ATOL_OF_MAX = 1e-4;

interface Case {
  name: string;
  architecture: Architecture;
  options: Partial<TinyModelOptions>;
}

// ModernBERT: window 4 (|i - j| <= 2) < T = 7, global layer every 2 layers -> layer 0 global, layer 1 local.
const cases: Case[] = [
  { name: 'BERT (d=16)', architecture: 'bert', options: {} },
  { name: 'RoBERTa (d=32)', architecture: 'roberta', options: { hidden: 32, intermediate: 40 } },
  { name: 'DistilBERT (d=16)', architecture: 'distilbert', options: {} },
  {
    name: 'ModernBERT (window 4, global every 2)',
    architecture: 'modernbert',
    options: { localAttention: 4, globalAttnEveryNLayers: 2 },
  },
  {
    name: 'ModernBERT with biases, untied decoder',
    architecture: 'modernbert',
    options: { localAttention: 4, globalAttnEveryNLayers: 2, withBiases: true, tieWordEmbeddings: false },
  },
  { name: 'GTE (NTK rotary x2, two token types)', architecture: 'gte', options: { ropeScalingFactor: 2, typeVocabSize: 2 } },
  { name: 'GTE, untied decoder, no token types', architecture: 'gte', options: { typeVocabSize: 0, tieWordEmbeddings: false } },
  { name: 'ALBERT (E=8 < d, one layer shared by 2 applications)', architecture: 'albert', options: { embeddingSize: 8 } },
  {
    name: 'ALBERT (E=16 = d, 2 groups x 2 inner layers, untied)',
    architecture: 'albert',
    options: { embeddingSize: 16, hiddenGroups: 2, innerGroupNum: 2, tieWordEmbeddings: false },
  },
];

function tinyModel(architecture: Architecture, options: Partial<TinyModelOptions>) {
  return tinyEncoderModel(architecture, { seed: 17, vocabSize: 61, ...options });
}

/** encoderBatch's sequences (B = 2, T = 7 unless given) with the family's token types. */
function batch(config: ModelConfig, seed: number, T?: number, lengths?: number[]): EncoderInput {
  return encoderBatch(config, seed, { T, lengths, tokenTypes: true });
}

function maxAbs(values: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < values.length; i++) m = Math.max(m, Math.abs(values[i]));
  return m;
}

async function time(ctx: GpuContext, record: (encoder: GPUCommandEncoder) => void): Promise<number> {
  const start = performance.now();
  await ctx.run('timed', record);
  return performance.now() - start;
}

/** Worst |actual - expected| / (|expected| + floor) over a tensor, to report the measured agreement. */
function worstRelative(actual: ArrayLike<number>, expected: ArrayLike<number>, floor: number): number {
  let worst = 0;
  for (let i = 0; i < expected.length; i++)
    worst = Math.max(worst, Math.abs(actual[i] - expected[i]) / (Math.abs(expected[i]) + floor));
  return worst;
}

describe.each(cases)('GPU encoder: $name', ({ architecture, options }) => {
  it('headHidden and every parameter gradient (random dheadHidden + fused SPLADE head) match the float64 reference, two steps', async () => {
    const ctx = await gpuContext();
    const { config, host, params } = tinyModel(architecture, options);
    const { embeddingSize: d, vocabSize: V } = config;
    const B = 2;
    const T = 7;
    if (config.modernBert) expect(config.modernBert.layerKinds).toEqual(['global', 'local']);
    const model = GpuModel.upload(ctx, config, host);
    const pass = new GpuEncoderPass(model, B, T, `${architecture} test`);
    const head = new SpladeHead(ctx, { B, T, d, V });
    const pooled = ctx.tensor('pooled', [B, V], 'f32'); // (B, V)
    const argmax = ctx.tensor('argmax', [B, V], 'u32'); // (B, V)
    const dpooledGpu = ctx.tensor('dpooled', [B, V], 'f32'); // (B, V)
    const timings: string[] = [];
    let worstForward = 0;
    let worstGrad = 0;

    // Step 2 reuses the pass with other lengths (the padding moves to the first sequence) after zeroGrads: inputs,
    // gather plans and gradients must all be refreshed, and backward must have cleared dheadHidden.
    for (const [step, lengths] of [
      [1, [7, 4]],
      [2, [5, 7]],
    ] as const) {
      const input = batch(config, 3 + step, T, [...lengths]);
      // reference: SPLADE head on top of the encoder, plus a random dheadHidden through the encoder alone
      const ref = spladeForward(config, params, input);
      const random = new Random(29 + step);
      const dheadHidden = random.normals(B * T * d);
      const dpooled = random.normals(B * V);
      const refGrads = zerosLike(config);
      spladeBackward(config, params, ref, dpooled, refGrads);
      encoderBackward(config, params, ref.acts, dheadHidden, refGrads);

      pass.setInputs(input.ids, input.mask, input.tokenTypes);
      ctx.upload(dpooledGpu, dpooled);
      await ctx.run('zero grads', (encoder) => model.zeroGrads(encoder));
      const forwardMs = await time(ctx, (encoder) => pass.forward(encoder));
      await ctx.run('splade head', (encoder) =>
        head.forward(encoder, {
          hidden: pass.headHidden,
          weight: model.decoderWeight,
          bias: model.decoderBias,
          mask: pass.mask,
          pooled,
          argmax,
        }),
      );
      const headHidden = await ctx.read(pass.headHidden);
      expectClose(`step ${step} headHidden`, headHidden, ref.acts.headHidden, FORWARD_TOL);
      worstForward = Math.max(worstForward, worstRelative(headHidden, ref.acts.headHidden, 1e-1));
      const refArgmax = Array.from(ref.argmax, (t) => (t < 0 ? NO_TOKEN : t));
      expect(Array.from(await ctx.read(argmax)), 'SPLADE argmax (a flipped near-tie would make gradients incomparable)').toEqual(
        refArgmax,
      );
      expectClose(`step ${step} pooled`, await ctx.read(pooled), ref.pooled, FORWARD_TOL);

      ctx.upload(pass.dheadHidden, dheadHidden);
      await ctx.run('splade head backward', (encoder) =>
        head.backward(encoder, {
          hidden: pass.headHidden,
          weight: model.decoderWeight,
          pooled,
          argmax,
          dpooled: dpooledGpu,
          dhidden: pass.dheadHidden,
          dweight: model.ddecoderWeight,
          dbias: model.ddecoderBias,
        }),
      );
      const backwardMs = await time(ctx, (encoder) => pass.backward(encoder));
      timings.push(`step ${step}: forward ${forwardMs.toFixed(1)} ms, backward ${backwardMs.toFixed(1)} ms`);

      const grads = await model.downloadGrads();
      const names = parameterLayout(config).map((s) => s.name);
      expect([...grads.keys()]).toEqual(names);
      for (const name of names) {
        const expected = refGrads[name];
        const scale = maxAbs(expected);
        expect(scale, `reference gradient of ${name} is non-zero`).toBeGreaterThan(0);
        expectClose(`step ${step} d ${name}`, grads.get(name)!.data, expected, {
          rtol: GRAD_RTOL,
          atol: GRAD_ATOL_OF_MAX * scale,
        });
        worstGrad = Math.max(worstGrad, worstRelative(grads.get(name)!.data, expected, 1e-2 * scale));
      }
      expect(maxAbs(await ctx.read(pass.dheadHidden)), 'backward clears dheadHidden').toBe(0);
    }
    console.log(
      `${architecture} B=${B} T=${T} d=${d} V=${V} (SwiftShader, incl. submit + sync; step 1 includes pipeline compiles): ` +
        `${timings.join('; ')}. Worst relative error: headHidden ${worstForward.toExponential(1)}, gradients ` +
        `${worstGrad.toExponential(1)}. Activations ${pass.activationBytes} B, model ${model.bytes} B`,
    );
  });
});

describe('GpuEncoderPass set-up', () => {
  it('refuses a T past the position table and a sequence without real tokens', async () => {
    const ctx = await gpuContext();
    const { config, host } = tinyModel('roberta', { maxPositions: 8 }); // RoBERTa: ids pad + 1 .. pad + 8 fit
    const model = GpuModel.upload(ctx, config, host);
    expect(() => new GpuEncoderPass(model, 1, 9, 'too long')).toThrow(/T = 9 .*max_position_embeddings 10; use at most 8 tokens/);
    const pass = new GpuEncoderPass(model, 2, 8, 'fits');
    const ids = new Int32Array(16).fill(5);
    const mask = new Uint8Array(16).fill(1, 0, 8);
    expect(() => pass.setInputs(ids, mask)).toThrow(/sequence 1 has no real token/);
  });
});

describe('GpuModel', () => {
  it("DistilBERT's sinusoidal position table is frozen: no gradient, not in parameters(), as in the reference", async () => {
    const ctx = await gpuContext();
    const checkpoint = makeTinyCheckpoint('distilbert', {
      seed: 4,
      vocabSize: 40,
      hidden: 16,
      layers: 1,
      heads: 2,
      intermediate: 8,
    });
    const config = parseModelConfig({ ...checkpoint.config, sinusoidal_pos_embds: true });
    const host = loadParameters(config, checkpoint.tensors);
    const params = toFloat64Params(host);
    const input = batch(config, 8, 5, [5, 2]);
    const dheadHidden = new Random(3).normals(input.B * input.T * config.hidden);
    const refGrads = zerosLike(config);
    encoderBackward(config, params, encoderForward(config, params, input), dheadHidden, refGrads);
    const model = GpuModel.upload(ctx, config, host);
    const pass = new GpuEncoderPass(model, input.B, input.T, 'sinusoidal');
    pass.setInputs(input.ids, input.mask);
    ctx.upload(pass.dheadHidden, dheadHidden);
    await ctx.run('step', (encoder) => {
      model.zeroGrads(encoder);
      pass.forward(encoder);
      pass.backward(encoder);
    });
    expect(model.parameters().map((p) => p.name)).not.toContain(P.positionEmbeddings);
    expect(maxAbs(refGrads[P.positionEmbeddings])).toBe(0);
    expect(maxAbs(await ctx.read(model.dparam(P.positionEmbeddings)))).toBe(0);
    const word = refGrads[P.wordEmbeddings];
    expectClose('d word embeddings', await ctx.read(model.dparam(P.wordEmbeddings)), word, {
      rtol: GRAD_RTOL,
      atol: GRAD_ATOL_OF_MAX * maxAbs(word),
    });
  });

  it('lists each trainable parameter once; the tied decoder is the word-embedding buffer and gradient', async () => {
    const ctx = await gpuContext();
    const { config, host } = tinyModel('bert', {});
    const model = GpuModel.upload(ctx, config, host);
    const listed = model.parameters().map((p) => p.name);
    expect(listed).toEqual(parameterLayout(config).map((s) => s.name));
    expect(new Set(listed.map((n) => model.param(n).buffer)).size).toBe(listed.length);
    expect(decoderWeightName(config)).toBe(P.wordEmbeddings);
    expect(model.decoderWeight).toBe(model.param(P.wordEmbeddings));
    expect(model.ddecoderWeight).toBe(model.dparam(P.wordEmbeddings));
    // weight decay: weights and embeddings, never biases or LayerNorm parameters (transformers' Trainer rule)
    const kinds = new Map(parameterLayout(config).map((s) => [s.name, s.kind]));
    for (const p of model.parameters())
      expect(p.decays, p.name).toBe(kinds.get(p.name) === 'weight' || kinds.get(p.name) === 'embedding');
    expect(model.parameters().filter((p) => p.decays).length).toBeGreaterThan(0);
    expect(
      model
        .parameters()
        .filter((p) => !p.decays)
        .map((p) => kinds.get(p.name)),
    ).toEqual(expect.arrayContaining(['bias', 'norm-scale', 'norm-shift']));
    const back = await model.download();
    for (const [name, t] of host) expect(Array.from(back.get(name)!.data), name).toEqual(Array.from(t.data));
  });

  it('uploaded for inference (gradients: false): half the bytes, the same forward, and a backward refused by name', async () => {
    const ctx = await gpuContext();
    const { config, host } = tinyModel('modernbert', { localAttention: 4, globalAttnEveryNLayers: 2, tieWordEmbeddings: false });
    const [B, T] = [2, 7];
    const input = batch(config, 5, T, [7, 4]);
    const encode = async (model: GpuModel) => {
      const pass = new GpuEncoderPass(model, B, T, 'gradients test');
      pass.setInputs(input.ids, input.mask, input.tokenTypes);
      await ctx.run('encode', (encoder) => pass.forward(encoder));
      return { pass, hidden: await ctx.read(pass.headHidden) };
    };
    const training = GpuModel.upload(ctx, config, host);
    const inference = GpuModel.upload(ctx, config, host, { gradients: false });
    expect([training.gradients, inference.gradients]).toEqual([true, false]);
    const parameterBytes = parameterLayout(config).reduce((sum, spec) => sum + 4 * spec.shape.reduce((a, b) => a * b, 1), 0);
    expect(training.bytes).toBe(2 * parameterBytes);
    expect(inference.bytes).toBe(parameterBytes);
    const [trained, inferred] = [await encode(training), await encode(inference)];
    expect(Array.from(inferred.hidden)).toEqual(Array.from(trained.hidden));
    const refused = /no gradient of .*uploaded for inference \(gradients: false\)/;
    expect(() => inference.dparam(P.wordEmbeddings)).toThrow(refused);
    expect(() => inference.parameters()).toThrow(refused);
    expect(() => inference.ddecoderWeight).toThrow(refused);
    await expect(ctx.run('backward', (encoder) => inferred.pass.backward(encoder))).rejects.toThrow(refused);
  });

  it('refuses a parameter over the binding limit before allocating any buffer, naming the tensor and the limit', async () => {
    const real = await gpuContext();
    const { config, host } = tinyModel('bert', {});
    // the position table (64 x 16 f32) is one word over; the word embeddings (61 x 16) fit, and would go in row parts if not
    const limit = 64 * 16 * 4 - 4;
    let allocated = 0;
    const small = {
      limits: { maxStorageBufferBindingSize: limit, maxBufferSize: 1 << 30 },
      bindingLimit: limit,
      checkBindingSize: real.checkBindingSize,
      tensor: () => {
        allocated++;
        throw new Error('allocated');
      },
    } as unknown as GpuContext;
    const attempt = () => GpuModel.upload(small, config, host);
    expect(attempt).toThrow(GpuLimitError);
    expect(attempt).toThrow(/embeddings\.position\.weight \[64x16\].*maxStorageBufferBindingSize/);
    expect(allocated).toBe(0);
  });
});
