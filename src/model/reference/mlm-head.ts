// Float64 MLM head of all four families: transform (dense + exact GELU + LayerNorm), then the decoder to logits.
// BERT: cls.predictions; RoBERTa: lm_head (GELU hard-coded); DistilBERT: vocab_transform/vocab_layer_norm/vocab_projector;
// ModernBERT: head.dense (classifier_bias) + head.norm, then decoder. The decoder matrix is the word embeddings when tied.
import type { ModelConfig } from '../config.ts';
import type { ModelParams } from '../layout.ts';
import { P, decoderWeightName } from '../layout.ts';
import { geluBackward, geluForward } from '../../kernels/reference/activations.ts';
import type { NormCache } from './blocks.ts';
import { affineOf, normBackward, normForward } from './blocks.ts';
import { linearBackward, linearForward } from './linear.ts';

export interface HeadCache {
  inp: Float64Array; // (N, d) encoder output
  pre: Float64Array; // (N, d) dense output
  act: Float64Array; // (N, d) gelu(pre)
  norm: NormCache; // norm.out = headHidden (N, d)
}

/** headHidden (N, d) = LN(gelu(dense(inp))). */
export function headTransformForward(config: ModelConfig, params: ModelParams, inp: Float64Array, N: number): HeadCache {
  const d = config.hidden;
  const dense = affineOf(params, P.headDense);
  const pre = new Float64Array(N * d);
  linearForward(pre, inp, dense.weight, dense.bias, N, d, d);
  const act = new Float64Array(N * d);
  geluForward(act, pre);
  const norm = normForward(act, affineOf(params, P.headNorm), N, d, config.normEps);
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
  const d = config.hidden;
  const dact = new Float64Array(N * d);
  normBackward(dact, affineOf(dparams, P.headNorm), dheadHidden, cache.norm, affineOf(params, P.headNorm), N, d);
  const dpre = new Float64Array(N * d);
  geluBackward(dpre, dact, cache.pre);
  const dinp = new Float64Array(N * d);
  const dense = affineOf(params, P.headDense);
  const ddense = affineOf(dparams, P.headDense);
  linearBackward(dinp, ddense.weight, ddense.bias, dpre, cache.inp, dense.weight, N, d, d);
  return dinp;
}

/** logits (N, V) = headHidden . W_dec^T + b_dec (W_dec = word embeddings when tied). */
export function decoderForward(config: ModelConfig, params: ModelParams, headHidden: Float64Array, N: number): Float64Array {
  const logits = new Float64Array(N * config.vocabSize);
  const bias = config.decoderBias ? params[P.decoderBias] : null;
  linearForward(logits, headHidden, params[decoderWeightName(config)], bias, N, config.hidden, config.vocabSize);
  return logits;
}

/** Accumulates decoder gradients (into the word embeddings when tied) and returns d(headHidden) (N, d). */
export function decoderBackward(
  config: ModelConfig,
  params: ModelParams,
  dparams: ModelParams,
  dlogits: Float64Array,
  headHidden: Float64Array,
  N: number,
): Float64Array {
  const dheadHidden = new Float64Array(N * config.hidden);
  const name = decoderWeightName(config);
  const dbias = config.decoderBias ? dparams[P.decoderBias] : null;
  linearBackward(dheadHidden, dparams[name], dbias, dlogits, headHidden, params[name], N, config.hidden, config.vocabSize);
  return dheadHidden;
}
