// Scores of every query against every in-batch document, scores (B, N) = queries (B, V) · docs (N, V)ᵀ, and gradients.

struct Params {
  B: u32,  // queries
  N: u32,  // documents (positives then negatives)
  V: u32,  // vocabulary
}

// WORKGROUP (shaders/prelude.wgsl): invocations per (query, document) dot product and per backward workgroup.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> queries: array<f32>;        // (B, V)
@group(0) @binding(2) var<storage, read> docs: array<f32>;           // (N, V)
@group(0) @binding(3) var<storage, read_write> scores: array<f32>;   // (B, N) forward output / dscores backward input

// One workgroup per (query i, document j): strided partial dots, then a fixed-order tree sum (deterministic).
@compute @workgroup_size(WORKGROUP)
fn scores_forward(@builtin(workgroup_id) group: vec3u, @builtin(local_invocation_index) lane: u32) {
  let j = group.x;
  let i = group.y;
  var sum = 0.0;
  for (var v = lane; v < params.V; v += WORKGROUP) {
    sum += queries[i * params.V + v] * docs[j * params.V + v];
  }
  let total = workgroup_sum(lane, sum);
  if (lane == 0u) { scores[i * params.N + j] = total; }
}

@group(0) @binding(4) var<storage, read_write> dqueries: array<f32>; // (B, V), accumulated into
@group(0) @binding(5) var<storage, read_write> ddocs: array<f32>;    // (N, V), accumulated into

// One invocation per (row, v), rows 0..B-1 are queries and B..B+N-1 documents; each output owned by one invocation.
// dqueries[i, v] += Σ_j dscores[i, j] docs[j, v];  ddocs[j, v] += Σ_i dscores[i, j] queries[i, v].
@compute @workgroup_size(WORKGROUP)
fn scores_backward(@builtin(global_invocation_id) id: vec3u) {
  let v = id.x;
  let row = id.y;
  if (v >= params.V) { return; }
  if (row < params.B) {
    var g = 0.0;
    for (var j = 0u; j < params.N; j++) { g += scores[row * params.N + j] * docs[j * params.V + v]; }
    dqueries[row * params.V + v] += g;
  } else if (row < params.B + params.N) {
    let j = row - params.B;
    var g = 0.0;
    for (var i = 0u; i < params.B; i++) { g += scores[i * params.N + j] * queries[i * params.V + v]; }
    ddocs[j * params.V + v] += g;
  }
}
