// The paper's correction on the GPU: W <- W · scale, in place, with scale = f32(1 / k) rounded once on the host.
//
// Portability: Dawn compiles a division as a reciprocal multiply on Metal and D3D12, so x / k would differ between
// devices; x · f32(1/k) is one correctly rounded product everywhere, within an ulp of x / k.

struct Params {
  count: u32,      // elements of the matrix (V · d)
  scale: f32,      // 1 / k, rounded on the host
}

// WORKGROUP (shaders/prelude.wgsl): invocations per workgroup.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> weight: array<f32>;     // (V, d), divided in place

@compute @workgroup_size(WORKGROUP)
fn head_divide(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = global_index(id, groups);
  if (i >= params.count) { return; }
  weight[i] = weight[i] * params.scale;
}
