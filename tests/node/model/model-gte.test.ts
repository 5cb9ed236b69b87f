// GTE (NewForMaskedLM) details the shared family tests do not pin down: NTK-scaled rotary frequencies, the [up; gate]
// order of up_gate_proj, pad_token_id and padding_idx, pack_qkv = false, and the configs it refuses.
import { describe, expect, it } from 'vitest';
import { ropeInverseFrequencies } from '../../../src/kernels/reference/attention.ts';
import { gelu } from '../../../src/kernels/reference/activations.ts';
import { parseModelConfig } from '../../../src/model/config.ts';
import { ConfigError } from '../../../src/model/config/config-reader.ts';
import { uniformDropout } from '../../../src/contract/model/model-config.ts';
import { P, zerosLike } from '../../../src/model/layout.ts';
import { encoderBackward, encoderForward } from '../../../src/model/reference/encoder.ts';
import { makeTinyCheckpoint, type TinyModelOptions } from '../../../src/model/tiny-model.ts';
import { loadParameters, toFloat64Params } from '../../../src/model/weights.ts';
import { Random } from '../../../src/util/random.ts';

function tinyGte(options: Partial<TinyModelOptions> = {}) {
  const checkpoint = makeTinyCheckpoint('gte', {
    seed: 8,
    vocabSize: 40,
    hidden: 8,
    layers: 1,
    heads: 2,
    intermediate: 6,
    initStd: 0.3,
    ...options,
  });
  return { checkpoint, config: parseModelConfig(checkpoint.config) };
}

describe('GTE rotary frequencies', () => {
  it('plain: theta^(-2j/hd); NTK x4: base theta·4, every frequency / 4^(2/hd); mixed_b 1: frequency j / exp(ln 4 · (j+1)/(hd/2))', () => {
    expect([...ropeInverseFrequencies(4, 10000)]).toEqual([1, 0.01]);
    const ntk = ropeInverseFrequencies(4, 10000, { factor: 4, mixedB: null });
    expect(ntk[0]).toBeCloseTo(0.5, 15); // 40000^0 / 4^(1/2)
    expect(ntk[1]).toBeCloseTo(0.0025, 15); // 40000^(-1/2) / 2
    const mixed = ropeInverseFrequencies(4, 10000, { factor: 4, mixedB: 1 });
    expect(mixed[0]).toBeCloseTo(0.5, 15); // 1 / exp(ln 4 / 2)
    expect(mixed[1]).toBeCloseTo(0.0025, 15); // 0.01 / exp(ln 4)
    // a factor of 1 or less leaves the frequencies alone, as the modelling code's cache does
    expect([...ropeInverseFrequencies(4, 10000, { factor: 1, mixedB: null })]).toEqual([1, 0.01]);
  });
});

describe('GTE gated MLP', () => {
  it('up_gate_proj rows are [up; gate] and the GELU is on the gate: MLP(h) = down(gelu(h Wgateᵀ) ⊙ h Wupᵀ) + b', () => {
    const { checkpoint, config } = tinyGte();
    const params = toFloat64Params(loadParameters(config, checkpoint.tensors));
    const input = { ids: Int32Array.from([3, 9, 14, 5]), mask: Uint8Array.from([1, 1, 1, 1]), B: 1, T: 4 };
    const mlp = encoderForward(config, params, input).layers[0].mlp;
    const { hidden: d, intermediate: I } = config;
    const upGate = checkpoint.tensors.get('new.encoder.layer.0.mlp.up_gate_proj.weight')!.data; // (2I, d) as saved
    const down = checkpoint.tensors.get('new.encoder.layer.0.mlp.down_proj.weight')!.data; // (d, I)
    const bias = checkpoint.tensors.get('new.encoder.layer.0.mlp.down_proj.bias')!.data;
    const row = (w: Float32Array, r: number, h: Float64Array, n: number, width: number) => {
      let sum = 0;
      for (let c = 0; c < width; c++) sum += w[r * width + c] * h[n * width + c];
      return sum;
    };
    for (let n = 0; n < input.T; n++) {
      const gated = Array.from({ length: I }, (_, i) => gelu(row(upGate, I + i, mlp.inp, n, d)) * row(upGate, i, mlp.inp, n, d));
      for (let o = 0; o < d; o++) {
        let expected = bias[o];
        for (let i = 0; i < I; i++) expected += down[o * I + i] * gated[i];
        expect(mlp.out[n * d + o]).toBeCloseTo(expected, 5);
      }
    }
  });
});

