// LayerNorm over the last dim, with optional bias: forward (saving mean and rstd per row) and deterministic backward.
//
// forward:            one workgroup per row; out = (x - mean) · rstd · weight (+ bias), rstd = 1 / sqrt(var + eps).
// backward_input:     one workgroup per row; dinp (+)= rstd · (g - mean(g) - xhat · mean(g · xhat)), g = dout · weight.
// backward_partials:  one invocation per (row chunk, column): Σ dout · xhat and Σ dout over ROWS_PER_CHUNK rows.
// backward_params:    one invocation per column: dweight += Σ over chunks in order, dbias += likewise.
// Every output element is written by one invocation and every sum runs in a fixed order, so results repeat bit for bit.

struct Params {
  N: u32,        // rows
  C: u32,        // columns (normalised dim)
  eps: f32,
  chunks: u32,   // ceil(N / ROWS_PER_CHUNK)
}

// WORKGROUP (shaders/prelude.wgsl): invocations per row in the per-row kernels, and per workgroup in the column kernels.
/** Rows summed by one invocation of backward_partials. */
override ROWS_PER_CHUNK: u32 = 32u;
/** false: the norm has no bias (ModernBERT's norm_bias = false); bias and dbias are then never read or written. */
override HAS_BIAS: bool = true;
/** backward_input adds into dinp instead of overwriting it (pre-norm residual streams). */
override ACCUMULATE: bool = false;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> inp: array<f32>;              // (N, C)
@group(0) @binding(2) var<storage, read> weight: array<f32>;           // (C)
@group(0) @binding(3) var<storage, read> bias: array<f32>;             // (C)
@group(0) @binding(4) var<storage, read_write> out: array<f32>;        // (N, C)
@group(0) @binding(5) var<storage, read_write> mean: array<f32>;       // (N), written by forward
@group(0) @binding(6) var<storage, read_write> rstd: array<f32>;       // (N), written by forward
@group(0) @binding(7) var<storage, read> dout: array<f32>;             // (N, C)
@group(0) @binding(8) var<storage, read_write> dinp: array<f32>;       // (N, C)
@group(0) @binding(9) var<storage, read_write> partials: array<f32>;   // (chunks, 2, C): Σ dout·xhat, then Σ dout
@group(0) @binding(10) var<storage, read_write> dweight: array<f32>;   // (C), accumulated into
@group(0) @binding(11) var<storage, read_write> dbias: array<f32>;     // (C), accumulated into

@compute @workgroup_size(WORKGROUP)
fn layernorm_forward(
  @builtin(workgroup_id) group: vec3u,
  @builtin(num_workgroups) groups: vec3u,
  @builtin(local_invocation_index) lane: u32,
) {
  let row = workgroup_index(group, groups);
  if (row >= params.N) { return; }  // uniform per workgroup, so the barriers below stay uniform
  let C = params.C;
  let base = row * C;
  var sum = 0.0;
  for (var c = lane; c < C; c += WORKGROUP) { sum += inp[base + c]; }
  let m = workgroup_sum(lane, sum) / f32(C);
  var squares = 0.0;
  for (var c = lane; c < C; c += WORKGROUP) {
    let centred = inp[base + c] - m;
    squares += centred * centred;
  }
  let s = inverseSqrt(workgroup_sum(lane, squares) / f32(C) + params.eps);
  for (var c = lane; c < C; c += WORKGROUP) {
    var y = (inp[base + c] - m) * s * weight[c];
    if (HAS_BIAS) { y += bias[c]; }
    out[base + c] = y;
  }
  if (lane == 0u) {
    mean[row] = m;
    rstd[row] = s;
  }
}

@compute @workgroup_size(WORKGROUP)
fn layernorm_backward_input(
  @builtin(workgroup_id) group: vec3u,
  @builtin(num_workgroups) groups: vec3u,
  @builtin(local_invocation_index) lane: u32,
) {
  let row = workgroup_index(group, groups);
  if (row >= params.N) { return; }
  let C = params.C;
  let base = row * C;
  let m = mean[row];
  let s = rstd[row];
  var sums = vec2f(0.0);
  for (var c = lane; c < C; c += WORKGROUP) {
    let g = dout[base + c] * weight[c];
    sums += vec2f(g, g * (inp[base + c] - m) * s);
  }
  let means = workgroup_sum2(lane, sums) / f32(C);
  for (var c = lane; c < C; c += WORKGROUP) {
    let xhat = (inp[base + c] - m) * s;
    let dx = s * (dout[base + c] * weight[c] - means.x - xhat * means.y);
    if (ACCUMULATE) {
      dinp[base + c] += dx;
    } else {
      dinp[base + c] = dx;
    }
  }
}

@compute @workgroup_size(WORKGROUP)
fn layernorm_backward_partials(@builtin(global_invocation_id) id: vec3u) {
  let c = id.x;
  let chunk = id.y;
  if (c >= params.C || chunk >= params.chunks) { return; }
  let C = params.C;
  let first = chunk * ROWS_PER_CHUNK;
  let last = min(first + ROWS_PER_CHUNK, params.N);
  var sums = vec2f(0.0);
  for (var row = first; row < last; row++) {
    let g = dout[row * C + c];
    sums += vec2f(g * (inp[row * C + c] - mean[row]) * rstd[row], g);
  }
  partials[chunk * 2u * C + c] = sums.x;
  partials[chunk * 2u * C + C + c] = sums.y;
}

@compute @workgroup_size(WORKGROUP)
fn layernorm_backward_params(@builtin(global_invocation_id) id: vec3u) {
  let c = id.x;
  if (c >= params.C) { return; }
  let C = params.C;
  var sums = vec2f(0.0);
  for (var chunk = 0u; chunk < params.chunks; chunk++) {
    sums += vec2f(partials[chunk * 2u * C + c], partials[chunk * 2u * C + C + c]);
  }
  dweight[c] += sums.x;
  if (HAS_BIAS) { dbias[c] += sums.y; }
}
