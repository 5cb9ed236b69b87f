// Element-wise layers: exact (erf) or tanh-approximated GELU, GeGLU, residual add, bias add; forward and backward;
// tanh, the first-token ([CLS]) row gather and the masked mean over tokens of a classification head (forward only).
//
// Element kernels run one invocation per output element, folded into y past the per-dimension workgroup limit.
// The bias gradient (column sums of dout) is a two-stage fixed-order reduction: per-chunk partial sums, then chunks in
// order, so it repeats bit for bit (no float atomics).

struct Params {
  n: u32,        // elements (element kernels) or rows (GeGLU, bias)
  cols: u32,     // GeGLU: I (the output width; the input is 2I wide); bias: C
  chunks: u32,   // bias backward: ceil(rows / ROWS_PER_CHUNK); first-token gather: T (tokens per sequence)
  _pad: u32,
}

// WORKGROUP (shaders/prelude.wgsl): invocations per workgroup.
/** Rows summed by one invocation of bias_backward_partials. */
override ROWS_PER_CHUNK: u32 = 32u;
/** Backward kernels add into dinp instead of overwriting it. */
override ACCUMULATE: bool = false;
/** GELU is transformers' gelu_new (ALBERT): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), not the erf one. */
override TANH_APPROXIMATION: bool = false;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> inp: array<f32>;              // the input (or a of add, or bias (C))
@group(0) @binding(2) var<storage, read> dout: array<f32>;             // gradient of the output (or b of add)
@group(0) @binding(3) var<storage, read_write> out: array<f32>;        // the written tensor (out, dinp, or dbias (C))
@group(0) @binding(4) var<storage, read_write> partials: array<f32>;   // (chunks, C) bias-gradient partial sums

const INV_SQRT_2 = 0.7071067811865476;
const INV_SQRT_2PI = 0.3989422804014327;
const TWO_OVER_SQRT_PI = 1.1283791670955126;

/** erfc(z) for z >= 0 with relative error below 1.2e-7 (Chebyshev fit of Numerical Recipes' erfcc). */
fn erfc_nonnegative(z: f32) -> f32 {
  let t = 1.0 / (1.0 + 0.5 * z);
  let poly = -1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 +
    t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  return t * exp(-z * z + poly);
}

/** erf(x) for |x| < 0.5 from its Taylor series (relative accuracy near 0, where 1 - erfc would cancel). */
fn erf_series(x: f32) -> f32 {
  let x2 = x * x;
  return TWO_OVER_SQRT_PI * x * (1.0 + x2 * (-1.0 / 3.0 + x2 * (1.0 / 10.0 + x2 * (-1.0 / 42.0 + x2 * (1.0 / 216.0 +
    x2 * (-1.0 / 1320.0 + x2 * (1.0 / 9360.0)))))));
}

/** erf(x), absolute error below 1e-6 everywhere. */
fn erf(x: f32) -> f32 {
  if (abs(x) < 0.5) { return erf_series(x); }
  return sign(x) * (1.0 - erfc_nonnegative(abs(x)));
}

/** Standard normal CDF Φ(x) = (1 + erf(x / √2)) / 2, relative-accurate in the lower tail (x ≪ 0). */
fn normal_cdf(x: f32) -> f32 {
  let z = x * INV_SQRT_2;
  if (abs(z) < 0.5) { return 0.5 + 0.5 * erf_series(z); }
  if (z < 0.0) { return 0.5 * erfc_nonnegative(-z); }
  return 1.0 - 0.5 * erfc_nonnegative(z);
}

const SQRT_2_OVER_PI = 0.7978845608028654;
const TANH_CUBIC = 0.044715;

/** 1 / (1 + e^-z): exactly 0 or 1 where e^-z overflows or vanishes, never NaN. */
fn sigmoid(z: f32) -> f32 {
  return 1.0 / (1.0 + exp(-z));
}

/** gelu_new written as x · sigmoid(2u) (1 + tanh(u) = 2 sigmoid(2u)), u = sqrt(2/pi) (x + 0.044715 x^3): no
 *  cancellation in the lower tail, no overflow at either end. */
fn gelu_tanh(x: f32) -> f32 {
  let u = SQRT_2_OVER_PI * (x + TANH_CUBIC * x * x * x);
  return x * sigmoid(2.0 * u);
}

/** d gelu_new / dx = sigmoid(2u) + 2 x sigmoid(2u) sigmoid(-2u) du/dx. */
fn gelu_tanh_derivative(x: f32) -> f32 {
  let u = SQRT_2_OVER_PI * (x + TANH_CUBIC * x * x * x);
  let du = SQRT_2_OVER_PI * (1.0 + 3.0 * TANH_CUBIC * x * x);
  return sigmoid(2.0 * u) + 2.0 * x * sigmoid(2.0 * u) * sigmoid(-2.0 * u) * du;
}

fn gelu(x: f32) -> f32 {
  if (TANH_APPROXIMATION) { return gelu_tanh(x); }
  return x * normal_cdf(x);
}

/** d gelu / dx = Φ(x) + x φ(x) (or gelu_new's). */
fn gelu_derivative(x: f32) -> f32 {
  if (TANH_APPROXIMATION) { return gelu_tanh_derivative(x); }
  return normal_cdf(x) + x * INV_SQRT_2PI * exp(-0.5 * x * x);
}

fn store_gradient(i: u32, value: f32) {
  if (ACCUMULATE) {
    out[i] += value;
  } else {
    out[i] = value;
  }
}

// out (n) = erf(inp) (exposed so that tests can measure the erf itself).
@compute @workgroup_size(WORKGROUP)
fn erf_forward(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = global_index(id, groups);
  if (i >= params.n) { return; }
  out[i] = erf(inp[i]);
}

