// Float64 reference of the dropout mask (shaders/dropout.wgsl) and the key that names one site of one micro-batch.

import { dropThreshold, pcgHash } from '../host/dropout-hash.ts';

export { dropThreshold, dropoutKey, pcgHash } from '../host/dropout-hash.ts';

/** The factor element i is multiplied by under `key`: 0 when dropped, 1 / (1 - rate) when kept. */
export function dropoutFactor(key: number, i: number, rate: number): number {
  if (rate === 0) return 1;
  return pcgHash((pcgHash(key) ^ i) >>> 0) >= dropThreshold(rate) ? 1 / (1 - rate) : 0;
}

/** y = dropout(x) under `key` (also the backward: dx = dropout(dy) with the same key). */
export function dropoutApply(x: ArrayLike<number>, key: number, rate: number): Float64Array {
  return Float64Array.from(x, (value, i) => value * dropoutFactor(key, i, rate));
}
