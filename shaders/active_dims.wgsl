// Active dimensions (entries > 0) of each row of a batch of pooled SPLADE vectors (rows, V), counted on the GPU.

struct Params {
  V: u32,
  offset: u32,   // where in `counts` this batch's rows start
}

// WORKGROUP (shaders/prelude.wgsl): invocations per row.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> vectors: array<f32>;          // (rows, V)
@group(0) @binding(2) var<storage, read_write> counts: array<u32>;     // (offset + rows)

// One workgroup per row: strided counts, then a fixed-order tree sum.
@compute @workgroup_size(WORKGROUP)
fn count_active(@builtin(workgroup_id) group: vec3u, @builtin(local_invocation_index) lane: u32) {
  let row = group.x;
  var n = 0u;
  for (var v = lane; v < params.V; v += WORKGROUP) {
    n += select(0u, 1u, vectors[row * params.V + v] > 0.0);
  }
  let total = workgroup_sum_u32(lane, n);
  if (lane == 0u) { counts[params.offset + row] = total; }
}
