// Whole tiny encoders per family (2 layers, generated weights): every parameter tensor's gradient against finite
// differences, each encoder layer's backward on T = 1 and 7, and the architectural details that are easy to get wrong.
import { describe, expect, it } from 'vitest';
import { checkGradients } from '../../helpers/gradcheck.ts';
import { expectClose } from '../../helpers/compare.ts';
import { tinyEncoderModel, encoderBatch } from '../../helpers/tiny-encoder-model.ts';
import { Random } from '../../../src/util/random.ts';
import type { ModelConfig, Architecture } from '../../../src/contract/model/model-config.ts';
import { parseModelConfig } from '../../../src/model/config.ts';
import { type ModelParams, P, parameterLayout, zerosLike } from '../../../src/model/layout.ts';
import { type TinyModelOptions, makeTinyCheckpoint } from '../../../src/model/tiny-model.ts';
import { loadParameters, toFloat64Params } from '../../../src/model/weights.ts';
import { type EncoderInput, encoderBackward, encoderForward, mlmBackward } from '../../../src/model/reference/encoder.ts';
import { decoderForward } from '../../../src/model/reference/mlm-head.ts';
import { layerBackward, layerForward, layerParams } from '../../../src/model/reference/layers.ts';
import { ropeTable } from '../../../src/kernels/reference/attention.ts';
import { layerAttentionKind } from '../../../src/model/rotary.ts';
import { positionIds } from '../../../src/model/position-ids.ts';
import { spladeBackward, spladeForward } from '../../../src/model/reference/splade.ts';

interface Variant {
  name: string;
  architecture: Architecture;
  options: Partial<TinyModelOptions>;
}

// Odd widths where the family allows them (rotary needs an even head size).
const variants: Variant[] = [
  { name: 'BERT (d=15, 3 heads)', architecture: 'bert', options: { hidden: 15, heads: 3, intermediate: 21 } },
  { name: 'BERT, untied decoder', architecture: 'bert', options: { tieWordEmbeddings: false } },
  { name: 'RoBERTa', architecture: 'roberta', options: {} },
  { name: 'DistilBERT (d=9, 3 heads)', architecture: 'distilbert', options: { hidden: 9, heads: 3, intermediate: 13 } },
  { name: 'ModernBERT (window 4)', architecture: 'modernbert', options: { localAttention: 4, intermediate: 23 } },
  {
    name: 'ModernBERT with biases, untied',
    architecture: 'modernbert',
    options: { localAttention: 4, withBiases: true, tieWordEmbeddings: false },
  },
  {
    name: 'ALBERT (E=5, d=12, 3 heads, one layer shared by 2)',
    architecture: 'albert',
    options: { embeddingSize: 5, hidden: 12, heads: 3, intermediate: 19 },
  },
  {
    name: 'ALBERT (2 groups of 2 inner layers over 4 applications, untied)',
    architecture: 'albert',
    options: { embeddingSize: 6, layers: 2, hiddenGroups: 2, innerGroupNum: 2, tieWordEmbeddings: false },
  },
  {
    name: 'GTE (d=12, 3 heads, NTK rotary x2, two token types)',
    architecture: 'gte',
    options: { hidden: 12, heads: 3, intermediate: 19, ropeScalingFactor: 2, typeVocabSize: 2 },
  },
];

function tinyModel(
  architecture: Architecture,
  options: Partial<TinyModelOptions> = {},
): { config: ModelConfig; params: ModelParams } {
  return tinyEncoderModel(architecture, { seed: 5, vocabSize: 50, ...options });
}

/** encoderBatch's sequences (B = 2, T = 7 unless given), no token types. */
function batch(config: ModelConfig, seed: number, T?: number, lengths?: number[]): EncoderInput {
  return encoderBatch(config, seed, { T, lengths });
}

/** Logits (B, T, V) with padded positions zeroed: pads are what padding_idx keeps out of the lookup gradient. */
function realLogits(config: ModelConfig, params: ModelParams, input: EncoderInput): Float64Array {
  const out = decoderForward(config, params, encoderForward(config, params, input).headHidden, input.B * input.T);
  return maskRows(out, input.mask, config.vocabSize);
}

function maskRows(rows: Float64Array, mask: ArrayLike<number>, width: number): Float64Array {
  for (let n = 0; n < mask.length; n++) if (!mask[n]) rows.fill(0, n * width, (n + 1) * width);
  return rows;
}

