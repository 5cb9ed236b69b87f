// Inference-free SPLADE's trainable query table (sentence-transformers' SparseStaticEmbedding): each query's vector is
// the table's weight at every token it holds, vectors = presence · weights (static_table_vectors); backward, the
// table's gradient Σ_b presence · dvectors plus that of an L1 on the query vectors, λ/B Σ_b Σ_v presence |w_v|
// (static_table_backward), and the L1's unweighted value summed in a fixed order (static_table_l1).

struct Params {
  B: u32,
  V: u32,
  slot: u32,     // where in `losses` the unweighted L1 goes
  lambda: f32,   // weight of the L1 in the total (after the ramp); scales its gradient only
}

// WORKGROUP (shaders/prelude.wgsl): invocations per workgroup.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> weights: array<f32>;            // (V) the table
@group(0) @binding(2) var<storage, read> presence: array<f32>;           // (B, V) 1 where query b holds token v, else 0
@group(0) @binding(3) var<storage, read_write> vectors: array<f32>;      // (B, V) written by static_table_vectors
@group(0) @binding(4) var<storage, read> dvectors: array<f32>;           // (B, V) dL/dvectors of the ranking loss
@group(0) @binding(5) var<storage, read_write> dweights: array<f32>;     // (V) accumulated into
@group(0) @binding(6) var<storage, read_write> l1_parts: array<f32>;     // (V) scratch: each token's share of the L1
@group(0) @binding(7) var<storage, read_write> losses: array<f32>;       // loss slots

// vectors[b, v] = presence[b, v] · weights[v], one invocation per entry.
@compute @workgroup_size(WORKGROUP)
fn static_table_vectors(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = global_index(id, groups);
  if (i >= params.B * params.V) { return; }
  vectors[i] = presence[i] * weights[i % params.V];
}

// One invocation per token v: dweights[v] += Σ_b presence[b, v] · (dvectors[b, v] + λ sign(w_v) / B), and its share of
// the L1, |w_v| Σ_b presence[b, v] / B. sign(0) = 0, as torch's abs backward.
@compute @workgroup_size(WORKGROUP)
fn static_table_backward(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let v = global_index(id, groups);
  if (v >= params.V) { return; }
  var gradient = 0.0;
  var count = 0.0;
  for (var b = 0u; b < params.B; b++) {
    let p = presence[b * params.V + v];
    gradient += p * dvectors[b * params.V + v];
    count += p;
  }
  let w = weights[v];
  let per_query = count / f32(params.B);
  dweights[v] += gradient + params.lambda * per_query * sign(w);
  l1_parts[v] = per_query * abs(w);
}

// One workgroup: losses[slot] = Σ_v l1_parts[v], the batch's mean L1 norm of its query vectors.
@compute @workgroup_size(WORKGROUP)
fn static_table_l1(@builtin(local_invocation_index) lane: u32) {
  var sum = 0.0;
  for (var v = lane; v < params.V; v += WORKGROUP) { sum += l1_parts[v]; }
  let total = workgroup_sum(lane, sum);
  if (lane == 0u) { losses[params.slot] = total; }
}
