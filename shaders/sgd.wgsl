// Plain SGD update, in place over one parameter tensor: param -= lr · (g · scale + weight_decay · param). Without
// momentum, L2 regularisation and decoupled weight decay are the same update, so torch.optim.SGD's weight_decay is this.

struct Params {
  n: u32,             // elements
  lr: f32,
  weightDecay: f32,   // 0 for a parameter exempt from decay
  gradScale: f32,     // multiplies the gradient first, with scale[0]; 1 for none
}

// WORKGROUP (shaders/prelude.wgsl): invocations per workgroup.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> param: array<f32>;   // (n)
@group(0) @binding(2) var<storage, read> dparam: array<f32>;          // (n)
@group(0) @binding(3) var<storage, read> scale: array<f32>;           // [0]: the step's gradient scale (grad_norm.wgsl)

@compute @workgroup_size(WORKGROUP)
fn sgd_step(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = global_index(id, groups);
  if (i >= params.n) { return; }
  let g = dparam[i] * params.gradScale * scale[0];
  param[i] = param[i] - params.lr * (g + params.weightDecay * param[i]);
}
