// Attention pieces around the batched matmuls: masked scaled softmax (forward/backward), head split/merge, rotary.
//
// softmax_forward:  one workgroup per score row (b, h, i); in place, scores (B, NH, T, T) become probabilities
//                   p_ij = exp(scale·s_ij - m) / Σ over the keys j that query i may see: mask[b, j] != 0 and, with a
//                   window, |i - j| <= half_window. Hidden keys get p = 0 (additive -inf). A row with no visible key
//                   (a padded query in a local layer) is all zeros.
// softmax_backward: in place, dprobs become dscores: ds_ij = scale · p_ij · (dp_ij - Σ_j p_ij dp_ij).
// split_heads:      dst (B, NH, T, hd) = section `section` of src (B, T, S, NH·hd) (S = 3 for a fused qkv).
// merge_heads:      section `section` of dst (B, T, S, NH·hd) (+)= src (B, NH, T, hd).
// rotary_*:         in place on x (B·NH, T, hd), rotate_half convention: for j < hd/2, x1 = x[j], x2 = x[j + hd/2],
//                   forward: (x1 cos - x2 sin, x2 cos + x1 sin); backward rotates by the opposite angle.
// Reductions run in a fixed tree order; every output element has one writer.

struct Params {
  B: u32,
  NH: u32,
  T: u32,
  hd: u32,
  half_window: u32,
  windowed: u32,     // 0: global attention; 1: keys with |i - j| <= half_window only
  scale: f32,        // 1 / sqrt(hd)
  rows: u32,         // B · NH · T
  sections: u32,     // S of the token-major side of a permute
  section: u32,      // which section this permute reads or writes
  _pad0: u32,
  _pad1: u32,
}

// WORKGROUP (shaders/prelude.wgsl): invocations per softmax row and per workgroup of the element kernels.
/** merge_heads / split_heads add into dst instead of overwriting it. */
override ACCUMULATE: bool = false;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> mask: array<u32>;              // (B, T): a key counts when its word is non-zero
@group(0) @binding(2) var<storage, read_write> scores: array<f32>;      // (B, NH, T, T), becomes probs
@group(0) @binding(3) var<storage, read> probs: array<f32>;             // (B, NH, T, T)
@group(0) @binding(4) var<storage, read_write> dprobs: array<f32>;      // (B, NH, T, T), becomes dscores
@group(0) @binding(5) var<storage, read> src: array<f32>;               // permute source
@group(0) @binding(6) var<storage, read_write> dst: array<f32>;         // permute destination
@group(0) @binding(7) var<storage, read_write> x: array<f32>;           // (B·NH, T, hd), rotated in place
@group(0) @binding(8) var<storage, read> cos_table: array<f32>;         // (T, hd/2)
@group(0) @binding(9) var<storage, read> sin_table: array<f32>;         // (T, hd/2)

const LOWEST = -3.4028234663852886e38;

/** May query i of sequence b attend to key j? */
fn visible(b: u32, i: u32, j: u32) -> bool {
  if (mask[b * params.T + j] == 0u) { return false; }
  if (params.windowed == 0u) { return true; }
  return max(i, j) - min(i, j) <= params.half_window;
}

@compute @workgroup_size(WORKGROUP)
fn softmax_forward(
  @builtin(workgroup_id) group: vec3u,
  @builtin(num_workgroups) groups: vec3u,
  @builtin(local_invocation_index) lane: u32,
) {
  let row = workgroup_index(group, groups);
  if (row >= params.rows) { return; }
  let T = params.T;
  let b = row / (params.NH * T);
  let i = row % T;
  let base = row * T;
  var m = LOWEST;
  for (var j = lane; j < T; j += WORKGROUP) {
    if (visible(b, i, j)) { m = max(m, params.scale * scores[base + j]); }
  }
  m = workgroup_max(lane, m);
  var sum = 0.0;
  for (var j = lane; j < T; j += WORKGROUP) {
    if (visible(b, i, j)) { sum += exp(params.scale * scores[base + j] - m); }
  }
  sum = workgroup_sum(lane, sum);
  let empty = m == LOWEST;
  for (var j = lane; j < T; j += WORKGROUP) {
    var p = 0.0;
    if (!empty && visible(b, i, j)) { p = exp(params.scale * scores[base + j] - m) / sum; }
    scores[base + j] = p;
  }
}

@compute @workgroup_size(WORKGROUP)
fn softmax_backward(
  @builtin(workgroup_id) group: vec3u,
  @builtin(num_workgroups) groups: vec3u,
  @builtin(local_invocation_index) lane: u32,
) {
  let row = workgroup_index(group, groups);
  if (row >= params.rows) { return; }
  let base = row * params.T;
  var dot = 0.0;
  for (var j = lane; j < params.T; j += WORKGROUP) { dot += probs[base + j] * dprobs[base + j]; }
  dot = workgroup_sum(lane, dot);
  for (var j = lane; j < params.T; j += WORKGROUP) {
    dprobs[base + j] = params.scale * probs[base + j] * (dprobs[base + j] - dot);
  }
}

fn store(index: u32, value: f32) {
  if (ACCUMULATE) {
    dst[index] += value;
  } else {
    dst[index] = value;
  }
}

// One invocation per dst element (B, NH, T, hd).
@compute @workgroup_size(WORKGROUP)
fn split_heads(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let e = global_index(id, groups);
  let hd = params.hd;
  let T = params.T;
  if (e >= params.rows * hd) { return; }
  let c = e % hd;
  let t = (e / hd) % T;
  let bh = e / (hd * T);
  let h = bh % params.NH;
  let b = bh / params.NH;
  let d = params.NH * hd;
  store(e, src[((b * T + t) * params.sections + params.section) * d + h * hd + c]);
}

// One invocation per element of dst's section (B, T, NH·hd).
@compute @workgroup_size(WORKGROUP)
fn merge_heads(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let e = global_index(id, groups);
  let hd = params.hd;
  let d = params.NH * hd;
  if (e >= params.rows * hd) { return; }
  let bt = e / d;
  let within = e % d;
  let h = within / hd;
  let c = within % hd;
  let b = bt / params.T;
  let t = bt % params.T;
  store((bt * params.sections + params.section) * d + within, src[((b * params.NH + h) * params.T + t) * hd + c]);
}

fn rotate(e: u32, direction: f32) {
  let half = params.hd / 2u;
  if (e >= params.rows * half) { return; }
  let j = e % half;
  let rt = e / half;   // (b·NH + h)·T + t
  let t = rt % params.T;
  let c = cos_table[t * half + j];
  let s = direction * sin_table[t * half + j];
  let base = rt * params.hd;
  let x1 = x[base + j];
  let x2 = x[base + half + j];
  x[base + j] = x1 * c - x2 * s;
  x[base + half + j] = x2 * c + x1 * s;
}

// One invocation per (b, h, t, j < hd/2).
@compute @workgroup_size(WORKGROUP)
fn rotary_forward(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  rotate(global_index(id, groups), 1.0);
}

@compute @workgroup_size(WORKGROUP)
fn rotary_backward(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  rotate(global_index(id, groups), -1.0);
}
