// config.json of ALBERT (factorised embeddings, one layer's weights shared by every layer) into a ModelConfig's fields.
import { familyDropout } from '../../contract/model/model-config.ts';
import { clip } from '../../io/format-error.ts';
import { Reader, Parsed, EXACT_GELU, CONFIG_LIMITS, dropoutRate, BERT_STYLE } from './config-reader.ts';

/**
 * ALBERT (transformers' modeling_albert.py): BERT's embeddings at width embedding_size, projected to the hidden size
 * (embedding_hidden_mapping_in); num_hidden_groups groups of inner_group_num post-norm layers, application i using
 * group floor(i · groups / layers) and running all its inner layers; the head projects back to embedding_size
 * (dense, activation, LayerNorm) before the decoder, tied to the E-wide word embeddings, with its own bias. Dropout:
 * hidden_dropout_prob after the embeddings and on the attention output, attention_probs_dropout_prob; none in the MLP.
 */
export function parseAlbert(r: Reader): Parsed {
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
