// Parses a Hugging Face config.json into a typed ModelConfig for the six supported masked-LM families, sizes
// range-checked before anything is allocated. Semantics follow transformers' modeling_*.py and config classes.
import { Architecture, familyDropout, LayerKind, ModelConfig, type RopeScaling } from '../contract/model-config.ts';
import { clip } from '../io/format-error.ts';
import { parameterCount } from './layout.ts';

const SUPPORTED_ARCHITECTURES = [
  'BertForMaskedLM',
  'RobertaForMaskedLM',
  'XLMRobertaForMaskedLM',
  'DistilBertForMaskedLM',
  'ModernBertForMaskedLM',
  'NewForMaskedLM (GTE)',
  'AlbertForMaskedLM',
] as const;

interface Family {
  architecture: Architecture;
  hfArchitecture: string;
}

const FAMILIES: Record<string, Family> = {
  bert: { architecture: 'bert', hfArchitecture: 'BertForMaskedLM' },
  roberta: { architecture: 'roberta', hfArchitecture: 'RobertaForMaskedLM' },
  'xlm-roberta': { architecture: 'roberta', hfArchitecture: 'XLMRobertaForMaskedLM' },
  distilbert: { architecture: 'distilbert', hfArchitecture: 'DistilBertForMaskedLM' },
  modernbert: { architecture: 'modernbert', hfArchitecture: 'ModernBertForMaskedLM' },
  new: { architecture: 'gte', hfArchitecture: 'NewForMaskedLM' },
  albert: { architecture: 'albert', hfArchitecture: 'AlbertForMaskedLM' },
};

/** Class-name prefixes of each model_type (e.g. BertModel, BertForPreTraining are model_type "bert"). */
const CLASS_PREFIXES: [string, string][] = [
  ['XLMRoberta', 'xlm-roberta'],
  ['Roberta', 'roberta'],
  ['DistilBert', 'distilbert'],
  ['ModernBert', 'modernbert'],
  ['Bert', 'bert'],
  ['New', 'new'],
  ['Albert', 'albert'],
];

/** Activation names transformers' ACT2FN maps to the exact erf GELU. */
const EXACT_GELU = new Set(['gelu', 'gelu_python']);

/**
 * Largest sizes a config may declare: far above every published encoder (BERT-large: 24 layers, 1024 hidden;
 * XLM-R: 250k vocabulary; ModernBERT: 8192 positions), low enough that nothing is allocated for a corrupt or
 * hostile config.json. The parameter count (tied decoder counted once) must stay under `parameters`.
 */
export const CONFIG_LIMITS = {
  vocabSize: 2 ** 21,
  hidden: 2 ** 15,
  layers: 512,
  heads: 1024,
  intermediate: 2 ** 17,
  maxPositions: 2 ** 20,
  typeVocabSize: 2 ** 16,
  parameters: 2 ** 31,
} as const;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface ParseOptions {
  /** Where the config came from (file path or Hub id), used in errors and, like transformers' AutoConfig,
   *  to guess model_type from the name when config.json has neither model_type nor architectures (bert-tiny). */
  source?: string;
}

type Json = Record<string, unknown>;

export function parseModelConfig(json: unknown, options: ParseOptions = {}): ModelConfig {
  const source = options.source ?? 'config.json';
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ConfigError(`${source}: expected a JSON object, got ${Array.isArray(json) ? 'an array' : typeof json}`);
  }
  const c = json as Json;
  const modelType = resolveModelType(c, source);
  const family = FAMILIES[modelType];
  const read = new Reader(c, source);
  const parsers: Record<Architecture, () => Parsed> = {
    bert: () => parseBertLike(read, 'bert'),
    roberta: () => parseBertLike(read, 'roberta'),
    distilbert: () => parseDistilBert(read),
    modernbert: () => parseModernBert(read),
    gte: () => parseGte(read),
    albert: () => parseAlbert(read),
  };
  const parsed = parsers[family.architecture]();
  const config: ModelConfig = {
    ...parsed,
    embeddingPaddingIdx: parsed.embeddingPaddingIdx ?? parsed.padTokenId,
    embeddingSize: parsed.embeddingSize ?? parsed.hidden,
    layerWeights: parsed.layerWeights ?? Array.from({ length: parsed.layers }, (_, i) => i),
    activation: parsed.activation ?? 'gelu',
    albert: parsed.albert ?? null,
    architecture: family.architecture,
    hfArchitecture: family.hfArchitecture,
    modelType,
  };
  validateShapes(config, source);
  const parameters = parameterCount(config);
  if (parameters > CONFIG_LIMITS.parameters) {
    throw new ConfigError(
      `${source}: the model would have ${(parameters / 1e9).toFixed(2)} billion parameters, more than the ${(CONFIG_LIMITS.parameters / 1e9).toFixed(2)} billion this loader accepts`,
    );
  }
  return config;
}

