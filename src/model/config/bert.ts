// config.json of BERT and RoBERTa (learned absolute positions, post-LayerNorm, exact GELU) into a ModelConfig's fields.
import { familyDropout } from '../../contract/model/model-config.ts';
import { clip } from '../../io/format-error.ts';
import { Reader, Parsed, requireExactGelu, CONFIG_LIMITS, BERT_STYLE, dropoutRate } from './config-reader.ts';

export function parseBertLike(r: Reader, architecture: 'bert' | 'roberta'): Parsed {
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