describe('GTE config.json', () => {
  const base = () => tinyGte().checkpoint.config;

  it('pack_qkv false: q_proj, k_proj and v_proj load into the same fused matrix', () => {
    const { checkpoint, config } = tinyGte();
    const packed = loadParameters(config, checkpoint.tensors);
    const split = new Map(checkpoint.tensors);
    for (const part of ['weight', 'bias']) {
      const qkv = split.get(`new.encoder.layer.0.attention.qkv_proj.${part}`)!;
      split.delete(`new.encoder.layer.0.attention.qkv_proj.${part}`);
      const size = qkv.data.length / 3;
      ['q', 'k', 'v'].forEach((m, k) => {
        split.set(`new.encoder.layer.0.attention.${m}_proj.${part}`, {
          shape: [qkv.shape[0] / 3, ...qkv.shape.slice(1)],
          data: qkv.data.slice(k * size, (k + 1) * size),
        });
      });
    }
    const unpacked = parseModelConfig({ ...checkpoint.config, pack_qkv: false });
    const loaded = loadParameters(unpacked, split);
    for (const part of ['weight', 'bias'] as const)
      expect([...loaded.get(P.qkv(0, part))!.data]).toEqual([...packed.get(P.qkv(0, part))!.data]);
  });

  it('without pad_token_id the word embeddings have no padding_idx: the row of id 0 gets its lookup gradient', () => {
    const { checkpoint } = tinyGte({ tieWordEmbeddings: false });
    const withPad = parseModelConfig(checkpoint.config);
    const withoutPad = parseModelConfig({ ...checkpoint.config, pad_token_id: undefined });
    expect([withPad.embeddingPaddingIdx, withoutPad.embeddingPaddingIdx]).toEqual([0, -1]);
    const input = { ids: Int32Array.from([5, 0, 7]), mask: Uint8Array.from([1, 1, 1]), B: 1, T: 3 };
    const rowZeroGradient = (config: typeof withPad) => {
      const params = toFloat64Params(loadParameters(config, checkpoint.tensors));
      const grads = zerosLike(config);
      encoderBackward(config, params, encoderForward(config, params, input), new Random(4).normals(3 * config.hidden), grads);
      return Math.hypot(...grads[P.wordEmbeddings].slice(0, config.hidden));
    };
    expect(rowZeroGradient(withPad)).toBe(0);
    expect(rowZeroGradient(withoutPad)).toBeGreaterThan(0);
  });

  it('hidden_dropout_prob drops after the embeddings, on both residual branches and on the gated activation', () => {
    const config = parseModelConfig({ ...base(), hidden_dropout_prob: 0.2, attention_probs_dropout_prob: 0.05 });
    expect(config.dropout).toEqual({
      embeddings: 0.2,
      attentionProbs: 0.05,
      attentionOutput: 0.2,
      mlpActivation: 0.2,
      mlpOutput: 0.2,
    });
    expect(uniformDropout(0.3, 'gte')).toEqual({
      embeddings: 0.3,
      attentionProbs: 0.3,
      attentionOutput: 0.3,
      mlpActivation: 0.3,
      mlpOutput: 0.3,
    });
    // the other families keep only the sites they have
    expect(uniformDropout(0.3, 'distilbert')).toEqual({
      embeddings: 0.3,
      attentionProbs: 0.3,
      attentionOutput: 0,
      mlpActivation: 0,
      mlpOutput: 0.3,
    });
  });

  it.each([
    [{ layer_norm_type: 'rms_norm' }, /layer_norm_type "rms_norm" is not supported/],
    [{ logn_attention_scale: true }, /logn_attention_scale = true is not supported/],
    [{ position_embedding_type: 'absolute' }, /position_embedding_type "absolute" is not supported for GTE/],
    [{ rope_scaling: { type: 'linear', factor: 2 } }, /rope_scaling type "linear" is not supported/],
    [{ rope_scaling: { type: 'ntk', factor: 'two' } }, /rope_scaling.factor must be a positive number/],
    [{ hidden_act: 'gelu_new' }, /hidden_act "gelu_new" is not supported/],
    [{ rope_theta: 0 }, /rope_theta must be positive/],
  ])('refuses %j', (change, message) => {
    expect(() => parseModelConfig({ ...base(), ...change }, { source: 'gte/config.json' })).toThrow(ConfigError);
    expect(() => parseModelConfig({ ...base(), ...change }, { source: 'gte/config.json' })).toThrow(message);
  });
});
