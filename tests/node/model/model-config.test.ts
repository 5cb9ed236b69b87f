// config.json parsing: real backbones' configs give the expected typed fields; unsupported ones fail with clear errors.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROMPTLY_MS } from '../../helpers/promptly.ts';
import type { ModelConfig } from '../../../src/contract/model/model-config.ts';
import { parseModelConfig } from '../../../src/model/config.ts';
import { ConfigError, CONFIG_LIMITS } from '../../../src/model/config/config-reader.ts';
import { parameterCount } from '../../../src/model/layout.ts';
import { readFixtureText } from '../../helpers/fixtures.ts';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../../fixtures/configs/${name}`, import.meta.url), 'utf8'));

/** A real backbone's config.json bundled with its tokenizer under tests/fixtures/tokenizers. */
const bundled = (path: string) => JSON.parse(readFixtureText(path));

interface Case {
  name: string;
  json: () => unknown;
  source?: string;
  expected: Partial<ModelConfig>;
  /** MLM parameter count, tied decoder counted once: the usual published figures for BERT/DistilBERT/RoBERTa
   *  (109.5M, 67.0M, 124.7M), hand-computed from the architecture for ModernBERT (149.7M, 395.9M). */
  params?: number;
}

const cases: Case[] = [
  {
    name: 'bert-tiny (no model_type: guessed from the name)',
    json: () => fixture('prajjwal1-bert-tiny.json'),
    source: 'prajjwal1/bert-tiny',
    expected: {
      architecture: 'bert',
      hidden: 128,
      layers: 2,
      heads: 2,
      headDim: 64,
      intermediate: 512,
      vocabSize: 30522,
      maxPositions: 512,
      typeVocabSize: 2,
      padTokenId: 0,
      normEps: 1e-12,
      positions: 'absolute',
      tieWordEmbeddings: true,
    },
  },
  {
    name: 'bert-mini',
    json: () => fixture('prajjwal1-bert-mini.json'),
    source: 'prajjwal1/bert-mini',
    expected: { architecture: 'bert', hidden: 256, layers: 4, heads: 4, intermediate: 1024 },
  },
  {
    name: 'bert-base-uncased (real file)',
    json: () => bundled('tokenizers/bert-base-uncased/config.json'),
    expected: {
      architecture: 'bert',
      hfArchitecture: 'BertForMaskedLM',
      hidden: 768,
      layers: 12,
      heads: 12,
      intermediate: 3072,
      normEps: 1e-12,
    },
    // 110M encoder (incl. pooler 0.59M, absent from BertForMaskedLM) + head transform 0.59M + decoder bias.
    params: 109_514_298,
  },
  {
    name: 'distilbert-base-uncased',
    json: () => fixture('distilbert-base-uncased.json'),
    expected: {
      architecture: 'distilbert',
      hidden: 768,
      layers: 6,
      heads: 12,
      intermediate: 3072,
      typeVocabSize: 0,
      normEps: 1e-12,
      sinusoidalPositions: false,
    },
    params: 66_985_530,
  },
  {
    name: 'roberta-base',
    json: () => fixture('roberta-base.json'),
    expected: {
      architecture: 'roberta',
      positions: 'roberta',
      padTokenId: 1,
      maxPositions: 514,
      typeVocabSize: 1,
      normEps: 1e-5,
      vocabSize: 50265,
    },
    params: 124_697_433,
  },
  {
    name: 'ModernBERT-base',
    json: () => fixture('ModernBERT-base.json'),
    expected: {
      architecture: 'modernbert',
      hidden: 768,
      layers: 22,
      heads: 12,
      intermediate: 1152,
      normEps: 1e-5,
      normBias: false,
      attentionBias: false,
      mlpInBias: false,
      mlpOutBias: false,
      headDenseBias: false,
      decoderBias: true,
      mlp: 'geglu',
      structure: 'pre-norm',
      padTokenId: 50283,
    },
    params: 149_655_232,
  },
  {
    name: 'ModernBERT-large (real file in shared data)',
    json: () => bundled('tokenizers/modernbert/config.json'),
    expected: { architecture: 'modernbert', hidden: 1024, layers: 28, heads: 16, intermediate: 2624 },
    params: 395_881_664, // "395M"
  },
  {
    name: 'ettin-encoder-17m',
    json: () => fixture('ettin-encoder-17m.reconstructed.json'),
    expected: { hidden: 256, layers: 7, heads: 4, intermediate: 384 },
  },
  {
    name: 'ettin-encoder-32m',
    json: () => fixture('ettin-encoder-32m.reconstructed.json'),
    expected: { hidden: 384, layers: 10, heads: 6, intermediate: 576 },
  },
  {
    name: 'ettin-encoder-150m',
    json: () => fixture('ettin-encoder-150m.reconstructed.json'),
    expected: { hidden: 768, layers: 22, heads: 12, intermediate: 1152 },
  },
  {
    name: 'xlm-roberta-base (250k vocabulary)',
    json: () => fixture('xlm-roberta-base.json'),
    expected: {
      architecture: 'roberta',
      hfArchitecture: 'XLMRobertaForMaskedLM',
      modelType: 'xlm-roberta',
      vocabSize: 250002,
      hidden: 768,
      padTokenId: 1,
      positions: 'roberta',
    },
    // roberta-base's 124,697,433 + (250002 - 50265) x (768 + 1) for the larger vocabulary and decoder bias
    params: 278_295_186,
  },
  {
    name: 'albert-base-v2',
    json: () => fixture('albert-base-v2.json'),
    expected: {
      architecture: 'albert',
      hfArchitecture: 'AlbertForMaskedLM',
      hidden: 768,
      embeddingSize: 128,
      layers: 12,
      layerWeights: new Array(12).fill(0),
      heads: 12,
      intermediate: 3072,
      vocabSize: 30000,
      activation: 'gelu_new',
      structure: 'post-norm',
      albert: { innerGroupNum: 1 },
    },
    // embeddings 3,906,048 (E = 128) + projection 99,072 + one shared layer 7,087,872 + head 98,688 + decoder bias 30,000;
    // with the pooler (590,592, not in AlbertForMaskedLM): the 11.8M quoted for albert-base-v2.
    params: 11_221_680,
  },
  {
    name: 'gte-en-mlm-base (reconstructed)',
    json: () => fixture('gte-en-mlm-base.reconstructed.json'),
    expected: {
      architecture: 'gte',
      hfArchitecture: 'NewForMaskedLM',
      modelType: 'new',
      hidden: 768,
      layers: 12,
      heads: 12,
      intermediate: 3072,
      vocabSize: 30528,
      typeVocabSize: 0,
      positions: 'rotary',
      structure: 'post-norm',
      mlp: 'geglu',
      mlpInBias: false,
      mlpOutBias: true,
      normEps: 1e-12,
      gte: { ropeTheta: 500000, ropeScaling: { factor: 2, mixedB: null }, packQkv: true },
    },
    // 12 x 9,444,096 per layer + 23,445,504 word embeddings + 1,536 norm + 590,592 head dense + 1,536 head norm + 30,528
    // decoder bias: the ModernBERT paper's "137M" for GTE-en-MLM-base.
    params: 137_398_848,
  },
];

describe.each(cases)('$name', ({ json, source, expected, params }) => {
  it('parses into the expected fields', () => {
    const config = parseModelConfig(json(), { source });
    expect(config).toMatchObject(expected);
  });

  if (params !== undefined) {
    it('has the expected MLM parameter count', () => {
      expect(parameterCount(parseModelConfig(json(), { source }))).toBe(params);
    });
  }
});

describe('ModernBERT layer pattern and rotary bases', () => {
  it('ModernBERT-base: global every 3rd layer from layer 0, theta 160000 global / 10000 local, window 128', () => {
    const mb = parseModelConfig(fixture('ModernBERT-base.json')).modernBert!;
    expect(mb.layerKinds.slice(0, 7)).toEqual(['global', 'local', 'local', 'global', 'local', 'local', 'global']);
    expect(mb).toMatchObject({ globalRopeTheta: 160000, localRopeTheta: 10000, localAttention: 128, globalAttnEveryNLayers: 3 });
  });

  it('Ettin: the same rotary base on local and global layers', () => {
    const mb = parseModelConfig(fixture('ettin-encoder-17m.reconstructed.json')).modernBert!;
    expect([mb.globalRopeTheta, mb.localRopeTheta]).toEqual([160000, 160000]);
  });

  it('newer configs: rope_parameters and layer_types take precedence and must agree with the period', () => {
    const base = { ...fixture('ModernBERT-base.json'), num_hidden_layers: 4 };
    const rope_parameters = {
      full_attention: { rope_type: 'default', rope_theta: 5e5 },
      sliding_attention: { rope_type: 'default', rope_theta: 2e4 },
    };
    const layer_types = ['full_attention', 'sliding_attention', 'sliding_attention', 'full_attention'];
    const mb = parseModelConfig({ ...base, rope_parameters, layer_types }).modernBert!;
    expect([mb.globalRopeTheta, mb.localRopeTheta]).toEqual([5e5, 2e4]);
    expect(() =>
      parseModelConfig({ ...base, layer_types: ['full_attention', 'full_attention', 'sliding_attention', 'full_attention'] }),
    ).toThrow(/layer_types\[1\]/);
    expect(() => parseModelConfig({ ...base, rope_parameters: { full_attention: { rope_type: 'yarn', factor: 2 } } })).toThrow(
      /rope_type "yarn"/,
    );
  });
});

describe('refusals name the problem', () => {
  const bert = () => bundled('tokenizers/bert-base-uncased/config.json');

  it.each([
    [
      { model_type: 'electra', architectures: ['ElectraForMaskedLM'] },
      /unsupported model_type "electra".*ElectraForMaskedLM.*supported: BertForMaskedLM/,
    ],
    [{ architectures: ['ElectraForMaskedLM'] }, /unsupported architecture "ElectraForMaskedLM"; supported:/],
    [{ hidden_size: 768 }, /neither "model_type" nor "architectures"/],
  ])('unsupported or unknown architecture %#', (json, message) => {
    expect(() => parseModelConfig(json, { source: 'models/x/config.json' })).toThrow(message);
  });

  it.each([
    ['bert', { hidden_act: 'gelu_new' }, /hidden_act "gelu_new" is not supported: only the exact erf GELU/],
    ['bert', { hidden_act: 'relu' }, /hidden_act "relu"/],
    ['bert', { position_embedding_type: 'relative_key' }, /position_embedding_type "relative_key"/],
    ['bert', { hidden_size: 100, num_attention_heads: 12 }, /hidden size 100 is not a multiple of the head count 12/],
    ['bert', { pad_token_id: 40000 }, /pad_token_id 40000 is outside the vocabulary/],
    ['bert', { num_hidden_layers: '12' }, /"num_hidden_layers" must be a number/],
    ['modernbert', { classifier_activation: 'silu' }, /classifier_activation "silu"/],
    ['modernbert', { hidden_activation: 'gelu_pytorch_tanh' }, /hidden_activation "gelu_pytorch_tanh"/],
    ['modernbert', { hidden_size: 36, num_attention_heads: 4 }, /even head size, got 9/],
    ['distilbert', { activation: 'relu' }, /activation "relu"/],
  ])('%s with %j', (family, patch, message) => {
    const base =
      family === 'bert'
        ? bert()
        : family === 'modernbert'
          ? fixture('ModernBERT-base.json')
          : fixture('distilbert-base-uncased.json');
    expect(() => parseModelConfig({ ...base, ...patch }, { source: 'cfg.json' })).toThrow(message);
    expect(() => parseModelConfig({ ...base, ...patch })).toThrow(ConfigError);
  });

  it('XLM-RoBERTa maps onto the RoBERTa family and keeps its class name', () => {
    const config = parseModelConfig({
      ...fixture('roberta-base.json'),
      model_type: 'xlm-roberta',
      architectures: ['XLMRobertaForMaskedLM'],
      vocab_size: 250002,
    });
    expect(config).toMatchObject({
      architecture: 'roberta',
      hfArchitecture: 'XLMRobertaForMaskedLM',
      modelType: 'xlm-roberta',
      positions: 'roberta',
    });
  });
});

describe('sizes are range-checked before anything is allocated (hostile config.json)', () => {
  const bert = () => bundled('tokenizers/bert-base-uncased/config.json');
  const modernBert = () => fixture('ModernBERT-base.json');

  it.each([
    ['bert', 'num_hidden_layers', 1e9],
    ['modernbert', 'num_hidden_layers', 1e9],
    ['bert', 'num_hidden_layers', 1e5],
    ['bert', 'num_attention_heads', 1e6],
    ['bert', 'hidden_size', 2 ** 30],
    ['bert', 'intermediate_size', 1e12],
    ['bert', 'vocab_size', 1e300],
    ['bert', 'max_position_embeddings', 2 ** 40],
    ['bert', 'type_vocab_size', 1e9],
    ['modernbert', 'global_attn_every_n_layers', 0],
    ['bert', 'num_hidden_layers', 0],
  ])('%s %s = %d is refused at once with a short message', (family, key, value) => {
    const started = performance.now();
    const json = { ...(family === 'bert' ? bert() : modernBert()), [key]: value };
    let message = '';
    try {
      parseModelConfig(json, { source: 'cfg.json' });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(message).toMatch(
      new RegExp(
        `^cfg\\.json: "${key}" is .*, outside \\d+\\.\\.\\d+, the range this loader accepts; is config\\.json corrupt\\?$`,
      ),
    );
    expect(message.length).toBeLessThan(200);
    expect(performance.now() - started).toBeLessThan(PROMPTLY_MS);
  });

  it('refuses sizes each in range whose parameter count is over the cap', () => {
    const json = { ...bert(), num_hidden_layers: 512, hidden_size: 8192, num_attention_heads: 64, intermediate_size: 32768 };
    expect(() => parseModelConfig(json, { source: 'cfg.json' })).toThrow(
      /cfg\.json: the model would have 412\.\d\d billion parameters, more than the 2\.15 billion/,
    );
    expect(CONFIG_LIMITS.parameters).toBe(2 ** 31);
  });

  it('keeps huge strings and lists out of its messages', () => {
    const long = 'x'.repeat(1 << 20);
    for (const json of [
      { model_type: long },
      { architectures: [long] },
      { ...bert(), hidden_act: long },
      { ...bert(), num_hidden_layers: [...long] },
    ]) {
      let message = '';
      try {
        parseModelConfig(json, { source: 'cfg.json' });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^cfg\.json: /);
      expect(message.length).toBeLessThan(400);
    }
  });

  it('does not take a model_type from Object.prototype ("constructor")', () => {
    expect(() => parseModelConfig({ model_type: 'constructor' })).toThrow(/unsupported model_type "constructor"/);
  });
});

describe('large vocabularies and the device limits', () => {
  it("XLM-R's 250k x 768 vocabulary matrix fits WebGPU's default 128 MiB per binding in 6 row parts", async () => {
    const { deviceFitError } = await import('../../../src/model/load-model.ts');
    const { planRowParts } = await import('../../../src/gpu/row-parts.ts');
    const config = parseModelConfig(fixture('xlm-roberta-base.json'));
    const limits = { maxStorageBufferBindingSize: 128 * 2 ** 20, maxBufferSize: 256 * 2 ** 20 };
    expect(deviceFitError(config, limits, 'xlm-roberta-base')).toBeNull();
    const parts = planRowParts(250002, 768, limits.maxStorageBufferBindingSize, 1);
    expect(parts.map((p) => p.rows)).toEqual([43690, 43690, 43690, 43690, 43690, 31552]);
    // a layer matrix over the binding is still refused, by name and size
    const wide = parseModelConfig({ ...fixture('xlm-roberta-base.json'), intermediate_size: 50000 });
    expect(deviceFitError(wide, { maxStorageBufferBindingSize: 128 * 2 ** 20, maxBufferSize: 2 ** 30 }, 'wide')?.message).toMatch(
      /wide: layer 0 MLP input weight \[50000x768\].*maxStorageBufferBindingSize/,
    );
  });
});
