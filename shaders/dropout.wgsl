// Dropout as a counter-based mask: element i is kept when pcg_hash(pcg_hash(key) ^ i) >= threshold, and a kept
// element is multiplied by 1 / (1 - rate). The mask is a pure function of (key, i), so the backward pass recomputes
// it instead of storing it: the gradient of y = dropout(x) is dy through the very same mask and scale, i.e. this
// kernel again. The key (src/kernels/reference/dropout.ts) mixes the run's seed, the step, the micro-batch and the
// site, so every site of every step draws its own mask, and a resumed run draws the same ones.
//
// apply_in_place: x <- mask(x). apply_copy: dst <- mask(src) (src and dst are distinct buffers).

struct Params {
  n: u32,          // elements
  threshold: u32,  // round(rate · 2^32): hashes below it are dropped
  scale: f32,      // 1 / (1 - rate)
  key: u32,        // this site's key for this micro-batch
}

// WORKGROUP (shaders/prelude.wgsl): invocations per workgroup, one element each.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> x: array<f32>;     // (n), in place
@group(0) @binding(2) var<storage, read> src: array<f32>;         // (n)
@group(0) @binding(3) var<storage, read_write> dst: array<f32>;   // (n)

/** PCG's output permutation of one 32-bit state (O'Neill's pcg_hash). */
fn pcg_hash(value: u32) -> u32 {
  let state = value * 747796405u + 2891336453u;
  let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
  return (word >> 22u) ^ word;
}

/** The factor element i is multiplied by: 0 when dropped, the scale when kept. */
fn factor(i: u32) -> f32 {
  return select(0.0, params.scale, pcg_hash(pcg_hash(params.key) ^ i) >= params.threshold);
}

@compute @workgroup_size(WORKGROUP)
fn apply_in_place(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = global_index(id, groups);
  if (i >= params.n) { return; }
  x[i] = x[i] * factor(i);
}

@compute @workgroup_size(WORKGROUP)
fn apply_copy(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = global_index(id, groups);
  if (i >= params.n) { return; }
  dst[i] = src[i] * factor(i);
}