describe.each(variants)('$name end to end', ({ architecture, options }) => {
  const { config, params } = tinyModel(architecture, options);
  const input = batch(config, 17);

  it('every parameter tensor: gradient of <real-token logits, R> matches finite differences', () => {
    const names = parameterLayout(config).map((s) => s.name);
    expect(names.length).toBe(Object.keys(params).length);
    checkGradients({
      inputs: params,
      forward: (p) => realLogits(config, p, input),
      backward: (p, dout) => {
        const grads = zerosLike(config);
        const dlogits = maskRows(Float64Array.from(dout), input.mask, config.vocabSize);
        mlmBackward(config, p, encoderForward(config, p, input), dlogits, grads);
        return grads;
      },
      wrt: names,
      samples: 8,
      atol: 1e-6,
      rtol: 1e-5,
    });
  });

  it('real tokens do not see padding: appending pads leaves their head outputs unchanged', () => {
    const short = batch(config, 23, 5, [5, 3]);
    const long = batch(config, 23, 7, [5, 3]);
    const a = encoderForward(config, params, short).headHidden;
    const b = encoderForward(config, params, long).headHidden;
    const d = config.embeddingSize;
    for (const [bi, len] of [
      [0, 5],
      [1, 3],
    ])
      for (let t = 0; t < len; t++) {
        expectClose(
          `seq ${bi} token ${t}`,
          b.slice((bi * 7 + t) * d, (bi * 7 + t + 1) * d),
          a.slice((bi * 5 + t) * d, (bi * 5 + t + 1) * d),
          {
            rtol: 1e-12,
            atol: 1e-12,
          },
        );
      }
  });

  it.each([1, 7])('each layer backward (input and parameters) at T = %i', (T) => {
    const lengths = T === 1 ? [1] : [7, 4];
    const shape = { B: lengths.length, T, NH: config.heads, hd: config.headDim };
    const mask = batch(config, 3, T, lengths).mask;
    for (let i = 0; i < config.layers; i++) {
      const { rope, halfWindow } = layerAttentionKind(config, i);
      const ctx = { config, shape, masking: { mask, halfWindow }, rope: rope && ropeTable(T, config.headDim, rope) };
      const names = Object.keys(params).filter((n) => n.startsWith(`layers.${config.layerWeights[i]}.`));
      const inputs: ModelParams = { x: new Random(i).normals(shape.B * T * config.hidden) };
      for (const n of names) inputs[n] = params[n];
      checkGradients({
        inputs,
        forward: (p) => layerForward(p.x, layerParams(config, p, i), ctx).out,
        backward: (p, dout) => {
          const grads: ModelParams = {};
          for (const n of names) grads[n] = new Float64Array(p[n].length);
          const cache = layerForward(p.x, layerParams(config, p, i), ctx);
          const dx = layerBackward(dout, layerParams(config, grads, i), cache, layerParams(config, p, i), ctx);
          return { x: dx, ...grads };
        },
        wrt: ['x', ...names],
        samples: 8,
        atol: 1e-7,
      });
    }
  });
});

describe.each(['bert', 'modernbert', 'gte', 'albert'] as const)('SPLADE loss through the %s encoder', (architecture) => {
  const { config, params } = tinyModel(architecture, { localAttention: 4, headNormScale: 2.5 });
  const input = batch(config, 29);

  it('inputs sit away from the relu and max kinks', () => {
    const result = spladeForward(config, params, input);
    const V = config.vocabSize;
    let minAbsLogit = Infinity;
    let minGap = Infinity;
    for (let b = 0; b < input.B; b++)
      for (let v = 0; v < V; v++) {
        const values: number[] = [];
        for (let t = 0; t < input.T; t++) {
          if (!input.mask[b * input.T + t]) continue;
          const x = result.logits[(b * input.T + t) * V + v];
          minAbsLogit = Math.min(minAbsLogit, Math.abs(x));
          if (x > 0) values.push(x);
        }
        values.sort((p, q) => q - p);
        if (values.length > 1) minGap = Math.min(minGap, values[0] - values[1]);
      }
    expect(minAbsLogit).toBeGreaterThan(1e-4);
    expect(minGap).toBeGreaterThan(1e-4);
    expect([...result.pooled].filter((p) => p > 0).length).toBeGreaterThan(10);
  });

  it('every parameter tensor: gradient of <pooled, w> matches finite differences', () => {
    checkGradients({
      inputs: params,
      forward: (p) => spladeForward(config, p, input).pooled,
      backward: (p, dpooled) => {
        const grads = zerosLike(config);
        spladeBackward(config, p, spladeForward(config, p, input), dpooled, grads);
        return grads;
      },
      wrt: Object.keys(params),
      samples: 4,
      atol: 1e-6,
      seed: 3,
    });
  });
});