function resolveModelType(c: Json, source: string): string {
  const supported = `supported: ${SUPPORTED_ARCHITECTURES.join(', ')}`;
  const declared = typeof c.model_type === 'string' ? c.model_type : undefined;
  const archs = Array.isArray(c.architectures) ? c.architectures.filter((a): a is string => typeof a === 'string') : [];
  if (declared !== undefined) {
    if (!Object.hasOwn(FAMILIES, declared)) {
      const named = archs.length > 0 ? ` (architectures: ${clip(archs.join(', '))})` : '';
      throw new ConfigError(`${source}: unsupported model_type "${clip(declared, 40)}"${named}; ${supported}`);
    }
    return declared;
  }
  if (archs.length > 0) {
    const match = CLASS_PREFIXES.find(([prefix]) => archs[0].startsWith(prefix));
    if (!match) throw new ConfigError(`${source}: unsupported architecture "${clip(archs[0], 60)}"; ${supported}`);
    return match[1];
  }
  // transformers' AutoConfig falls back to the longest model_type found in the checkpoint's name.
  const name = (source.split(/[\\/]/).filter(Boolean).slice(-2).join('/') || source).toLowerCase();
  const guess = Object.keys(FAMILIES)
    .sort((a, b) => b.length - a.length)
    .find((type) => name.includes(type));
  if (!guess) {
    throw new ConfigError(
      `${source}: config.json has neither "model_type" nor "architectures", and the name does not say which model it is; ` +
        `add "model_type" (one of ${Object.keys(FAMILIES).join(', ')}); ${supported}`,
    );
  }
  return guess;
}

/** Fields only some families set, with their defaults in parseModelConfig. */
type FamilyExtras = 'embeddingPaddingIdx' | 'embeddingSize' | 'layerWeights' | 'activation' | 'albert';

/**
 * What a family's parser gives; embeddingPaddingIdx defaults to padTokenId, embeddingSize to the hidden size,
 * layerWeights to one set per layer, activation to the exact GELU, albert to null.
 */
type Parsed = Omit<ModelConfig, 'architecture' | 'hfArchitecture' | 'modelType' | FamilyExtras> &
  Partial<Pick<ModelConfig, FamilyExtras>>;

function parseBertLike(r: Reader, architecture: 'bert' | 'roberta'): Parsed {
  const positionType = r.string('position_embedding_type', 'absolute');
  if (positionType !== 'absolute') {
    r.fail(`position_embedding_type "${clip(positionType, 40)}" is not supported (only "absolute")`);
  }
  if (r.bool('is_decoder', false)) r.fail('is_decoder = true (a causal model) is not supported for masked-LM encoding');
  const hiddenAct = r.string('hidden_act', 'gelu');
  requireExactGelu(r, 'hidden_act', hiddenAct);
  const hidden = r.int('hidden_size', 768, 1, CONFIG_LIMITS.hidden);
  const heads = r.int('num_attention_heads', 12, 1, CONFIG_LIMITS.heads);
  return {
    vocabSize: r.int('vocab_size', architecture === 'roberta' ? 50265 : 30522, 1, CONFIG_LIMITS.vocabSize),
    hidden,
    layers: r.int('num_hidden_layers', 12, 1, CONFIG_LIMITS.layers),
    heads,
    headDim: Math.floor(hidden / heads),
    intermediate: r.int('intermediate_size', 3072, 1, CONFIG_LIMITS.intermediate),
    maxPositions: r.int('max_position_embeddings', 512, 1, CONFIG_LIMITS.maxPositions),
    typeVocabSize: r.int('type_vocab_size', 2, 0, CONFIG_LIMITS.typeVocabSize),
    padTokenId: r.int('pad_token_id', architecture === 'roberta' ? 1 : 0),
    normEps: r.number('layer_norm_eps', 1e-12),
    ...BERT_STYLE,
    tieWordEmbeddings: r.bool('tie_word_embeddings', true),
    positions: architecture === 'roberta' ? 'roberta' : 'absolute',
    dropout: (() => {
      const hiddenRate = dropoutRate(r, 'hidden_dropout_prob', 0.1);
      return familyDropout(architecture, {
        embeddings: hiddenRate,
        attentionProbs: dropoutRate(r, 'attention_probs_dropout_prob', 0.1),
        attentionOutput: hiddenRate,
        mlpOutput: hiddenRate,
      });
    })(),
  };
}

