// Float64 reference of the fused SPLADE head (src/kernels/splade-head.ts): same semantics, plain loops.
import { NO_TOKEN, type SpladeHeadDims } from '../splade-head.ts';

export interface SpladeHeadInputs {
  hidden: ArrayLike<number>; // (B, T, d)
  weight: ArrayLike<number>; // (V, d)
  bias: ArrayLike<number>; // (V)
  mask: ArrayLike<number>; // (B, T): non-zero = real token
}

export interface SpladeHeadOutputs {
  pooled: Float64Array; // (B, V)
  argmax: Uint32Array; // (B, V): lowest token index of the max logit, NO_TOKEN where pooled = 0
}

export interface SpladeHeadGradients {
  dhidden: Float64Array; // (B, T, d)
  dweight: Float64Array; // (V, d)
  dbias: Float64Array; // (V)
}

/** logit[b,t,v] = hidden[b,t]·weight[v] + bias[v]. */
export function spladeLogit(inputs: SpladeHeadInputs, dims: SpladeHeadDims, b: number, t: number, v: number): number {
  const { T, d } = dims;
  let s = inputs.bias[v];
  const h = (b * T + t) * d;
  for (let k = 0; k < d; k++) s += inputs.hidden[h + k] * inputs.weight[v * d + k];
  return s;
}

/**
 * pooled[b,v] = max over t with mask[b,t] != 0 of log(1 + max(0, logit[b,t,v])), argmax[b,v] the lowest such t
 * with the largest positive logit; pooled = 0 and argmax = NO_TOKEN when no unmasked logit is positive.
 */
export function spladeHeadForward(inputs: SpladeHeadInputs, dims: SpladeHeadDims): SpladeHeadOutputs {
  const { B, T, V } = dims;
  const pooled = new Float64Array(B * V);
  const argmax = new Uint32Array(B * V).fill(NO_TOKEN);
  for (let b = 0; b < B; b++) {
    for (let v = 0; v < V; v++) {
      let best = 0;
      let bestT = NO_TOKEN;
      for (let t = 0; t < T; t++) {
        if (inputs.mask[b * T + t] === 0) continue;
        const logit = spladeLogit(inputs, dims, b, t, v);
        if (logit > best) {
          best = logit;
          bestT = t;
        }
      }
      pooled[b * V + v] = Math.log1p(best);
      argmax[b * V + v] = bestT;
    }
  }
  return { pooled, argmax };
}

/**
 * Gradients of <pooled, dpooled>: dlogit[b,v] = dpooled·exp(-pooled) (= dpooled / (1 + logit)) at the argmax token,
 * 0 where pooled = 0; dhidden[b, argmax] += dlogit·weight[v], dweight[v] += dlogit·hidden[b, argmax], dbias[v] += dlogit.
 * Returns fresh arrays (the GPU kernel adds the same values into its gradient buffers).
 */
export function spladeHeadBackward(
  inputs: SpladeHeadInputs,
  outputs: SpladeHeadOutputs,
  dpooled: ArrayLike<number>,
  dims: SpladeHeadDims,
): SpladeHeadGradients {
  const { B, T, d, V } = dims;
  const dhidden = new Float64Array(B * T * d);
  const dweight = new Float64Array(V * d);
  const dbias = new Float64Array(V);
  for (let b = 0; b < B; b++) {
    for (let v = 0; v < V; v++) {
      const t = outputs.argmax[b * V + v];
      const p = outputs.pooled[b * V + v];
      if (t === NO_TOKEN || !(p > 0)) continue;
      const g = dpooled[b * V + v] * Math.exp(-p);
      const h = (b * T + t) * d;
      for (let k = 0; k < d; k++) {
        dhidden[h + k] += g * inputs.weight[v * d + k];
        dweight[v * d + k] += g * inputs.hidden[h + k];
      }
      dbias[v] += g;
    }
  }
  return { dhidden, dweight, dbias };
}
