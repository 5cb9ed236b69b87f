// AdamW update, in place over one parameter tensor: decoupled weight decay, bias-corrected moments.

struct Params {
  n: u32,             // elements
  lr: f32,
  beta1: f32,
  beta2: f32,
  eps: f32,
  weightDecay: f32,
  correction1: f32,   // 1 - beta1^t
  correction2: f32,   // 1 - beta2^t
  gradScale: f32,     // multiplies the gradient first, with scale[0]; 1 for none
}

// WORKGROUP (shaders/prelude.wgsl): invocations per workgroup.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> param: array<f32>;   // (n)
@group(0) @binding(2) var<storage, read> dparam: array<f32>;          // (n)
@group(0) @binding(3) var<storage, read_write> m: array<f32>;       // (n) first moment
@group(0) @binding(4) var<storage, read_write> v: array<f32>;       // (n) second moment
@group(0) @binding(5) var<storage, read> scale: array<f32>;           // [0]: the step's gradient scale (grad_norm.wgsl)

@compute @workgroup_size(WORKGROUP)
fn adamw_step(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = global_index(id, groups);
  if (i >= params.n) { return; }
  let g = dparam[i] * params.gradScale * scale[0];
  let mi = params.beta1 * m[i] + (1.0 - params.beta1) * g;
  let vi = params.beta2 * v[i] + (1.0 - params.beta2) * g * g;
  m[i] = mi;
  v[i] = vi;
  let update = (mi / params.correction1) / (sqrt(vi / params.correction2) + params.eps);
  param[i] = param[i] - params.lr * (update + params.weightDecay * param[i]);
}
