// config.json of DistilBERT (its own key names: dim, n_layers, n_heads, hidden_dim) into a ModelConfig's fields.
import { familyDropout } from '../../contract/model/model-config.ts';
import { Reader, Parsed, requireExactGelu, CONFIG_LIMITS, BERT_STYLE, dropoutRate } from './config-reader.ts';

export function parseDistilBert(r: Reader): Parsed {
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
