// Dropout's hashing, as the shader computes it in u32 arithmetic: PCG's permutation, the drop threshold of a rate, and
// the key that names one site of one micro-batch (the GPU encoder computes keys on the host with it).

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

/**
 * The key of one dropout site for one micro-batch: the run's seed, the step, the micro-batch, and the site (pass,
 * layer and place), hashed together so that neighbouring steps or sites share nothing.
 */
export function dropoutKey(seed: number, step: number, microBatch: number, site: number): number {
  let h = pcgHash(seed >>> 0);
  for (const part of [step, microBatch, site]) h = pcgHash((h ^ pcgHash(part >>> 0)) >>> 0);
  return h;
}
