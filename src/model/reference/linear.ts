// Float64 linear layer y = x W^T + b with PyTorch's [out, in] weight layout, forward and accumulating backward.

/** out (N, OC) = inp (N, C) . weight (OC, C)^T + bias (OC) (bias may be null). */
export function linearForward(
  out: Float64Array,
  inp: Float64Array,
  weight: Float64Array,
  bias: Float64Array | null,
  N: number,
  C: number,
  OC: number,
): void {
  for (let n = 0; n < N; n++) {
    const x = n * C;
    for (let o = 0; o < OC; o++) {
      const w = o * C;
      let sum = bias ? bias[o] : 0;
      for (let c = 0; c < C; c++) sum += inp[x + c] * weight[w + c];
      out[n * OC + o] = sum;
    }
  }
}

/**
 * Accumulates dinp (N, C) += dout . W, dweight (OC, C) += dout^T . inp, dbias (OC) += sum_n dout.
 * Any gradient buffer may be null to skip it.
 */
export function linearBackward(
  dinp: Float64Array | null,
  dweight: Float64Array | null,
  dbias: Float64Array | null,
  dout: Float64Array,
  inp: Float64Array,
  weight: Float64Array,
  N: number,
  C: number,
  OC: number,
): void {
  for (let n = 0; n < N; n++) {
    const x = n * C;
    for (let o = 0; o < OC; o++) {
      const g = dout[n * OC + o];
      if (g === 0) continue;
      const w = o * C;
      if (dinp) for (let c = 0; c < C; c++) dinp[x + c] += g * weight[w + c];
      if (dweight) for (let c = 0; c < C; c++) dweight[w + c] += g * inp[x + c];
      if (dbias) dbias[o] += g;
    }
  }
}