/** What BERT's post-norm layer with biases everywhere fixes; each family spreads it and sets what it changes. */
const BERT_STYLE = {
  normBias: true,
  attentionBias: true,
  mlpInBias: true,
  mlpOutBias: true,
  headDenseBias: true,
  decoderBias: true,
  structure: 'post-norm',
  mlp: 'gelu',
  sinusoidalPositions: false,
  modernBert: null,
  gte: null,
} as const;

/** A dropout probability of config.json: a number in [0, 1). */
function dropoutRate(r: Reader, key: string, fallback: number): number {
  const rate = r.number(key, fallback);
  if (!(rate >= 0 && rate < 1)) r.fail(`"${key}" is ${rate}: a dropout probability must be at least 0 and below 1`);
  return rate;
}

function parseDistilBert(r: Reader): Parsed {
  requireExactGelu(r, 'activation', r.string('activation', 'gelu'));
  const hidden = r.int('dim', 768, 1, CONFIG_LIMITS.hidden);
  const heads = r.int('n_heads', 12, 1, CONFIG_LIMITS.heads);
  return {
    vocabSize: r.int('vocab_size', 30522, 1, CONFIG_LIMITS.vocabSize),
    hidden,
    layers: r.int('n_layers', 6, 1, CONFIG_LIMITS.layers),
    heads,
    headDim: Math.floor(hidden / heads),
    intermediate: r.int('hidden_dim', 3072, 1, CONFIG_LIMITS.intermediate),
    maxPositions: r.int('max_position_embeddings', 512, 1, CONFIG_LIMITS.maxPositions),
    typeVocabSize: 0,
    padTokenId: r.int('pad_token_id', 0),
    normEps: 1e-12, // hard-coded in modeling_distilbert.py for every LayerNorm
    ...BERT_STYLE,
    tieWordEmbeddings: r.bool('tie_word_embeddings', true),
    positions: 'absolute',
    sinusoidalPositions: r.bool('sinusoidal_pos_embds', false),
    dropout: (() => {
      const hiddenRate = dropoutRate(r, 'dropout', 0.1);
      return familyDropout('distilbert', {
        embeddings: hiddenRate,
        attentionProbs: dropoutRate(r, 'attention_dropout', 0.1),
        mlpOutput: hiddenRate,
      });
    })(),
  };
}

function parseModernBert(r: Reader): Parsed {
  requireExactGelu(r, 'hidden_activation', r.string('hidden_activation', 'gelu'));
  requireExactGelu(r, 'classifier_activation', r.string('classifier_activation', 'gelu'));
  const hidden = r.int('hidden_size', 768, 1, CONFIG_LIMITS.hidden);
  const heads = r.int('num_attention_heads', 12, 1, CONFIG_LIMITS.heads);
  const layers = r.int('num_hidden_layers', 22, 1, CONFIG_LIMITS.layers);
  const everyN = r.int('global_attn_every_n_layers', 3, 1, CONFIG_LIMITS.layers);
  const layerKinds = Array.from({ length: layers }, (_, i): LayerKind => (i % everyN === 0 ? 'global' : 'local'));
  checkLayerTypes(r, layerKinds);
  const { globalTheta, localTheta } = ropeThetas(r);
  return {
    vocabSize: r.int('vocab_size', 50368, 1, CONFIG_LIMITS.vocabSize),
    hidden,
    layers,
    heads,
    headDim: Math.floor(hidden / heads),
    intermediate: r.int('intermediate_size', 1152, 1, CONFIG_LIMITS.intermediate),
    maxPositions: r.int('max_position_embeddings', 8192, 1, CONFIG_LIMITS.maxPositions),
    typeVocabSize: 0,
    padTokenId: r.int('pad_token_id', 50283),
    normEps: r.number('norm_eps', 1e-5),
    normBias: r.bool('norm_bias', false),
    attentionBias: r.bool('attention_bias', false),
    ...(() => {
      const bias = r.bool('mlp_bias', false);
      return { mlpInBias: bias, mlpOutBias: bias };
    })(),
    headDenseBias: r.bool('classifier_bias', false),
    decoderBias: r.bool('decoder_bias', true),
    tieWordEmbeddings: r.bool('tie_word_embeddings', true),
    positions: 'rotary',
    structure: 'pre-norm',
    mlp: 'geglu',
    sinusoidalPositions: false,
    modernBert: {
      globalRopeTheta: globalTheta,
      localRopeTheta: localTheta,
      localAttention: r.int('local_attention', 128, 0, 2 * CONFIG_LIMITS.maxPositions),
      globalAttnEveryNLayers: everyN,
      layerKinds,
    },
    gte: null,
    dropout: (() => {
      const attention = dropoutRate(r, 'attention_dropout', 0);
      return familyDropout('modernbert', {
        embeddings: dropoutRate(r, 'embedding_dropout', 0),
        attentionProbs: attention,
        attentionOutput: attention,
        mlpActivation: dropoutRate(r, 'mlp_dropout', 0),
      });
    })(),
  };
}

