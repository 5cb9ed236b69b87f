// Float64 reference of the layernorm family (src/kernels/layernorm.ts): LayerNorm over the last dimension, with or
// without bias (ModernBERT's norm_bias = false), and its backward.

/**
 * out (N, C) = (inp - mean) * rstd * weight + bias, with the biased variance and rstd = 1 / sqrt(var + eps).
 * Writes mean (N) and rstd (N) for the backward pass.
 */
export function layerNormForward(
  out: Float64Array,
  mean: Float64Array,
  rstd: Float64Array,
  inp: Float64Array,
  weight: Float64Array,
  bias: Float64Array | null,
  N: number,
  C: number,
  eps: number,
): void {
  for (let n = 0; n < N; n++) {
    const x = n * C;
    let m = 0;
    for (let c = 0; c < C; c++) m += inp[x + c];
    m /= C;
    let v = 0;
    for (let c = 0; c < C; c++) v += (inp[x + c] - m) ** 2;
    v /= C;
    const s = 1 / Math.sqrt(v + eps);
    for (let c = 0; c < C; c++) out[x + c] = (inp[x + c] - m) * s * weight[c] + (bias ? bias[c] : 0);
    mean[n] = m;
    rstd[n] = s;
  }
}

/**
 * Accumulates dinp (N, C), dweight (C) and dbias (C) (dbias may be null) from dout (N, C):
 * with xhat = (x - mean) rstd and g = dout * weight, dx = rstd (g - mean(g) - xhat mean(g xhat)).
 */
export function layerNormBackward(
  dinp: Float64Array,
  dweight: Float64Array,
  dbias: Float64Array | null,
  dout: Float64Array,
  inp: Float64Array,
  weight: Float64Array,
  mean: Float64Array,
  rstd: Float64Array,
  N: number,
  C: number,
): void {
  for (let n = 0; n < N; n++) {
    const x = n * C;
    const m = mean[n];
    const s = rstd[n];
    let gMean = 0;
    let gxMean = 0;
    for (let c = 0; c < C; c++) {
      const xhat = (inp[x + c] - m) * s;
      const g = dout[x + c] * weight[c];
      gMean += g;
      gxMean += g * xhat;
      dweight[c] += dout[x + c] * xhat;
      if (dbias) dbias[c] += dout[x + c];
    }
    gMean /= C;
    gxMean /= C;
    for (let c = 0; c < C; c++) {
      const xhat = (inp[x + c] - m) * s;
      dinp[x + c] += s * (dout[x + c] * weight[c] - gMean - xhat * gxMean);
    }
  }
}
