// Float64 reference of one AdamW step (decoupled weight decay, bias-corrected moments), in place.

import type { AdamWHyper } from '../host/adamw-hyper.ts';

export type { AdamWHyper } from '../host/adamw-hyper.ts';

/** Step t (1-based) updates param, m and v in place. */
export function adamwStep(
  param: Float64Array,
  dparam: Float64Array,
  m: Float64Array,
  v: Float64Array,
  t: number,
  hyper: AdamWHyper,
  gradScale = 1,
): void {
  const c1 = 1 - hyper.beta1 ** t;
  const c2 = 1 - hyper.beta2 ** t;
  for (let i = 0; i < param.length; i++) {
    const g = dparam[i] * gradScale;
    m[i] = hyper.beta1 * m[i] + (1 - hyper.beta1) * g;
    v[i] = hyper.beta2 * v[i] + (1 - hyper.beta2) * g * g;
    const update = m[i] / c1 / (Math.sqrt(v[i] / c2) + hyper.eps);
    param[i] -= hyper.lr * (update + hyper.weightDecay * param[i]);
  }
}
