// Float64 reference of the activations family (src/kernels/activations.ts): exact (erf) GELU, ModernBERT's GeGLU,
// residual and bias adds, forward and backward, and the classification heads' tanh, first-token ([CLS]) row gather and
// masked mean over tokens (forward only). Backward passes accumulate into the gradient buffers they are given.

const TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);
const INV_SQRT_PI = 1 / Math.sqrt(Math.PI);
const INV_SQRT_2 = Math.SQRT1_2;
const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);
/** Below this |x| the series is used, above it the continued fraction. */
const SERIES_LIMIT = 3;

/**
 * erf(x) for |x| <= 3 from the all-positive series erf(x) = 2/sqrt(pi) e^{-x^2} sum_n (2x^2)^n x / (1*3*...*(2n+1)),
 * which has no cancellation; beyond, 1 - erfc(x).
 */
export function erf(x: number): number {
  const ax = Math.abs(x);
  if (ax > SERIES_LIMIT) return Math.sign(x) * (1 - erfcContinuedFraction(ax));
  const x2 = x * x;
  let term = x;
  let sum = x;
  for (let n = 1; n < 200; n++) {
    term *= (2 * x2) / (2 * n + 1);
    sum += term;
    if (Math.abs(term) <= 1e-17 * Math.abs(sum)) break;
  }
  return TWO_OVER_SQRT_PI * Math.exp(-x2) * sum;
}

/** erfc(x) = 1 - erf(x), without cancellation for large positive x. */
export function erfc(x: number): number {
  if (x > SERIES_LIMIT) return erfcContinuedFraction(x);
  if (x < -SERIES_LIMIT) return 2 - erfcContinuedFraction(-x);
  return 1 - erf(x);
}

/**
 * erfc for x > 3 from the continued fraction e^{-x^2}/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))),
 * evaluated from a fixed depth backwards (converged to double precision for x > 3 well before 120 terms).
 */
function erfcContinuedFraction(x: number): number {
  let tail = x;
  for (let k = 120; k >= 1; k--) tail = x + k / 2 / tail;
  return (Math.exp(-x * x) * INV_SQRT_PI) / tail;
}

/** Standard normal CDF Phi(x) = (1 + erf(x / sqrt 2)) / 2, accurate in both tails. */
function normalCdf(x: number): number {
  return 0.5 * erfc(-x * INV_SQRT_2);
}

/** Exact GELU: x * Phi(x). */
export function gelu(x: number): number {
  return x * normalCdf(x);
}

/** d gelu / dx = Phi(x) + x * phi(x). */
export function geluDerivative(x: number): number {
  return normalCdf(x) + x * INV_SQRT_2PI * Math.exp(-0.5 * x * x);
}

const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);
const TANH_CUBIC = 0.044715;

/** gelu_new (transformers' NewGELUActivation, ALBERT's hidden_act): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
export function geluTanh(x: number): number {
  return 0.5 * x * (1 + Math.tanh(SQRT_2_OVER_PI * (x + TANH_CUBIC * x ** 3)));
}

/** d gelu_new / dx = 0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 · 0.044715 x^2), t the tanh above. */
export function geluTanhDerivative(x: number): number {
  const t = Math.tanh(SQRT_2_OVER_PI * (x + TANH_CUBIC * x ** 3));
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * SQRT_2_OVER_PI * (1 + 3 * TANH_CUBIC * x * x);
}

/** out[i] = gelu(inp[i]) (`approximate`: gelu_new); shapes (N). */
export function geluForward(out: Float64Array, inp: Float64Array, approximate = false): void {
  const f = approximate ? geluTanh : gelu;
  for (let i = 0; i < inp.length; i++) out[i] = f(inp[i]);
}

/** dinp[i] += dout[i] * gelu'(inp[i]) (`approximate`: of gelu_new). */
export function geluBackward(dinp: Float64Array, dout: Float64Array, inp: Float64Array, approximate = false): void {
  const f = approximate ? geluTanhDerivative : geluDerivative;
  for (let i = 0; i < inp.length; i++) dinp[i] += dout[i] * f(inp[i]);
}

/**
 * ModernBERT's GLU: Wi's output (N, 2I) is chunked into (input, gate) along the last dim, and the result is
 * gelu(input) * gate (transformers ModernBertMLP: `input, gate = Wi(x).chunk(2, dim=-1); act(input) * gate`).
 * out (N, I), inp (N, 2I).
 */
export function gegluForward(out: Float64Array, inp: Float64Array, N: number, I: number): void {
  for (let n = 0; n < N; n++) {
    const row = n * 2 * I;
    for (let j = 0; j < I; j++) out[n * I + j] = gelu(inp[row + j]) * inp[row + I + j];
  }
}

/** dinp (N, 2I) += d(gelu(input) * gate) given dout (N, I). */
export function gegluBackward(dinp: Float64Array, dout: Float64Array, inp: Float64Array, N: number, I: number): void {
  for (let n = 0; n < N; n++) {
    const row = n * 2 * I;
    for (let j = 0; j < I; j++) {
      const a = inp[row + j];
      const gate = inp[row + I + j];
      const g = dout[n * I + j];
      dinp[row + j] += g * gate * geluDerivative(a);
      dinp[row + I + j] += g * gelu(a);
    }
  }
}

/** out (n) = a + b. */
export function addForward(out: Float64Array, a: ArrayLike<number>, b: ArrayLike<number>): void {
  for (let i = 0; i < out.length; i++) out[i] = a[i] + b[i];
}

/** x (N, C) += bias (C) on every row, in place. */
export function biasAddForward(x: Float64Array, bias: ArrayLike<number>, N: number, C: number): void {
  for (let n = 0; n < N; n++) for (let c = 0; c < C; c++) x[n * C + c] += bias[c];
}

/** dbias (C) += Σ_n dout (N, C). */
export function biasAddBackward(dbias: Float64Array, dout: ArrayLike<number>, N: number, C: number): void {
  for (let n = 0; n < N; n++) for (let c = 0; c < C; c++) dbias[c] += dout[n * C + c];
}

/** out[i] = tanh(inp[i]) (BERT's pooler activation); shapes (n). */
export function tanhForward(out: Float64Array, inp: ArrayLike<number>): void {
  for (let i = 0; i < out.length; i++) out[i] = Math.tanh(inp[i]);
}

/** out (B, C) = inp (B, T, C)[:, 0, :]: each sequence's first-token ([CLS]) row. */
export function firstTokenGather(out: Float64Array, inp: ArrayLike<number>, B: number, T: number, C: number): void {
  for (let b = 0; b < B; b++) for (let c = 0; c < C; c++) out[b * C + c] = inp[b * T * C + c];
}

/** out (B, C) = Σ_t mask[b, t] · inp[b, t, :] / Σ_t mask[b, t]: each sequence's mean over its real tokens. */
export function maskedMean(
  out: Float64Array,
  inp: ArrayLike<number>,
  mask: ArrayLike<number>,
  B: number,
  T: number,
  C: number,
): void {
  for (let b = 0; b < B; b++) {
    let count = 0;
    for (let t = 0; t < T; t++) count += mask[b * T + t] ? 1 : 0;
    for (let c = 0; c < C; c++) {
      let sum = 0;
      for (let t = 0; t < T; t++) if (mask[b * T + t]) sum += inp[(b * T + t) * C + c];
      out[b * C + c] = sum / count;
    }
  }
}
