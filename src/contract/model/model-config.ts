// A backbone's configuration as splade-lab reads it (one type for every family) and its dropout sites; plain data.
export type Architecture = 'bert' | 'roberta' | 'distilbert' | 'modernbert' | 'gte' | 'albert';

/** Attention pattern of one layer: global (all keys) or local (sliding window). */
export type LayerKind = 'global' | 'local';

export interface ModernBertOptions {
  /** Rotary base of global-attention layers (`global_rope_theta` / rope_parameters.full_attention). */
  globalRopeTheta: number;
  /** Rotary base of local-attention layers (`local_rope_theta` / rope_parameters.sliding_attention). */
  localRopeTheta: number;
  /** `local_attention`: the total window; a query sees keys with |i - j| <= floor(localAttention / 2). */
  localAttention: number;
  /** Layer i is global when i % globalAttnEveryNLayers == 0. */
  globalAttnEveryNLayers: number;
  layerKinds: LayerKind[];
}

/** GTE (Alibaba-NLP's NewModel, code on the Hub): one rotary base for every layer, with its optional NTK scaling. */
export interface GteOptions {
  ropeTheta: number;
  ropeScaling: RopeScaling | null;
  /** `pack_qkv`: one qkv_proj (true) or q_proj, k_proj, v_proj; the same fused matrix either way. */
  packQkv: boolean;
}

export interface ModelConfig {
  architecture: Architecture;
  /** The Hugging Face class this maps to (e.g. "BertForMaskedLM"), as saved in `architectures`. */
  hfArchitecture: string;
  /** `model_type` as transformers knows it ("xlm-roberta" stays distinct from "roberta"). */
  modelType: string;
  vocabSize: number;
  hidden: number;
  /**
   * Width of the embeddings, the MLM head transform's output and the decoder rows: ALBERT's embedding_size (E = 128,
   * projected to and from the hidden size), the hidden size for every other family.
   */
  embeddingSize: number;
  /** Layer applications (ALBERT: num_hidden_layers x inner_group_num). */
  layers: number;
  /**
   * The weights each layer application uses, as an index into the stored layers (layout.ts names them by it):
   * 0..layers-1 for every family but ALBERT, whose applications share num_hidden_groups x inner_group_num layers.
   */
  layerWeights: number[];
  heads: number;
  headDim: number;
  /** MLP width; ModernBERT's Wi and GTE's up_gate_proj project to 2 x intermediate (gated GELU). */
  intermediate: number;
  maxPositions: number;
  /** 0 when the model has no token-type embeddings (DistilBERT, ModernBERT). */
  typeVocabSize: number;
  padTokenId: number;
  /** The word embeddings' padding_idx (its rows get no lookup gradient): pad_token_id, or -1 where there is none. */
  embeddingPaddingIdx: number;
  /** Epsilon of every LayerNorm in the model (BERT/RoBERTa: layer_norm_eps; DistilBERT: 1e-12; ModernBERT: norm_eps). */
  normEps: number;
  /** LayerNorms carry a bias (false only for ModernBERT with norm_bias = false). */
  normBias: boolean;
  /** Bias on the fused q/k/v projection and the attention output projection. */
  attentionBias: boolean;
  /** Bias on the MLP input projection. */
  mlpInBias: boolean;
  /** Bias on the MLP output projection. */
  mlpOutBias: boolean;
  /** Bias on the MLM head transform's dense layer. */
  headDenseBias: boolean;
  /** Bias on the decoder (vocabulary projection). */
  decoderBias: boolean;
  tieWordEmbeddings: boolean;
  /** How token positions enter: learned absolute ids 0.., RoBERTa ids after padding_idx, or rotary. */
  positions: 'absolute' | 'roberta' | 'rotary';
  /** post-norm: LN(x + sublayer(x)) (BERT family, GTE); pre-norm: x + sublayer(LN(x)) (ModernBERT). */
  structure: 'post-norm' | 'pre-norm';
  mlp: 'gelu' | 'geglu';
  /** The MLP's and the head transform's activation: the exact erf GELU, or gelu_new (tanh approximation, ALBERT). */
  activation: 'gelu' | 'gelu_new';
  /** DistilBERT's fixed sinusoidal position table (`sinusoidal_pos_embds`): stored, but not trained by transformers. */
  sinusoidalPositions: boolean;
  modernBert: ModernBertOptions | null;
  gte: GteOptions | null;
  /** ALBERT: layers per group (stored layer g · innerGroupNum + j is group g's layer j). */
  albert: { innerGroupNum: number } | null;
  /** Dropout probabilities the config gives, applied while training (never when encoding). */
  dropout: DropoutRates;
}

/**
 * Where transformers applies dropout in these encoders, and with which probability from config.json. BERT and
 * RoBERTa: hidden_dropout_prob after the embeddings' LayerNorm and on both residual branches, attention_probs_dropout_prob
 * on the attention probabilities. DistilBERT: dropout after the embeddings and on the MLP branch (none on the
 * attention output), attention_dropout on the probabilities. ModernBERT: embedding_dropout, attention_dropout (the
 * probabilities and the attention output), mlp_dropout (on the GeGLU activation, before Wo). GTE: hidden_dropout_prob
 * after the embeddings, on both residual branches and on the gated activation; attention_probs_dropout_prob.
 */
export interface DropoutRates {
  embeddings: number;
  attentionProbs: number;
  attentionOutput: number;
  /** On the MLP's activation, before its output projection. */
  mlpActivation: number;
  /** On the MLP's output projection, before the residual add. */
  mlpOutput: number;
}

/** The dropout sites each family has (a site absent here never drops, whatever the rate). */
export const DROPOUT_SITES: Record<Architecture, (keyof DropoutRates)[]> = {
  bert: ['embeddings', 'attentionProbs', 'attentionOutput', 'mlpOutput'],
  roberta: ['embeddings', 'attentionProbs', 'attentionOutput', 'mlpOutput'],
  distilbert: ['embeddings', 'attentionProbs', 'mlpOutput'],
  modernbert: ['embeddings', 'attentionProbs', 'attentionOutput', 'mlpActivation'],
  albert: ['embeddings', 'attentionProbs', 'attentionOutput'],
  gte: ['embeddings', 'attentionProbs', 'attentionOutput', 'mlpActivation', 'mlpOutput'],
};

/** No dropout anywhere (encoding). */
export const NO_DROPOUT: DropoutRates = { embeddings: 0, attentionProbs: 0, attentionOutput: 0, mlpActivation: 0, mlpOutput: 0 };

/**
 * Every site the family has set to `rate` (a run's --dropout override; 0 turns dropout off), as transformers would
 * give with every dropout probability of config.json set to `rate`.
 */
export function uniformDropout(rate: number, architecture: Architecture): DropoutRates {
  const rates = { ...NO_DROPOUT };
  for (const site of DROPOUT_SITES[architecture]) rates[site] = rate;
  return rates;
}

/** A family's rates from config.json: the sites it has, each at its probability. */
export function familyDropout(architecture: Architecture, rates: Partial<DropoutRates>): DropoutRates {
  const out = { ...NO_DROPOUT };
  for (const site of DROPOUT_SITES[architecture]) out[site] = rates[site] ?? 0;
  return out;
}

/**
 * GTE's fixed ("ntk") rotary scaling: with factor f > 1 the base becomes theta·f and every frequency is divided by
 * f^(2/hd); with mixed_b set, the base stays and frequency j (1-based) is divided by exp(ln f · (j / (hd/2))^b).
 */
export interface RopeScaling {
  factor: number;
  mixedB: number | null;
}
