// Distillation from teacher scores over scores (B, N), N = (1 + n)·B (query i's positive at column i, its negative c at
// column (1 + c)·B + i): MarginMSE against teacher margins (B, n), or KL against teacher scores (B, n + 1) at
// temperature T. Loss value and dscores (zero outside each query's own columns) in one pass.

struct Params {
  B: u32,
  n: u32,       // negatives per query
  T: f32,       // temperature (KL only)
  slot: u32,    // where in `losses` the loss value goes
  scale: f32,   // dloss: the weight of this loss in the total
}

// WORKGROUP (shaders/prelude.wgsl): invocations of the one workgroup.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> scores: array<f32>;          // (B, N)
@group(0) @binding(2) var<storage, read> teacher: array<f32>;         // (B, n) margins or (B, n + 1) scores
@group(0) @binding(3) var<storage, read_write> dscores: array<f32>;   // (B, N), overwritten
@group(0) @binding(4) var<storage, read_write> losses: array<f32>;    // loss slots

fn score(i: u32, j: u32) -> f32 {
  let B = params.B;
  return scores[i * (1u + params.n) * B + j * B + i];
}

fn clear_row(i: u32) {
  let N = (1u + params.n) * params.B;
  for (var j = 0u; j < N; j++) { dscores[i * N + j] = 0.0; }
}

// L = 1/(B n) Σ_i Σ_c (s_i0 - s_ic - m_ic)², dscores[i, pos] = scale · 2 Σ_c r_ic / (B n), dscores[i, neg c] = -scale · 2 r_ic / (B n).
@compute @workgroup_size(WORKGROUP)
fn margin_mse_forward_backward(@builtin(local_invocation_index) lane: u32) {
  let B = params.B;
  let n = params.n;
  let N = (1u + n) * B;
  let count = f32(B * n);
  var rowLosses = 0.0;
  for (var i = lane; i < B; i += WORKGROUP) {
    clear_row(i);
    let positive = score(i, 0u);
    var dpositive = 0.0;
    for (var c = 0u; c < n; c++) {
      let r = positive - score(i, c + 1u) - teacher[i * n + c];
      rowLosses += r * r;
      let g = params.scale * 2.0 * r / count;
      dpositive += g;
      dscores[i * N + (c + 1u) * B + i] = -g;
    }
    dscores[i * N + i] = dpositive;
  }
  let total = workgroup_sum(lane, rowLosses);
  if (lane == 0u) { losses[params.slot] = total / count; }
}

// L = T² / B Σ_i Σ_j p_ij (log p_ij - log q_ij), p = softmax(teacher_i / T), q = softmax(s_i / T) over j = 0..n;
// dscores[i, own j] = scale · T (q_ij - p_ij) / B.
@compute @workgroup_size(WORKGROUP)
fn kl_forward_backward(@builtin(local_invocation_index) lane: u32) {
  let B = params.B;
  let n = params.n;
  let N = (1u + n) * B;
  let T = params.T;
  var rowLosses = 0.0;
  for (var i = lane; i < B; i += WORKGROUP) {
    clear_row(i);
    var ms = -3.4e38;
    var mt = -3.4e38;
    for (var j = 0u; j <= n; j++) {
      ms = max(ms, score(i, j) / T);
      mt = max(mt, teacher[i * (n + 1u) + j] / T);
    }
    var ss = 0.0;
    var st = 0.0;
    for (var j = 0u; j <= n; j++) {
      ss += exp(score(i, j) / T - ms);
      st += exp(teacher[i * (n + 1u) + j] / T - mt);
    }
    let lses = ms + log(ss);
    let lset = mt + log(st);
    for (var j = 0u; j <= n; j++) {
      let logq = score(i, j) / T - lses;
      let logp = teacher[i * (n + 1u) + j] / T - lset;
      let p = exp(logp);
      if (p > 0.0) { rowLosses += p * (logp - logq); }
      dscores[i * N + j * B + i] = params.scale * T * (exp(logq) - p) / f32(B);
    }
  }
  let total = workgroup_sum(lane, rowLosses);
  if (lane == 0u) { losses[params.slot] = total * T * T / f32(B); }
}
