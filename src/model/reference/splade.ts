// Float64 SPLADE composition for tests: logits -> log1p(relu) -> max over real tokens (pooled, argmax), and back.
// This is the unfused reference of the fused SPLADE head; it materialises the (B, T, V) logits, fine at test sizes.
import type { ModelConfig } from '../../contract/model/model-config.ts';
import type { ModelParams } from '../layout.ts';
import { type EncoderActivations, type EncoderInput, encoderForward, mlmBackward } from './encoder.ts';
import { decoderForward } from './mlm-head.ts';

export interface SpladePool {
  pooled: Float64Array; // (B, V) max_t log1p(relu(logit)) over real tokens (0 when no logit is positive)
  argmax: Int32Array; // (B, V) the token holding the max, -1 where pooled is 0 (first token wins ties)
}

/** SpladePooling: max over tokens of log1p(relu(logits)) * mask. logits (B, T, V), mask (B, T). */
export function spladePoolForward(logits: Float64Array, mask: ArrayLike<number>, B: number, T: number, V: number): SpladePool {
  const pooled = new Float64Array(B * V);
  const argmax = new Int32Array(B * V).fill(-1);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      if (!mask[b * T + t]) continue;
      for (let v = 0; v < V; v++) {
        const x = logits[(b * T + t) * V + v];
        if (!(x > 0)) continue;
        const value = Math.log1p(x);
        if (value > pooled[b * V + v]) {
          pooled[b * V + v] = value;
          argmax[b * V + v] = t;
        }
      }
    }
  }
  return { pooled, argmax };
}

/** dlogits (B, T, V) += dpooled / (1 + logit) at each (b, argmax, v); nothing where pooled is 0. */
export function spladePoolBackward(
  dlogits: Float64Array,
  dpooled: Float64Array,
  logits: Float64Array,
  pool: SpladePool,
  B: number,
  T: number,
  V: number,
): void {
  for (let b = 0; b < B; b++) {
    for (let v = 0; v < V; v++) {
      const t = pool.argmax[b * V + v];
      if (t < 0) continue;
      const i = (b * T + t) * V + v;
      dlogits[i] += dpooled[b * V + v] / (1 + logits[i]);
    }
  }
}

export interface SpladeResult extends SpladePool {
  acts: EncoderActivations;
  logits: Float64Array; // (B, T, V)
}

/** ids -> encoder -> MLM logits -> SPLADE pooled (B, V). */
export function spladeForward(config: ModelConfig, params: ModelParams, input: EncoderInput): SpladeResult {
  const acts = encoderForward(config, params, input);
  const logits = decoderForward(config, params, acts.headHidden, input.B * input.T);
  return { acts, logits, ...spladePoolForward(logits, input.mask, input.B, input.T, config.vocabSize) };
}

/** Accumulates into dparams the gradient of every parameter given dpooled (B, V). */
export function spladeBackward(
  config: ModelConfig,
  params: ModelParams,
  result: SpladeResult,
  dpooled: Float64Array,
  dparams: ModelParams,
): void {
  const { B, T } = result.acts.input;
  const dlogits = new Float64Array(result.logits.length);
  spladePoolBackward(dlogits, dpooled, result.logits, result, B, T, config.vocabSize);
  mlmBackward(config, params, result.acts, dlogits, dparams);
}
