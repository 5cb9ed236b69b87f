// The global gradient norm and the update's gradient scale (clipping by global norm, averaging micro-batches).
//
// sum_squares: each of a parameter's `slots` workgroups strides over its gradient and writes its sum of squares to
// partials[slot + workgroup]. grad_scale: one workgroup adds every partial (fixed order: the same bits every run)
// and writes scale = mean · min(1, max_norm / (norm + 1e-6)) and norm, the norm of the averaged gradient
// (mean · the summed gradient), as torch.nn.utils.clip_grad_norm_ computes it; max_norm 0 leaves out the clipping.

struct Part {
  n: u32,       // elements of this gradient
  slot: u32,    // first partial slot of this gradient
  slots: u32,   // workgroups (and slots) given to this gradient
  _pad: u32,
}

struct Clip {
  partials: u32,  // slots of every gradient together
  max_norm: f32,  // 0: no clipping
  mean: f32,      // 1 / micro-batches: the summed gradient times this is the averaged one
  _pad: u32,
}

// WORKGROUP (shaders/prelude.wgsl): invocations per workgroup.

@group(0) @binding(0) var<uniform> part: Part;
@group(0) @binding(1) var<storage, read> grad: array<f32>;               // (n)
@group(0) @binding(2) var<storage, read_write> partials: array<f32>;     // (partials)

@compute @workgroup_size(WORKGROUP)
fn sum_squares(@builtin(workgroup_id) group: vec3u, @builtin(local_invocation_index) lane: u32) {
  var sum = 0.0;
  for (var i = group.x * WORKGROUP + lane; i < part.n; i += part.slots * WORKGROUP) {
    let g = grad[i];
    sum += g * g;
  }
  let total = workgroup_sum(lane, sum);
  if (lane == 0u) { partials[part.slot + group.x] = total; }
}

@group(0) @binding(0) var<uniform> clip: Clip;
@group(0) @binding(1) var<storage, read> all_partials: array<f32>;       // (partials)
@group(0) @binding(2) var<storage, read_write> scale: array<f32>;        // (2): [scale, norm]

@compute @workgroup_size(WORKGROUP)
fn grad_scale(@builtin(local_invocation_index) lane: u32) {
  var sum = 0.0;
  for (var i = lane; i < clip.partials; i += WORKGROUP) { sum += all_partials[i]; }
  let total = workgroup_sum(lane, sum);
  if (lane == 0u) {
    let norm = sqrt(total) * clip.mean;
    var coefficient = 1.0;
    if (clip.max_norm > 0.0) { coefficient = min(1.0, clip.max_norm / (norm + 1e-6)); }
    scale[0] = clip.mean * coefficient;
    scale[1] = norm;
  }
}
