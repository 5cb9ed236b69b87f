// Float64 reference of the dropout mask (shaders/dropout.wgsl) and the key that names one site of one micro-batch.

/** PCG's output permutation of one 32-bit state, in u32 arithmetic as the shader computes it. */
export function pcgHash(value: number): number {
  const state = (Math.imul(value >>> 0, 747796405) + 2891336453) >>> 0;
  const word = Math.imul(((state >>> ((state >>> 28) + 4)) ^ state) >>> 0, 277803737) >>> 0;
  return ((word >>> 22) ^ word) >>> 0;
}

/** Hashes below this are dropped: round(rate · 2^32), clamped to u32. */
export function dropThreshold(rate: number): number {
  return Math.min(0xffffffff, Math.round(rate * 2 ** 32));
}

/** The factor element i is multiplied by under `key`: 0 when dropped, 1 / (1 - rate) when kept. */
export function dropoutFactor(key: number, i: number, rate: number): number {
  if (rate === 0) return 1;
  return pcgHash((pcgHash(key) ^ i) >>> 0) >= dropThreshold(rate) ? 1 / (1 - rate) : 0;
}

/** y = dropout(x) under `key` (also the backward: dx = dropout(dy) with the same key). */
export function dropoutApply(x: ArrayLike<number>, key: number, rate: number): Float64Array {
  return Float64Array.from(x, (value, i) => value * dropoutFactor(key, i, rate));
}

/**
 * The key of one dropout site for one micro-batch: the run's seed, the step, the micro-batch, and the site (pass,
 * layer and place), hashed together so that neighbouring steps or sites share nothing.
 */
export function dropoutKey(seed: number, step: number, microBatch: number, site: number): number {
  let h = pcgHash(seed >>> 0);
  for (const part of [step, microBatch, site]) h = pcgHash((h ^ pcgHash(part >>> 0)) >>> 0);
  return h;
}
