// Generates small seeded checkpoints in Hugging Face form (config.json object + tensors under HF names) for every
// family: test fixtures, the bundled demo backbone. Output goes through the same mapping loaders use (weights.ts).
import type { TensorMap } from '../io/host-tensor.ts';
import type { Architecture } from '../contract/model/model-config.ts';
import { parseModelConfig } from './config.ts';
import { initParameters } from './init.ts';
import { toHuggingFaceTensors } from './weights.ts';

export interface TinyModelOptions {
  seed: number;
  vocabSize: number;
  hidden: number;
  layers: number;
  heads: number;
  intermediate: number;
  /** Mean L2 norm of the decoder matrix's rows (the word embeddings when tied), e.g. 2.5 like ModernBERT's head. */
  headNormScale?: number;
  /** Standard deviation of weights, biases and of the norms' deviation from 1 (default 0.02, transformers' init). */
  initStd?: number;
  tieWordEmbeddings?: boolean;
  /** Rows of the position table (BERT, DistilBERT) or usable positions (RoBERTa adds pad + 1); default 64. */
  maxPositions?: number;
  /** Default: the family's usual id (BERT 0, RoBERTa 1, ModernBERT 50283), clamped into the vocabulary. */
  padTokenId?: number;
  /** ModernBERT only: total local window (default 128) and global-layer period (default 3). */
  localAttention?: number;
  globalAttnEveryNLayers?: number;
  /** ModernBERT only: biases everywhere (default false, as the released models). */
  withBiases?: boolean;
  /** GTE: NTK rope scaling factor (default none); GTE and ALBERT: token types (default 1 and 2, their configs'). */
  ropeScalingFactor?: number;
  typeVocabSize?: number;
  /** ALBERT only: embedding size (default 8), layer groups (default 1) and layers per group (default 1). */
  embeddingSize?: number;
  hiddenGroups?: number;
  innerGroupNum?: number;
}

export interface TinyCheckpoint {
  /** A config.json object as transformers writes it. */
  config: Record<string, unknown>;
  /** Tensors keyed by Hugging Face names (tied decoder weight not written, as safetensors saves do). */
  tensors: TensorMap;
}

const DEFAULT_PAD: Record<Architecture, number> = { bert: 0, roberta: 1, distilbert: 0, modernbert: 50283, gte: 0, albert: 0 };

export function makeTinyCheckpoint(architecture: Architecture, options: TinyModelOptions): TinyCheckpoint {
  const config = tinyConfigJson(architecture, options);
  const model = parseModelConfig(config, { source: `tiny ${architecture}` });
  const params = initParameters(model, {
    seed: options.seed,
    std: options.initStd ?? 0.02,
    headNormScale: options.headNormScale,
  });
  return { config, tensors: toHuggingFaceTensors(model, params) };
}

function tinyConfigJson(architecture: Architecture, o: TinyModelOptions): Record<string, unknown> {
  const pad = o.padTokenId ?? Math.min(DEFAULT_PAD[architecture], o.vocabSize - 1);
  const maxPositions = o.maxPositions ?? 64;
  const tie = o.tieWordEmbeddings ?? true;
  const initializer_range = o.initStd ?? 0.02;
  // the size fields every family but DistilBERT names this way
  const sizes = {
    vocab_size: o.vocabSize,
    hidden_size: o.hidden,
    num_hidden_layers: o.layers,
    num_attention_heads: o.heads,
    intermediate_size: o.intermediate,
  };
  switch (architecture) {
    case 'bert':
    case 'roberta': {
      const roberta = architecture === 'roberta';
      return {
        architectures: [roberta ? 'RobertaForMaskedLM' : 'BertForMaskedLM'],
        model_type: architecture,
        ...sizes,
        hidden_act: 'gelu',
        hidden_dropout_prob: 0.1,
        attention_probs_dropout_prob: 0.1,
        max_position_embeddings: roberta ? maxPositions + pad + 1 : maxPositions,
        type_vocab_size: roberta ? 1 : 2,
        layer_norm_eps: roberta ? 1e-5 : 1e-12,
        initializer_range,
        pad_token_id: pad,
        ...(roberta ? { bos_token_id: 0, eos_token_id: 2 } : {}),
        position_embedding_type: 'absolute',
        tie_word_embeddings: tie,
      };
    }
    case 'distilbert':
      return {
        architectures: ['DistilBertForMaskedLM'],
        model_type: 'distilbert',
        vocab_size: o.vocabSize,
        dim: o.hidden,
        n_layers: o.layers,
        n_heads: o.heads,
        hidden_dim: o.intermediate,
        activation: 'gelu',
        dropout: 0.1,
        attention_dropout: 0.1,
        max_position_embeddings: maxPositions,
        sinusoidal_pos_embds: false,
        initializer_range,
        pad_token_id: pad,
        tie_word_embeddings: tie,
      };
    case 'modernbert': {
      const biases = o.withBiases ?? false;
      return {
        architectures: ['ModernBertForMaskedLM'],
        model_type: 'modernbert',
        ...sizes,
        hidden_activation: 'gelu',
        classifier_activation: 'gelu',
        max_position_embeddings: maxPositions,
        global_rope_theta: 160000.0,
        local_rope_theta: 10000.0,
        local_attention: o.localAttention ?? 128,
        global_attn_every_n_layers: o.globalAttnEveryNLayers ?? 3,
        norm_eps: 1e-5,
        norm_bias: biases,
        attention_bias: biases,
        mlp_bias: biases,
        classifier_bias: biases,
        decoder_bias: true,
        initializer_range,
        pad_token_id: pad,
        tie_word_embeddings: tie,
      };
    }
    case 'gte':
      return {
        architectures: ['NewForMaskedLM'],
        model_type: 'new',
        ...sizes,
        hidden_act: 'gelu',
        hidden_dropout_prob: 0.1,
        attention_probs_dropout_prob: 0.0,
        max_position_embeddings: maxPositions,
        type_vocab_size: o.typeVocabSize ?? 1,
        layer_norm_type: 'layer_norm',
        layer_norm_eps: 1e-12,
        position_embedding_type: 'rope',
        rope_theta: 500000,
        rope_scaling: o.ropeScalingFactor ? { type: 'ntk', factor: o.ropeScalingFactor } : null,
        pack_qkv: true,
        initializer_range,
        pad_token_id: pad,
        tie_word_embeddings: tie,
      };
    case 'albert':
      return {
        architectures: ['AlbertForMaskedLM'],
        model_type: 'albert',
        ...sizes,
        embedding_size: o.embeddingSize ?? 8,
        num_hidden_groups: o.hiddenGroups ?? 1,
        inner_group_num: o.innerGroupNum ?? 1,
        hidden_act: 'gelu_new',
        hidden_dropout_prob: 0.1,
        attention_probs_dropout_prob: 0.1,
        max_position_embeddings: maxPositions,
        type_vocab_size: o.typeVocabSize ?? 2,
        layer_norm_eps: 1e-12,
        initializer_range,
        pad_token_id: pad,
        bos_token_id: 2,
        eos_token_id: 3,
        position_embedding_type: 'absolute',
        tie_word_embeddings: tie,
      };
  }
}
