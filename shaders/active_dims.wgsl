// Active dimensions (entries > 0) and squared L2 norm of each row of a batch of pooled SPLADE vectors (rows, V),
// on the GPU: the counts report sparsity, the squared norms estimate the FLOPS term at another batch size.

struct Params {
  V: u32,
  offset: u32,   // where in `counts` and `squares` this batch's rows start
}

// WORKGROUP (shaders/prelude.wgsl): invocations per row.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> vectors: array<f32>;          // (rows, V)
@group(0) @binding(2) var<storage, read_write> counts: array<u32>;     // (offset + rows)
@group(0) @binding(3) var<storage, read_write> squares: array<f32>;    // (offset + rows)

// One workgroup per row: strided counts and sums of squares, then fixed-order tree sums.
@compute @workgroup_size(WORKGROUP)
fn count_active(@builtin(workgroup_id) group: vec3u, @builtin(local_invocation_index) lane: u32) {
  let row = group.x;
  var n = 0u;
  var s = 0.0;
  for (var v = lane; v < params.V; v += WORKGROUP) {
    let x = vectors[row * params.V + v];
    n += select(0u, 1u, x > 0.0);
    s += x * x;
  }
  let total = workgroup_sum_u32(lane, n);
  let square = workgroup_sum(lane, s);
  if (lane == 0u) {
    counts[params.offset + row] = total;
    squares[params.offset + row] = square;
  }
}
