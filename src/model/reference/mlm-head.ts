// Float64 MLM head of every family: transform (dense + GELU + LayerNorm), then the decoder to logits.
// BERT: cls.predictions; RoBERTa: lm_head (GELU hard-coded); DistilBERT: vocab_transform/vocab_layer_norm/vocab_projector;
// ModernBERT: head.dense (classifier_bias) + head.norm, then decoder; GTE: lm_head; ALBERT: predictions, projecting the
// hidden size d down to the embedding size E (gelu_new). The decoder matrix is the word embeddings when tied.
import type { ModelConfig } from '../../contract/model/model-config.ts';
import { type ModelParams, P, decoderWeightName } from '../layout.ts';
import { geluBackward, geluForward } from '../../kernels/reference/activations.ts';
import { type NormCache, affineOf, normBackward, normForward } from './blocks.ts';
import { linearBackward, linearForward } from './linear.ts';

export interface HeadCache {
  inp: Float64Array; // (N, d) encoder output
  pre: Float64Array; // (N, E) dense output
  act: Float64Array; // (N, E) gelu(pre)
  norm: NormCache; // norm.out = headHidden (N, E)
}

/** headHidden (N, E) = LN(gelu(dense(inp))), inp (N, d); E = d but for ALBERT. */
export function headTransformForward(config: ModelConfig, params: ModelParams, inp: Float64Array, N: number): HeadCache {
  const { hidden: d, embeddingSize: E } = config;
  const dense = affineOf(params, P.headDense);
  const pre = new Float64Array(N * E);
  linearForward(pre, inp, dense.weight, dense.bias, N, d, E);
  const act = new Float64Array(N * E);
  geluForward(act, pre, config.activation === 'gelu_new');
  const norm = normForward(act, affineOf(params, P.headNorm), N, E, config.normEps);
  return { inp, pre, act, norm };
}

/** Accumulates head-transform gradients into dparams and returns d(encoder output) (N, d). */
export function headTransformBackward(
  config: ModelConfig,
  params: ModelParams,
  dparams: ModelParams,
  dheadHidden: Float64Array,
  cache: HeadCache,
  N: number,
): Float64Array {
  const { hidden: d, embeddingSize: E } = config;
  const dact = new Float64Array(N * E);
  normBackward(dact, affineOf(dparams, P.headNorm), dheadHidden, cache.norm, affineOf(params, P.headNorm), N, E);
  const dpre = new Float64Array(N * E);
  geluBackward(dpre, dact, cache.pre, config.activation === 'gelu_new');
  const dinp = new Float64Array(N * d);
  const dense = affineOf(params, P.headDense);
  const ddense = affineOf(dparams, P.headDense);
  linearBackward(dinp, ddense.weight, ddense.bias, dpre, cache.inp, dense.weight, N, d, E);
  return dinp;
}

/** logits (N, V) = headHidden . W_dec^T + b_dec (W_dec = word embeddings when tied). */
export function decoderForward(config: ModelConfig, params: ModelParams, headHidden: Float64Array, N: number): Float64Array {
  const logits = new Float64Array(N * config.vocabSize);
  const bias = config.decoderBias ? params[P.decoderBias] : null;
  linearForward(logits, headHidden, params[decoderWeightName(config)], bias, N, config.embeddingSize, config.vocabSize);
  return logits;
}

/** Accumulates decoder gradients (into the word embeddings when tied) and returns d(headHidden) (N, E). */
export function decoderBackward(
  config: ModelConfig,
  params: ModelParams,
  dparams: ModelParams,
  dlogits: Float64Array,
  headHidden: Float64Array,
  N: number,
): Float64Array {
  const dheadHidden = new Float64Array(N * config.embeddingSize);
  const name = decoderWeightName(config);
  const dbias = config.decoderBias ? dparams[P.decoderBias] : null;
  linearBackward(dheadHidden, dparams[name], dbias, dlogits, headHidden, params[name], N, config.embeddingSize, config.vocabSize);
  return dheadHidden;
}