/**
 * GTE (Alibaba-NLP/new-impl, model_type "new"): BERT's post-norm layer with a fused qkv_proj (or q/k/v_proj),
 * rotary positions (optionally NTK-scaled), a gated GELU MLP (up_gate_proj without bias, down_proj with one) and
 * BERT's MLM head. Defaults are NewConfig's; what its modelling code does not implement, or we do not, is refused.
 */
function parseGte(r: Reader): Parsed {
  requireExactGelu(r, 'hidden_act', r.string('hidden_act', 'gelu'));
  const positionType = r.string('position_embedding_type', 'rope');
  if (positionType !== 'rope')
    r.fail(
      `position_embedding_type "${clip(positionType, 40)}" is not supported for GTE (only "rope", as every released GTE model)`,
    );
  const normType = r.string('layer_norm_type', 'layer_norm');
  if (normType !== 'layer_norm') r.fail(`layer_norm_type "${clip(normType, 40)}" is not supported (only "layer_norm")`);
  if (r.bool('logn_attention_scale', false)) r.fail('logn_attention_scale = true is not supported');
  const hidden = r.int('hidden_size', 768, 1, CONFIG_LIMITS.hidden);
  const heads = r.int('num_attention_heads', 12, 1, CONFIG_LIMITS.heads);
  // PretrainedConfig's pad_token_id defaults to None: nn.Embedding then has no padding_idx.
  const padRaw = r.raw('pad_token_id');
  const padTokenId = r.int('pad_token_id', 0);
  const hiddenRate = dropoutRate(r, 'hidden_dropout_prob', 0.1);
  const probsRate = dropoutRate(r, 'attention_probs_dropout_prob', 0);
  return {
    vocabSize: r.int('vocab_size', 30528, 1, CONFIG_LIMITS.vocabSize),
    hidden,
    layers: r.int('num_hidden_layers', 12, 1, CONFIG_LIMITS.layers),
    heads,
    headDim: Math.floor(hidden / heads),
    intermediate: r.int('intermediate_size', 3072, 1, CONFIG_LIMITS.intermediate),
    maxPositions: r.int('max_position_embeddings', 2048, 1, CONFIG_LIMITS.maxPositions),
    typeVocabSize: r.int('type_vocab_size', 1, 0, CONFIG_LIMITS.typeVocabSize),
    padTokenId,
    embeddingPaddingIdx: padRaw === undefined || padRaw === null ? -1 : padTokenId,
    normEps: r.number('layer_norm_eps', 1e-12),
    ...BERT_STYLE,
    mlpInBias: false,
    tieWordEmbeddings: r.bool('tie_word_embeddings', true),
    positions: 'rotary',
    mlp: 'geglu',
    gte: { ropeTheta: r.number('rope_theta', 10000), ropeScaling: gteRopeScaling(r), packQkv: r.bool('pack_qkv', true) },
    dropout: familyDropout('gte', {
      embeddings: hiddenRate,
      attentionProbs: probsRate,
      attentionOutput: hiddenRate,
      mlpActivation: hiddenRate,
      mlpOutput: hiddenRate,
    }),
  };
}

/**
 * ALBERT (transformers' modeling_albert.py): BERT's embeddings at width embedding_size, projected to the hidden size
 * (embedding_hidden_mapping_in); num_hidden_groups groups of inner_group_num post-norm layers, application i using
 * group floor(i · groups / layers) and running all its inner layers; the head projects back to embedding_size
 * (dense, activation, LayerNorm) before the decoder, tied to the E-wide word embeddings, with its own bias. Dropout:
 * hidden_dropout_prob after the embeddings and on the attention output, attention_probs_dropout_prob; none in the MLP.
 */