// out (n) = gelu(inp (n)).
@compute @workgroup_size(WORKGROUP)
fn gelu_forward(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = global_index(id, groups);
  if (i >= params.n) { return; }
  out[i] = gelu(inp[i]);
}

// dinp (n) (+)= dout · gelu'(inp).
@compute @workgroup_size(WORKGROUP)
fn gelu_backward(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = global_index(id, groups);
  if (i >= params.n) { return; }
  store_gradient(i, dout[i] * gelu_derivative(inp[i]));
}

// out (N, I) = gelu(inp[:, :I]) · inp[:, I:] with inp (N, 2I) (ModernBERT: input, gate = Wi(x).chunk(2, dim=-1)).
@compute @workgroup_size(WORKGROUP)
fn geglu_forward(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = global_index(id, groups);
  let I = params.cols;
  if (i >= params.n * I) { return; }
  let row = i / I;
  let j = i - row * I;
  let a = row * 2u * I + j;
  out[i] = gelu(inp[a]) * inp[a + I];
}

// dinp (N, 2I) (+)= [dout · gate · gelu'(input), dout · gelu(input)]; one invocation owns both halves' element j.
@compute @workgroup_size(WORKGROUP)
fn geglu_backward(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = global_index(id, groups);
  let I = params.cols;
  if (i >= params.n * I) { return; }
  let row = i / I;
  let j = i - row * I;
  let a = row * 2u * I + j;
  let x = inp[a];
  let gate = inp[a + I];
  let g = dout[i];
  store_gradient(a, g * gate * gelu_derivative(x));
  store_gradient(a + I, g * gelu(x));
}

// out (n) = a + b (a in binding 1, b in binding 2).
@compute @workgroup_size(WORKGROUP)
fn add_forward(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = global_index(id, groups);
  if (i >= params.n) { return; }
  out[i] = inp[i] + dout[i];
}

// out (n) += a (a residual branch into the stream, or a gradient into another).
@compute @workgroup_size(WORKGROUP)
fn add_inplace(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = global_index(id, groups);
  if (i >= params.n) { return; }
  out[i] += inp[i];
}

// out (N, C) += bias (C) on every row.
@compute @workgroup_size(WORKGROUP)
fn bias_forward(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = global_index(id, groups);
  if (i >= params.n * params.cols) { return; }
  out[i] += inp[i % params.cols];
}

// partials (chunks, C): Σ of dout (N, C) over each chunk's rows; one invocation per (column, chunk).
@compute @workgroup_size(WORKGROUP)
fn bias_backward_partials(@builtin(global_invocation_id) id: vec3u) {
  let c = id.x;
  let chunk = id.y;
  let C = params.cols;
  if (c >= C || chunk >= params.chunks) { return; }
  let last = min((chunk + 1u) * ROWS_PER_CHUNK, params.n);
  var sum = 0.0;
  for (var row = chunk * ROWS_PER_CHUNK; row < last; row++) { sum += dout[row * C + c]; }
  partials[chunk * C + c] = sum;
}

// dbias (C) += Σ over chunks in order.
@compute @workgroup_size(WORKGROUP)
fn bias_backward_reduce(@builtin(global_invocation_id) id: vec3u) {
  let c = id.x;
  let C = params.cols;
  if (c >= C) { return; }
  var sum = 0.0;
  for (var chunk = 0u; chunk < params.chunks; chunk++) { sum += partials[chunk * C + c]; }
  out[c] += sum;
}

/** tanh(x) with relative accuracy everywhere: a Taylor series near 0 (where 1 - e^-2|x| would cancel), otherwise
 *  sign(x) (1 - e^-2|x|) / (1 + e^-2|x|), which neither overflows nor divides infinities at large |x|. */
fn tanh_stable(x: f32) -> f32 {
  let a = abs(x);
  if (a < 0.25) {
    let x2 = x * x;
    return x * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0 + x2 * (62.0 / 2835.0)))));
  }
  let t = exp(-2.0 * a);
  return sign(x) * (1.0 - t) / (1.0 + t);
}

// out (n) = tanh(inp (n)) (BERT's pooler activation).
@compute @workgroup_size(WORKGROUP)
fn tanh_forward(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = global_index(id, groups);
  if (i >= params.n) { return; }
  out[i] = tanh_stable(inp[i]);
}

// out (B, C) = inp (B, T, C)[:, 0, :]: each sequence's first-token ([CLS]) row; n = B, cols = C, chunks = T.
@compute @workgroup_size(WORKGROUP)
fn first_token_gather(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = global_index(id, groups);
  let C = params.cols;
  if (i >= params.n * C) { return; }
  let b = i / C;
  let c = i - b * C;
  out[i] = inp[b * params.chunks * C + c];
}

// out (B, C) = Σ_t mask (B, T) · inp (B, T, C)[:, t, :] / Σ_t mask: each sequence's mean over its real tokens
// (ModernBERT's classifier_pooling "mean"); n = B, cols = C, chunks = T; the f32 mask (1 real, 0 padding) in binding 2.
@compute @workgroup_size(WORKGROUP)
fn masked_mean_rows(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = global_index(id, groups);
  let C = params.cols;
  let T = params.chunks;
  if (i >= params.n * C) { return; }
  let b = i / C;
  let c = i - b * C;
  var sum = 0.0;
  var count = 0.0;
  for (var t = 0u; t < T; t++) {
    let m = dout[b * T + t];
    sum += m * inp[(b * T + t) * C + c];
    count += m;
  }
  out[i] = sum / count;
}
