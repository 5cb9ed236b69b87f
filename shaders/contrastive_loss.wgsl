// In-batch contrastive loss with temperature over scores (B, N): query i's positive is column i; loss and dscores.

struct Params {
  B: u32,
  N: u32,
  tau: f32,
  slot: u32,    // where in `losses` the loss value goes
  scale: f32,   // dloss: the weight of this loss in the total
}

// WORKGROUP (shaders/prelude.wgsl): invocations of the one workgroup.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> scores: array<f32>;          // (B, N)
@group(0) @binding(2) var<storage, read_write> dscores: array<f32>;   // (B, N), overwritten
@group(0) @binding(3) var<storage, read_write> losses: array<f32>;    // loss slots

// One workgroup; each invocation owns whole rows: L = 1/B Σ_i (logsumexp_j(s_ij / tau) - s_ii / tau),
// dscores[i, j] = scale · (softmax_ij - [i = j]) / (B · tau).
@compute @workgroup_size(WORKGROUP)
fn contrastive_forward_backward(@builtin(local_invocation_index) lane: u32) {
  let B = params.B;
  let N = params.N;
  let tau = params.tau;
  var rowLosses = 0.0;
  for (var i = lane; i < B; i += WORKGROUP) {
    var m = -3.4e38;
    for (var j = 0u; j < N; j++) { m = max(m, scores[i * N + j] / tau); }
    var sum = 0.0;
    for (var j = 0u; j < N; j++) { sum += exp(scores[i * N + j] / tau - m); }
    let lse = m + log(sum);
    rowLosses += lse - scores[i * N + i] / tau;
    for (var j = 0u; j < N; j++) {
      let p = exp(scores[i * N + j] / tau - lse);
      let positive = select(0.0, 1.0, i == j);
      dscores[i * N + j] = params.scale * (p - positive) / (f32(B) * tau);
    }
  }
  let total = workgroup_sum(lane, rowLosses);
  if (lane == 0u) { losses[params.slot] = total / f32(B); }
}