function parseAlbert(r: Reader): Parsed {
  const positionType = r.string('position_embedding_type', 'absolute');
  if (positionType !== 'absolute')
    r.fail(`position_embedding_type "${clip(positionType, 40)}" is not supported (only "absolute")`);
  const activation = r.string('hidden_act', 'gelu_new');
  if (activation !== 'gelu_new' && !EXACT_GELU.has(activation)) {
    r.fail(`hidden_act "${clip(activation, 40)}" is not supported: only "gelu" (exact) and "gelu_new" (tanh approximation)`);
  }
  const hidden = r.int('hidden_size', 4096, 1, CONFIG_LIMITS.hidden);
  const heads = r.int('num_attention_heads', 64, 1, CONFIG_LIMITS.heads);
  const hiddenLayers = r.int('num_hidden_layers', 12, 1, CONFIG_LIMITS.layers);
  const groups = r.int('num_hidden_groups', 1, 1, hiddenLayers);
  const inner = r.int('inner_group_num', 1, 1, CONFIG_LIMITS.layers);
  if (hiddenLayers * inner > CONFIG_LIMITS.layers)
    r.fail(`num_hidden_layers x inner_group_num = ${hiddenLayers * inner} layer applications, more than ${CONFIG_LIMITS.layers}`);
  const layerWeights: number[] = [];
  for (let i = 0; i < hiddenLayers; i++) {
    const group = Math.floor((i * groups) / hiddenLayers);
    for (let j = 0; j < inner; j++) layerWeights.push(group * inner + j);
  }
  const hiddenRate = dropoutRate(r, 'hidden_dropout_prob', 0);
  return {
    vocabSize: r.int('vocab_size', 30000, 1, CONFIG_LIMITS.vocabSize),
    hidden,
    embeddingSize: r.int('embedding_size', 128, 1, CONFIG_LIMITS.hidden),
    layers: layerWeights.length,
    layerWeights,
    heads,
    headDim: Math.floor(hidden / heads),
    intermediate: r.int('intermediate_size', 16384, 1, CONFIG_LIMITS.intermediate),
    maxPositions: r.int('max_position_embeddings', 512, 1, CONFIG_LIMITS.maxPositions),
    typeVocabSize: r.int('type_vocab_size', 2, 0, CONFIG_LIMITS.typeVocabSize),
    padTokenId: r.int('pad_token_id', 0),
    normEps: r.number('layer_norm_eps', 1e-12),
    ...BERT_STYLE,
    tieWordEmbeddings: r.bool('tie_word_embeddings', true),
    positions: 'absolute',
    activation: activation === 'gelu_new' ? 'gelu_new' : 'gelu',
    albert: { innerGroupNum: inner },
    dropout: familyDropout('albert', {
      embeddings: hiddenRate,
      attentionProbs: dropoutRate(r, 'attention_probs_dropout_prob', 0),
      attentionOutput: hiddenRate,
    }),
  };
}

/** GTE's rope_scaling: null, or {"type": "ntk", "factor": f, "mixed_b"?: b}, the one kind its code builds. */
function gteRopeScaling(r: Reader): RopeScaling | null {
  const raw = r.raw('rope_scaling');
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'object' || Array.isArray(raw)) r.fail(`rope_scaling must be an object, got ${shortJson(raw)}`);
  const { type, factor, mixed_b: mixedB } = raw as Json;
  if (type !== 'ntk') r.fail(`rope_scaling type "${clip(String(type), 40)}" is not supported (GTE builds only "ntk")`);
  if (typeof factor !== 'number' || !(factor > 0) || !Number.isFinite(factor))
    r.fail(`rope_scaling.factor must be a positive number, got ${shortJson(factor)}`);
  if (mixedB !== undefined && mixedB !== null && (typeof mixedB !== 'number' || !Number.isFinite(mixedB))) {
    r.fail(`rope_scaling.mixed_b must be a number, got ${shortJson(mixedB)}`);
  }
  return { factor, mixedB: typeof mixedB === 'number' ? mixedB : null };
}

/** Newer configs list `layer_types`; transformers picks the window by layer index and the rope by layer type. */
function checkLayerTypes(r: Reader, kinds: LayerKind[]): void {
  const types = r.raw('layer_types');
  if (types === undefined || types === null) return;
  if (!Array.isArray(types) || types.length !== kinds.length) {
    r.fail(`layer_types must list one entry per layer (${kinds.length})`);
  }
  (types as unknown[]).forEach((type, i) => {
    const expected = kinds[i] === 'global' ? 'full_attention' : 'sliding_attention';
    if (type !== expected) {
      r.fail(`layer_types[${i}] is "${clip(String(type), 40)}" but global_attn_every_n_layers makes layer ${i} ${expected}`);
    }
  });
}

