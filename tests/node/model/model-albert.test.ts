// ALBERT details the shared family tests do not pin down: which stored layer each application uses, gradients of
// a shared layer summed over its applications, the E-wide head, skipped pooler and SOP tensors, refused configs.
import { describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../../src/model/config.ts';
import { ConfigError } from '../../../src/model/config/config-reader.ts';
import { P, decoderWeightName, parameterLayout, zerosLike, type ModelParams } from '../../../src/model/layout.ts';
import { encoderBackward, encoderForward } from '../../../src/model/reference/encoder.ts';
import { makeTinyCheckpoint, type TinyModelOptions } from '../../../src/model/tiny-model.ts';
import { loadParameters, loadParametersReport, toFloat64Params } from '../../../src/model/weights.ts';
import { Random } from '../../../src/util/random.ts';

const SIZES = { seed: 2, vocabSize: 30, hidden: 12, layers: 2, heads: 3, intermediate: 10, embeddingSize: 4, initStd: 0.3 };

function tinyAlbert(options: Partial<TinyModelOptions> = {}) {
  const checkpoint = makeTinyCheckpoint('albert', { ...SIZES, ...options });
  const config = parseModelConfig(checkpoint.config);
  return { checkpoint, config, params: toFloat64Params(loadParameters(config, checkpoint.tensors)) };
}

const INPUT = { ids: Int32Array.from([2, 7, 9, 3, 11, 5]), mask: Uint8Array.from([1, 1, 1, 1, 1, 0]), B: 2, T: 3 };

describe('ALBERT layer sharing', () => {
  it('4 layers in 2 groups of 2 inner layers: applications use stored layers 0 1 0 1 2 3 2 3', () => {
    const { config, checkpoint } = tinyAlbert({ layers: 4, hiddenGroups: 2, innerGroupNum: 2 });
    expect(config.layers).toBe(8);
    expect(config.layerWeights).toEqual([0, 1, 0, 1, 2, 3, 2, 3]);
    const layerNames = new Set(
      parameterLayout(config)
        .map((s) => /^layers\.(\d+)\./.exec(s.name)?.[1])
        .filter((i) => i !== undefined),
    );
    expect([...layerNames]).toEqual(['0', '1', '2', '3']);
    expect(checkpoint.tensors.has('albert.encoder.albert_layer_groups.1.albert_layers.1.ffn.weight')).toBe(true);
    expect(checkpoint.tensors.has('albert.encoder.albert_layer_groups.2.albert_layers.0.ffn.weight')).toBe(false);
  });

  it("a shared layer's gradient is the sum of what each application would get with its own copy", () => {
    const shared = tinyAlbert();
    // the same model with one group per layer, both groups holding the shared layer's weights
    const separate = tinyAlbert({ hiddenGroups: 2 });
    const params: ModelParams = { ...separate.params };
    for (const name of Object.keys(shared.params)) {
      const m = /^layers\.0\.(.*)$/.exec(name);
      if (m) params[`layers.1.${m[1]}`] = shared.params[name];
      params[name] = shared.params[name];
    }
    const gradients = (config: typeof shared.config, p: ModelParams) => {
      const grads = zerosLike(config);
      encoderBackward(config, p, encoderForward(config, p, INPUT), new Random(6).normals(6 * config.embeddingSize), grads);
      return grads;
    };
    const sharedGrads = gradients(shared.config, shared.params);
    const separateGrads = gradients(separate.config, params);
    expect(encoderForward(shared.config, shared.params, INPUT).headHidden).toEqual(
      encoderForward(separate.config, params, INPUT).headHidden,
    );
    for (const name of Object.keys(sharedGrads).filter((n) => n.startsWith('layers.0.'))) {
      const other = name.replace('layers.0.', 'layers.1.');
      const sum = sharedGrads[name].map((_, i) => separateGrads[name][i] + separateGrads[other][i]);
      sharedGrads[name].forEach((g, i) => expect(g).toBeCloseTo(sum[i], 12));
    }
  });
});

describe('ALBERT embeddings and head', () => {
  it('embeddings and the decoder are E wide; the projection maps E to the hidden size and the head maps back', () => {
    const { config, params } = tinyAlbert();
    const shapes = new Map(parameterLayout(config).map((s) => [s.name, s.shape]));
    expect(shapes.get(P.wordEmbeddings)).toEqual([30, 4]);
    expect(shapes.get(P.embeddingProjection('weight'))).toEqual([12, 4]);
    expect(shapes.get(P.headDense('weight'))).toEqual([4, 12]);
    expect(shapes.get(P.headNorm('weight'))).toEqual([4]);
    expect(decoderWeightName(config)).toBe(P.wordEmbeddings);
    expect(encoderForward(config, params, INPUT).headHidden.length).toBe(6 * 4);
  });

  it('skips the pooler and the sentence-order head, saying why', () => {
    const { config, checkpoint } = tinyAlbert();
    const tensors = new Map(checkpoint.tensors);
    tensors.set('albert.pooler.weight', { shape: [12, 12], data: new Float32Array(144) });
    tensors.set('sop_classifier.classifier.weight', { shape: [2, 12], data: new Float32Array(24) });
    const report = loadParametersReport(config, tensors);
    expect(report.unusedTensors).toEqual([]);
    expect(report.ignoredTensors.map((t) => t.name).sort()).toEqual(['albert.pooler.weight', 'sop_classifier.classifier.weight']);
  });
});

describe('ALBERT config.json', () => {
  const base = () => tinyAlbert().checkpoint.config;

  it('takes the exact GELU too', () => {
    expect(parseModelConfig({ ...base(), hidden_act: 'gelu' }).activation).toBe('gelu');
    expect(parseModelConfig(base()).activation).toBe('gelu_new');
  });

  it.each([
    [{ hidden_act: 'relu' }, /hidden_act "relu" is not supported: only "gelu" \(exact\) and "gelu_new"/],
    [{ position_embedding_type: 'relative_key' }, /position_embedding_type "relative_key" is not supported/],
    [{ num_hidden_groups: 3 }, /"num_hidden_groups" is 3, outside 1..2/],
    [{ embedding_size: 0 }, /"embedding_size" is 0, outside/],
  ])('refuses %j', (change, message) => {
    expect(() => parseModelConfig({ ...base(), ...change }, { source: 'albert/config.json' })).toThrow(ConfigError);
    expect(() => parseModelConfig({ ...base(), ...change }, { source: 'albert/config.json' })).toThrow(message);
  });
});
