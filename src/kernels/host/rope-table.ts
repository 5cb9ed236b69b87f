// Rotary position embeddings' tables: the inverse frequencies (GTE's NTK scaling included) and the cos and sin of
// every position, computed on the host for the encoder, its ONNX export and the float64 reference alike.
import type { RopeScaling } from '../../contract/model/model-config.ts';

/** cos and sin of position * inv_freq, each (T, hd/2). */
export interface RopeTable {
  T: number;
  half: number;
  cos: Float64Array;
  sin: Float64Array;
}

/** inv_freq[j] = theta^(-2j / hd) for j < hd/2, after GTE's NTK scaling when one is given. */
export function ropeInverseFrequencies(headDim: number, theta: number, scaling: RopeScaling | null = null): Float64Array {
  const half = headDim / 2;
  const scaled = scaling !== null && scaling.factor > 1;
  const base = scaled && scaling.mixedB === null ? theta * scaling.factor : theta;
  const out = new Float64Array(half);
  for (let j = 0; j < half; j++) {
    out[j] = Math.pow(base, (-2 * j) / headDim);
    if (!scaled) continue;
    if (scaling.mixedB === null) out[j] /= Math.pow(scaling.factor, 2 / headDim);
    else out[j] /= Math.exp((Math.log(scaling.factor) / Math.pow(half, scaling.mixedB)) * Math.pow(j + 1, scaling.mixedB));
  }
  return out;
}

/** The rotary table of positions 0..T-1: a base theta (plain frequencies) or the inverse frequencies themselves. */
export function ropeTable(T: number, headDim: number, rope: number | Float64Array): RopeTable {
  const half = headDim / 2;
  const frequencies = typeof rope === 'number' ? ropeInverseFrequencies(headDim, rope) : rope;
  if (frequencies.length !== half)
    throw new RangeError(`ropeTable: ${frequencies.length} frequencies for a head size of ${headDim}`);
  const cos = new Float64Array(T * half);
  const sin = new Float64Array(T * half);
  for (let t = 0; t < T; t++) {
    for (let j = 0; j < half; j++) {
      const angle = t * frequencies[j];
      cos[t * half + j] = Math.cos(angle);
      sin[t * half + j] = Math.sin(angle);
    }
  }
  return { T, half, cos, sin };
}