function ropeThetas(r: Reader): { globalTheta: number; localTheta: number } {
  const params = r.raw('rope_parameters');
  const fromParams = (key: string): number | undefined => {
    if (typeof params !== 'object' || params === null) return undefined;
    const entry = (params as Json)[key];
    if (typeof entry !== 'object' || entry === null) return undefined;
    const { rope_type: type, rope_theta: theta } = entry as Json;
    if (type !== undefined && type !== 'default')
      r.fail(`rope_parameters.${key}.rope_type "${clip(String(type), 40)}" is not supported`);
    return typeof theta === 'number' ? theta : undefined;
  };
  if (r.raw('rope_scaling') != null) r.fail('rope_scaling is not supported');
  return {
    globalTheta: fromParams('full_attention') ?? r.number('global_rope_theta', 160000),
    localTheta: fromParams('sliding_attention') ?? r.number('local_rope_theta', 10000),
  };
}

function requireExactGelu(r: Reader, key: string, value: string): void {
  if (!EXACT_GELU.has(value)) {
    r.fail(`${key} "${clip(value, 40)}" is not supported: only the exact erf GELU ("gelu") is implemented`);
  }
}

function validateShapes(c: ModelConfig, source: string): void {
  const positive: [string, number][] = [
    ['vocab size', c.vocabSize],
    ['hidden size', c.hidden],
    ['embedding size', c.embeddingSize],
    ['layer count', c.layers],
    ['head count', c.heads],
    ['intermediate size', c.intermediate],
    ['max positions', c.maxPositions],
  ];
  for (const [what, value] of positive) {
    if (!(value > 0)) throw new ConfigError(`${source}: ${what} must be positive, got ${value}`);
  }
  if (c.hidden % c.heads !== 0) {
    throw new ConfigError(`${source}: hidden size ${c.hidden} is not a multiple of the head count ${c.heads}`);
  }
  if (c.positions === 'rotary' && c.headDim % 2 !== 0) {
    throw new ConfigError(`${source}: rotary embeddings need an even head size, got ${c.headDim}`);
  }
  if (c.gte && !(c.gte.ropeTheta > 0)) throw new ConfigError(`${source}: rope_theta must be positive, got ${c.gte.ropeTheta}`);
  if (c.padTokenId < 0 || c.padTokenId >= c.vocabSize) {
    throw new ConfigError(`${source}: pad_token_id ${c.padTokenId} is outside the vocabulary (size ${c.vocabSize})`);
  }
  if (!(c.normEps > 0)) throw new ConfigError(`${source}: layer norm epsilon must be positive, got ${c.normEps}`);
}

/** A JSON value for an error message, never long: arrays and objects are summarised, strings clipped. */
function shortJson(v: unknown): string {
  if (Array.isArray(v)) return `a list of ${v.length} items`;
  if (typeof v === 'object' && v !== null) return 'an object';
  return clip(JSON.stringify(v) ?? String(v), 40);
}

/** Typed access to config fields with transformers' defaults for absent keys. */
class Reader {
  constructor(
    private readonly json: Json,
    private readonly source: string,
  ) {}

  raw(key: string): unknown {
    return this.json[key];
  }

  fail(message: string): never {
    throw new ConfigError(`${this.source}: ${message}`);
  }

  number(key: string, fallback: number): number {
    const v = this.json[key];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'number' || !Number.isFinite(v)) this.fail(`"${key}" must be a number, got ${shortJson(v)}`);
    return v;
  }

  /** An integer in [min, max] (sizes: checked here, before anything is allocated from them). */
  int(key: string, fallback: number, min = -Infinity, max = Infinity): number {
    const v = this.number(key, fallback);
    if (!Number.isInteger(v)) this.fail(`"${key}" must be an integer, got ${v}`);
    if (v < min || v > max) {
      this.fail(`"${key}" is ${v}, outside ${min}..${max}, the range this loader accepts; is config.json corrupt?`);
    }
    return v;
  }

  bool(key: string, fallback: boolean): boolean {
    const v = this.json[key];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'boolean') this.fail(`"${key}" must be true or false, got ${shortJson(v)}`);
    return v;
  }

  string(key: string, fallback: string): string {
    const v = this.json[key];
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'string') this.fail(`"${key}" must be a string, got ${shortJson(v)}`);
    return v;
  }
}
