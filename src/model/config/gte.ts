// config.json of Alibaba's GTE masked-LM encoders (rotary positions with optional NTK scaling, GLU MLP) into a
// ModelConfig's fields.
import { familyDropout, type RopeScaling } from '../../contract/model/model-config.ts';
import { clip } from '../../io/format-error.ts';
import { describeJsonValue } from '../../util/json-value.ts';
import { Reader, Parsed, requireExactGelu, CONFIG_LIMITS, dropoutRate, BERT_STYLE, Json } from './config-reader.ts';

/**
 * GTE (Alibaba-NLP/new-impl, model_type "new"): BERT's post-norm layer with a fused qkv_proj (or q/k/v_proj),
 * rotary positions (optionally NTK-scaled), a gated GELU MLP (up_gate_proj without bias, down_proj with one) and
 * BERT's MLM head. Defaults are NewConfig's; what its modelling code does not implement, or we do not, is refused.
 */
export function parseGte(r: Reader): Parsed {
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

/** GTE's rope_scaling: null, or {"type": "ntk", "factor": f, "mixed_b"?: b}, the one kind its code builds. */
export function gteRopeScaling(r: Reader): RopeScaling | null {
  const raw = r.raw('rope_scaling');
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'object' || Array.isArray(raw)) r.fail(`rope_scaling must be an object, got ${describeJsonValue(raw)}`);
  const { type, factor, mixed_b: mixedB } = raw as Json;
  if (type !== 'ntk') r.fail(`rope_scaling type "${clip(String(type), 40)}" is not supported (GTE builds only "ntk")`);
  if (typeof factor !== 'number' || !(factor > 0) || !Number.isFinite(factor))
    r.fail(`rope_scaling.factor must be a positive number, got ${describeJsonValue(factor)}`);
  if (mixedB !== undefined && mixedB !== null && (typeof mixedB !== 'number' || !Number.isFinite(mixedB))) {
    r.fail(`rope_scaling.mixed_b must be a number, got ${describeJsonValue(mixedB)}`);
  }
  return { factor, mixedB: typeof mixedB === 'number' ? mixedB : null };
}
