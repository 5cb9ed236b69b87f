// config.json of ModernBERT and Ettin (rotary positions, alternating local and global attention, GeGLU, pre-norm)
// into a ModelConfig's fields.
import { LayerKind, familyDropout } from '../../contract/model/model-config.ts';
import { clip } from '../../io/format-error.ts';
import { Reader, Parsed, requireExactGelu, CONFIG_LIMITS, dropoutRate, Json } from './config-reader.ts';

export function parseModernBert(r: Reader): Parsed {
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

/** Newer configs list `layer_types`; transformers picks the window by layer index and the rope by layer type. */
export function checkLayerTypes(r: Reader, kinds: LayerKind[]): void {
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

export function ropeThetas(r: Reader): { globalTheta: number; localTheta: number } {
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