describe('architecture details', () => {
  it('RoBERTa positions count real tokens from pad + 1 and give pads the pad position', () => {
    const { config } = tinyModel('roberta');
    const pad = config.padTokenId;
    const ids = Int32Array.from([0, 7, 8, 2, pad, pad]);
    expect([...positionIds(config, ids, 1, 6)]).toEqual([pad + 1, pad + 2, pad + 3, pad + 4, pad, pad]);
  });

  it('BERT positions are 0..T-1 and a too-long sequence is refused', () => {
    const { config } = tinyModel('bert', { maxPositions: 6 });
    expect([...positionIds(config, new Int32Array(6), 1, 6)]).toEqual([0, 1, 2, 3, 4, 5]);
    expect(() => positionIds(config, new Int32Array(7), 1, 7)).toThrow(/max_position_embeddings 6/);
  });

  it('ModernBERT: layer 0 is global with no attention norm, layer 1 is local; local layers see |i - j| <= window/2', () => {
    const { config, params } = tinyModel('modernbert', { localAttention: 4 });
    expect(config.modernBert!.layerKinds).toEqual(['global', 'local']);
    expect(params[P.attnNorm(0, 'weight')]).toBeUndefined();
    expect(params[P.attnNorm(1, 'weight')]).toBeDefined();
    const T = 7;
    const shape = { B: 1, T, NH: config.heads, hd: config.headDim };
    const ctx = {
      config,
      shape,
      masking: { mask: new Uint8Array(T).fill(1), halfWindow: 2 },
      rope: ropeTable(T, config.headDim, config.modernBert!.localRopeTheta),
    };
    const x = new Random(1).normals(T * config.hidden);
    const base = layerForward(x, layerParams(config, params, 1), ctx).out;
    const moved = (j: number) => {
      const y = Float64Array.from(x);
      y[j * config.hidden] += 1;
      return layerForward(y, layerParams(config, params, 1), ctx).out;
    };
    const row = (a: Float64Array, t: number) => a.slice(t * config.hidden, (t + 1) * config.hidden);
    expectClose('token 0 ignores token 3', row(moved(3), 0), row(base, 0), { rtol: 0, atol: 0 });
    expect(Math.max(...row(moved(2), 0).map((v, c) => Math.abs(v - row(base, 0)[c])))).toBeGreaterThan(1e-6);
  });

  it('DistilBERT with sinusoidal_pos_embds: the frozen position table gets no gradient, the rest does', () => {
    const checkpoint = makeTinyCheckpoint('distilbert', {
      seed: 1,
      vocabSize: 30,
      hidden: 8,
      layers: 1,
      heads: 2,
      intermediate: 12,
    });
    const input = { ids: Int32Array.from([3, 4, 5]), mask: Uint8Array.from([1, 1, 1]), B: 1, T: 3 };
    const gradsFor = (sinusoidal: boolean) => {
      const config = parseModelConfig({ ...checkpoint.config, sinusoidal_pos_embds: sinusoidal });
      const params = toFloat64Params(loadParameters(config, checkpoint.tensors));
      const grads = zerosLike(config);
      encoderBackward(config, params, encoderForward(config, params, input), new Random(1).normals(3 * 8), grads);
      return grads;
    };
    const norm = (a: Float64Array) => Math.hypot(...a);
    expect(norm(gradsFor(true)[P.positionEmbeddings])).toBe(0);
    expect(norm(gradsFor(false)[P.positionEmbeddings])).toBeGreaterThan(0);
    expect(norm(gradsFor(true)[P.wordEmbeddings])).toBeGreaterThan(0);
  });

  it.each(['bert', 'roberta'] as const)(
    '%s: rows looked up at the padding index get no lookup gradient (padding_idx); tied decoder gradients still reach them',
    (architecture) => {
      const { config, params } = tinyModel(architecture);
      const input = batch(config, 7);
      input.ids[2] = config.padTokenId; // a pad id inside the real part of sequence 0
      const acts = encoderForward(config, params, input);
      const d = config.hidden;
      const pad = config.padTokenId;
      const row = (m: Float64Array, r: number) => m.slice(r * d, (r + 1) * d);
      const dheadHidden = new Random(2).normals(input.B * input.T * d); // also reaches the padded positions
      const grads = zerosLike(config);
      encoderBackward(config, params, acts, dheadHidden, grads);
      expectClose('word row of the pad id', row(grads[P.wordEmbeddings], pad), new Float64Array(d), { rtol: 0, atol: 0 });
      expect(Math.max(...row(grads[P.wordEmbeddings], input.ids[0]).map(Math.abs))).toBeGreaterThan(0);
      if (architecture === 'roberta') {
        // pads sit at position id = pad, whose row is nn.Embedding's padding_idx too
        expectClose('position row of the pad index', row(grads[P.positionEmbeddings], pad), new Float64Array(d), {
          rtol: 0,
          atol: 0,
        });
      }
      const ddecoderWeight = new Random(4).normals(config.vocabSize * d);
      const withDecoder = zerosLike(config);
      encoderBackward(config, params, acts, dheadHidden, withDecoder, { ddecoderWeight });
      expectClose('pad row = decoder gradient', row(withDecoder[P.wordEmbeddings], pad), row(ddecoderWeight, pad), {
        rtol: 0,
        atol: 0,
      });
    },
  );
});
