// FLOPS regulariser L = Σ_v (mean_i |x_iv|)² over N vectors (N, V), its value and its gradient; and, for FLOPS over
// a whole accumulated step, the means carried between micro-batches (flops_carry_means).

struct Params {
  N: u32,
  V: u32,
  slot: u32,     // where in `losses` the (unweighted) loss goes
  lambda: f32,   // weight of this loss in the total; scales the gradient only
}

// WORKGROUP (shaders/prelude.wgsl): invocations per workgroup.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> vectors: array<f32>;          // (N, V)
@group(0) @binding(2) var<storage, read_write> means: array<f32>;      // (V) scratch: mean_i |x_iv|
@group(0) @binding(3) var<storage, read_write> losses: array<f32>;     // loss slots
@group(0) @binding(4) var<storage, read_write> dvectors: array<f32>;   // (N, V), accumulated into

struct Carry {
  V: u32,
  add: u32,      // 1: dst += scale · src; 0: dst = scale · src
  scale: f32,
  _pad: u32,
}

@group(0) @binding(0) var<uniform> carry: Carry;
@group(0) @binding(1) var<storage, read> carry_src: array<f32>;        // (V)
@group(0) @binding(2) var<storage, read_write> carry_dst: array<f32>;  // (V)

// Moves per-dimension means between a micro-batch and a step's running mean: the step's sum of micro-batch means
// (add), or the step's mean loaded back as this loss's means (set, scale 1 / micro-batches).
@compute @workgroup_size(WORKGROUP)
fn flops_carry_means(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let v = global_index(id, groups);
  if (v >= carry.V) { return; }
  let value = carry.scale * carry_src[v];
  if (carry.add == 1u) { carry_dst[v] = carry_dst[v] + value; } else { carry_dst[v] = value; }
}

@compute @workgroup_size(WORKGROUP)
fn flops_column_means(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let v = global_index(id, groups);
  if (v >= params.V) { return; }
  var sum = 0.0;
  for (var i = 0u; i < params.N; i++) { sum += abs(vectors[i * params.V + v]); }
  means[v] = sum / f32(params.N);
}

// One workgroup: Σ_v means[v]², summed in a fixed order.
@compute @workgroup_size(WORKGROUP)
fn flops_reduce(@builtin(local_invocation_index) lane: u32) {
  var sum = 0.0;
  for (var v = lane; v < params.V; v += WORKGROUP) { sum += means[v] * means[v]; }
  let total = workgroup_sum(lane, sum);
  if (lane == 0u) { losses[params.slot] = total; }
}

// dvectors[i, v] += lambda · 2 · means[v] · sign(x_iv) / N.
@compute @workgroup_size(WORKGROUP)
fn flops_backward(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let v = global_index(id, groups);
  if (v >= params.V) { return; }
  let g = params.lambda * 2.0 * means[v] / f32(params.N);
  for (var i = 0u; i < params.N; i++) {
    let x = vectors[i * params.V + v];
    dvectors[i * params.V + v] += g * sign(x);
  }
}
