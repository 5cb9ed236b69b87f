// Fused SPLADE head: pooled = max over unmasked tokens of log(1 + ReLU(H·Wᵀ + b)), with argmax; and its backward.
// Never materialises B x T x V. Every output element is written by exactly one invocation (deterministic).
//
// Layouts (row-major, f32 unless noted):
//   hidden  (B, T, d)  read as vec4 (d % 4 == 0)    weight (V, d) read as vec4    bias (V)
//   A weight too large for one binding comes in row parts: every dispatch binds one part, rows [w0, v_end) of W
//   (its uniform `chunk`), and touches only those vocabulary ids.
//   mask    (B, T) u32 or f32 bits: a token is present when its word is non-zero
//   pooled  (B, V)     argmax (B, V) u32: token index of the max, NO_TOKEN when pooled == 0
//   dpooled (B, V)     dhidden (B, T, d) += ;  dweight (V, d) += ;  dbias (V) +=   (backward accumulates)
//   offsets (B, T) u32 scratch: after head_bucket, offsets[b, t] = end of token t's bucket in `order`
//   order   (B, V) u32 scratch: per sequence, the vocabulary ids grouped by argmax token, ascending within a bucket
//   cursor  (B, SORT_WG, T) u32 scratch: per-slice counters of the counting sort

struct Dims {
  B: u32,
  T: u32,
  D: u32, // hidden size d
  V: u32,
}

const NO_TOKEN: u32 = 0xffffffffu;

@group(0) @binding(0) var<uniform> dims: Dims;

// ---------------------------------------------------------------------------------------------------------------
// Forward. Each invocation owns 4 vocabulary ids of one sequence and walks all tokens 4 at a time (4x4 register
// block, vec4 loads along d), keeping the running max logit and its token; log1p is applied once at the end
// (log1p∘ReLU is monotone, so the max of the logits is the max of the activations). Strict '>' in token order
// keeps the lowest token index on ties; a running max starting at 0 leaves NO_TOKEN when no logit is positive.

override FWD_WG: u32 = 64; // invocations per workgroup; a workgroup covers 4 * FWD_WG vocabulary ids

// One dispatch of the forward covers a chunk of sequences and vocabulary ids (a per-dispatch work budget keeps each
// one short of a GPU watchdog): its first sequence and first vocabulary id; and the bound weight part's rows
// [w0, v_end), which hold the chunk's ids. The backward's per-part dispatches read w0 and v_end only.
struct Chunk {
  b0: u32,
  v0: u32,
  w0: u32,
  v_end: u32,
}

@group(0) @binding(7) var<uniform> chunk: Chunk;

@group(0) @binding(1) var<storage, read> f_hidden: array<vec4f>;   // (B, T, d/4)
@group(0) @binding(2) var<storage, read> f_weight: array<vec4f>;   // (v_end - w0, d/4): rows w0.. of W
@group(0) @binding(3) var<storage, read> f_bias: array<f32>;       // (V)
@group(0) @binding(4) var<storage, read> f_mask: array<u32>;       // (B, T)
@group(0) @binding(5) var<storage, read_write> f_pooled: array<f32>; // (B, V)
@group(0) @binding(6) var<storage, read_write> f_argmax: array<u32>; // (B, V)

// log(1 + x) for x >= 0 to a few ulp: 2 atanh(x / (2 + x)) by its series where log() near 1 is inexact.
fn log1p_pos(x: f32) -> f32 {
  if (x > 1.0) {
    return log(1.0 + x);
  }
  let s = x / (2.0 + x); // <= 1/3
  let s2 = s * s;
  var sum = 1.0 / 21.0;
  sum = sum * s2 + 1.0 / 19.0;
  sum = sum * s2 + 1.0 / 17.0;
  sum = sum * s2 + 1.0 / 15.0;
  sum = sum * s2 + 1.0 / 13.0;
  sum = sum * s2 + 1.0 / 11.0;
  sum = sum * s2 + 1.0 / 9.0;
  sum = sum * s2 + 1.0 / 7.0;
  sum = sum * s2 + 1.0 / 5.0;
  sum = sum * s2 + 1.0 / 3.0;
  sum = sum * s2 + 1.0;
  return 2.0 * s * sum;
}

@compute @workgroup_size(FWD_WG)
fn head_forward(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let b = chunk.b0 + wid.y;
  let D4 = dims.D / 4u;
  let T = dims.T;
  let vbase = chunk.v0 + wid.x * FWD_WG * 4u + lid;
  let vids = vec4u(vbase, vbase + FWD_WG, vbase + 2u * FWD_WG, vbase + 3u * FWD_WG);
  let vlast = chunk.v_end - 1u;
  let w0 = (min(vids.x, vlast) - chunk.w0) * D4;
  let w1 = (min(vids.y, vlast) - chunk.w0) * D4;
  let w2 = (min(vids.z, vlast) - chunk.w0) * D4;
  let w3 = (min(vids.w, vlast) - chunk.w0) * D4;
  let bias = vec4f(f_bias[min(vids.x, vlast)], f_bias[min(vids.y, vlast)], f_bias[min(vids.z, vlast)], f_bias[min(vids.w, vlast)]);

  var best = vec4f(0.0);
  var best_t = vec4u(NO_TOKEN);
  for (var t0 = 0u; t0 < T; t0 += 4u) {
    let ts = vec4u(t0, t0 + 1u, t0 + 2u, t0 + 3u);
    let tc = min(ts, vec4u(T - 1u));
    let live = (ts < vec4u(T)) &
      vec4<bool>(f_mask[b * T + tc.x] != 0u, f_mask[b * T + tc.y] != 0u, f_mask[b * T + tc.z] != 0u, f_mask[b * T + tc.w] != 0u);
    if (!any(live)) {
      continue;
    }
    let h0 = (b * T + tc.x) * D4;
    let h1 = (b * T + tc.y) * D4;
    let h2 = (b * T + tc.z) * D4;
    let h3 = (b * T + tc.w) * D4;
    // acc_i[j] = logit of token t0 + i against vocabulary id vids[j]
    var acc0 = vec4f(0.0);
    var acc1 = vec4f(0.0);
    var acc2 = vec4f(0.0);
    var acc3 = vec4f(0.0);
    for (var k = 0u; k < D4; k++) {
      let a = f_weight[w0 + k];
      let bb = f_weight[w1 + k];
      let c = f_weight[w2 + k];
      let e = f_weight[w3 + k];
      let x0 = f_hidden[h0 + k];
      let x1 = f_hidden[h1 + k];
      let x2 = f_hidden[h2 + k];
      let x3 = f_hidden[h3 + k];
      acc0 += vec4f(dot(x0, a), dot(x0, bb), dot(x0, c), dot(x0, e));
      acc1 += vec4f(dot(x1, a), dot(x1, bb), dot(x1, c), dot(x1, e));
      acc2 += vec4f(dot(x2, a), dot(x2, bb), dot(x2, c), dot(x2, e));
      acc3 += vec4f(dot(x3, a), dot(x3, bb), dot(x3, c), dot(x3, e));
    }
    // in token order, so that a later equal logit never replaces an earlier one
    var l = acc0 + bias;
    var up = vec4<bool>(live.x) & (l > best);
    best = select(best, l, up);
    best_t = select(best_t, vec4u(ts.x), up);
    l = acc1 + bias;
    up = vec4<bool>(live.y) & (l > best);
    best = select(best, l, up);
    best_t = select(best_t, vec4u(ts.y), up);
    l = acc2 + bias;
    up = vec4<bool>(live.z) & (l > best);
    best = select(best, l, up);
    best_t = select(best_t, vec4u(ts.z), up);
    l = acc3 + bias;
    up = vec4<bool>(live.w) & (l > best);
    best = select(best, l, up);
    best_t = select(best_t, vec4u(ts.w), up);
  }
  for (var j = 0u; j < 4u; j++) {
    if (vids[j] < chunk.v_end) {
      f_pooled[b * dims.V + vids[j]] = log1p_pos(best[j]);
      f_argmax[b * dims.V + vids[j]] = best_t[j];
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Forward, GPU-shaped: the same outputs (and the same vocabulary ids per invocation), but the workgroup stages slices
// of W (its 4 * FWD_WG rows x FWD_TK columns) and of H (FWD_TT tokens x FWD_TK) in workgroup memory with loads that
// follow memory order, and each invocation keeps a FWD_TT x 4 block of logits in registers, so a row of W is read
// from storage once per FWD_TT tokens instead of once per 4, never with the stride of d between neighbours. Tokens
// are still taken in order with a strict '>' (ties keep the lowest token), and tiles past the sequence's last real
// token are skipped (right padding).

const FWD_TT = 8u;  // tokens per tile
const FWD_TK = 8u;  // columns of d per staged slice

var<workgroup> w_tile: array<f32, 4u * FWD_WG * FWD_TK>;  // (4 * FWD_WG rows of W, FWD_TK)
var<workgroup> h_tile: array<f32, FWD_TT * FWD_TK>;       // (FWD_TT tokens, FWD_TK)
var<workgroup> t_end: u32;                                 // 1 + the sequence's last real token

/** Element i of a vec4-typed row-major array: the shader reads W and H as vec4s; d is a multiple of 4. */
fn weight_at(i: u32) -> f32 { return f_weight[i / 4u][i % 4u]; }
fn hidden_at(i: u32) -> f32 { return f_hidden[i / 4u][i % 4u]; }

@compute @workgroup_size(FWD_WG)
fn head_forward_tiled(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let b = chunk.b0 + wid.y;
  let D = dims.D;
  let T = dims.T;
  let vtile = chunk.v0 + wid.x * FWD_WG * 4u;
  let vids = vec4u(vtile + lid, vtile + lid + FWD_WG, vtile + lid + 2u * FWD_WG, vtile + lid + 3u * FWD_WG);
  let vlast = chunk.v_end - 1u;
  let bias = vec4f(f_bias[min(vids.x, vlast)], f_bias[min(vids.y, vlast)], f_bias[min(vids.z, vlast)], f_bias[min(vids.w, vlast)]);
  if (lid == 0u) {
    var end = 0u;
    for (var t = 0u; t < T; t++) { if (f_mask[b * T + t] != 0u) { end = t + 1u; } }
    t_end = end;
  }
  let live_end = workgroupUniformLoad(&t_end);

  var best = vec4f(0.0);
  var best_t = vec4u(NO_TOKEN);
  for (var t0 = 0u; t0 < live_end; t0 += FWD_TT) {
    var acc: array<vec4f, FWD_TT>;
    for (var r = 0u; r < FWD_TT; r++) { acc[r] = vec4f(0.0); } // explicitly: each tile starts from zero
    for (var k0 = 0u; k0 < D; k0 += FWD_TK) {
      for (var i = lid; i < 4u * FWD_WG * FWD_TK; i += FWD_WG) {
        let row = min(vtile + i / FWD_TK, vlast);
        let k = k0 + i % FWD_TK; // past d (d a multiple of 4, not of FWD_TK): a zero column
        w_tile[i] = select(0.0, weight_at((row - chunk.w0) * D + min(k, D - 1u)), k < D);
      }
      for (var i = lid; i < FWD_TT * FWD_TK; i += FWD_WG) {
        let t = min(t0 + i / FWD_TK, T - 1u);
        let k = k0 + i % FWD_TK;
        h_tile[i] = select(0.0, hidden_at((b * T + t) * D + min(k, D - 1u)), k < D);
      }
      workgroupBarrier();
      for (var kk = 0u; kk < FWD_TK; kk++) {
        let w = vec4f(
          w_tile[lid * FWD_TK + kk],
          w_tile[(lid + FWD_WG) * FWD_TK + kk],
          w_tile[(lid + 2u * FWD_WG) * FWD_TK + kk],
          w_tile[(lid + 3u * FWD_WG) * FWD_TK + kk],
        );
        for (var r = 0u; r < FWD_TT; r++) { acc[r] += h_tile[r * FWD_TK + kk] * w; }
      }
      workgroupBarrier();
    }
    for (var r = 0u; r < FWD_TT; r++) {
      let t = t0 + r;
      let live = t < T && f_mask[b * T + min(t, T - 1u)] != 0u;
      let l = acc[r] + bias;
      let up = vec4<bool>(live) & (l > best);
      best = select(best, l, up);
      best_t = select(best_t, vec4u(t), up);
    }
  }
  for (var j = 0u; j < 4u; j++) {
    if (vids[j] < chunk.v_end) {
      f_pooled[b * dims.V + vids[j]] = log1p_pos(best[j]);
      f_argmax[b * dims.V + vids[j]] = best_t[j];
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Backward, step 1: bucket each sequence's vocabulary ids by argmax token with a stable counting sort, one workgroup
// per sequence and no atomics. Invocation i owns the contiguous slice i of V and its own row of per-token counters
// (cursor[b, i, :]); a bucket then lists slice 0's ids, then slice 1's, ...: ascending v, the same on every run.
// Four barriers in all, O(V + SORT_WG * T) work per sequence.

override SORT_WG: u32 = 64;

@group(0) @binding(1) var<storage, read> s_argmax: array<u32>;           // (B, V)
@group(0) @binding(2) var<storage, read_write> s_offsets: array<u32>;    // (B, T): bucket ends
@group(0) @binding(3) var<storage, read_write> s_order: array<u32>;      // (B, V)
@group(0) @binding(4) var<storage, read_write> s_cursor: array<u32>;     // (B, SORT_WG, T) scratch

var<workgroup> partial: array<u32, SORT_WG>;

@compute @workgroup_size(SORT_WG)
fn head_bucket(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let b = wid.x;
  let T = dims.T;
  let V = dims.V;
  let slice = (V + SORT_WG - 1u) / SORT_WG;
  let v0 = min(lid * slice, V);
  let v1 = min(v0 + slice, V);
  let mine = (b * SORT_WG + lid) * T; // this invocation's counters
  // 1. count my slice per token
  for (var t = 0u; t < T; t++) {
    s_cursor[mine + t] = 0u;
  }
  for (var v = v0; v < v1; v++) {
    let t = s_argmax[b * V + v];
    if (t < T) { s_cursor[mine + t] += 1u; }
  }
  storageBarrier();
  // 2. per token: exclusive prefix over slices; the token's total goes to offsets
  for (var t = lid; t < T; t += SORT_WG) {
    var run = 0u;
    for (var i = 0u; i < SORT_WG; i++) {
      let at = (b * SORT_WG + i) * T + t;
      let c = s_cursor[at];
      s_cursor[at] = run;
      run += c;
    }
    s_offsets[b * T + t] = run;
  }
  storageBarrier();
  // 3. inclusive prefix of the totals over tokens: invocation lid scans a contiguous span, thread 0 the span sums
  let span = (T + SORT_WG - 1u) / SORT_WG;
  let lo = min(lid * span, T);
  let hi = min(lo + span, T);
  var total = 0u;
  for (var t = lo; t < hi; t++) {
    total += s_offsets[b * T + t];
  }
  partial[lid] = total;
  workgroupBarrier();
  if (lid == 0u) {
    var run = 0u;
    for (var i = 0u; i < SORT_WG; i++) {
      let c = partial[i];
      partial[i] = run;
      run += c;
    }
  }
  workgroupBarrier();
  var run = partial[lid];
  for (var t = lo; t < hi; t++) {
    run += s_offsets[b * T + t];
    s_offsets[b * T + t] = run;
  }
  storageBarrier();
  // 4. counters become absolute cursors (bucket start + earlier slices' share)
  for (var t = lid; t < T; t += SORT_WG) {
    var start = 0u;
    if (t > 0u) { start = s_offsets[b * T + t - 1u]; }
    for (var i = 0u; i < SORT_WG; i++) {
      s_cursor[(b * SORT_WG + i) * T + t] += start;
    }
  }
  storageBarrier();
  // 5. scatter my slice in order
  for (var v = v0; v < v1; v++) {
    let t = s_argmax[b * V + v];
    if (t < T) {
      let at = s_cursor[mine + t];
      s_order[b * V + at] = v;
      s_cursor[mine + t] = at + 1u;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Backward, step 2: dhidden[b, t, :] += sum over v in bucket (b, t) of dlogit[b, v] * weight[v, :].
// Each invocation owns one vec4 of one dhidden row (b, t): grid (ceil(T * d/4 / BWD_WG), B). Neighbouring
// invocations read neighbouring vec4 of the same weight row; the bucket walk is in ascending v.

override BWD_WG: u32 = 64;

@group(0) @binding(1) var<storage, read> h_dpooled: array<f32>;          // (B, V)
@group(0) @binding(2) var<storage, read> h_pooled: array<f32>;           // (B, V)
@group(0) @binding(3) var<storage, read> h_offsets: array<u32>;          // (B, T)
@group(0) @binding(4) var<storage, read> h_order: array<u32>;            // (B, V)
@group(0) @binding(5) var<storage, read> h_weight: array<vec4f>;         // (v_end - w0, d/4): rows w0.. of W
@group(0) @binding(6) var<storage, read_write> h_dhidden: array<vec4f>;  // (B, T, d/4)

fn dlogit(dp: f32, p: f32) -> f32 {
  return select(0.0, dp * exp(-p), p > 0.0);
}

@compute @workgroup_size(BWD_WG)
fn head_backward_hidden(@builtin(global_invocation_id) gid: vec3u) {
  let D4 = dims.D / 4u;
  let T = dims.T;
  let V = dims.V;
  let b = gid.y;
  let t = gid.x / D4;
  let k = gid.x % D4;
  if (t >= T) { return; }
  var start = 0u;
  if (t > 0u) { start = h_offsets[b * T + t - 1u]; }
  let end = h_offsets[b * T + t];
  var acc = vec4f(0.0);
  for (var i = start; i < end; i++) {
    let v = h_order[b * V + i];
    if (v < chunk.w0 || v >= chunk.v_end) { continue; } // another part's row
    acc += dlogit(h_dpooled[b * V + v], h_pooled[b * V + v]) * h_weight[(v - chunk.w0) * D4 + k];
  }
  h_dhidden[(b * T + t) * D4 + k] += acc;
}

// ---------------------------------------------------------------------------------------------------------------
// Backward, step 3: dweight[v, :] += sum_b dlogit[b, v] * hidden[b, argmax[b, v], :];  dbias[v] += sum_b dlogit[b, v].
// Each invocation owns one vec4 of one dweight row (the first of a row also owns dbias[v]), b summed in order.
// Grid: (v_end - w0) * d/4 invocations per weight part, BWD_WG per workgroup, folded into y past the per-dimension limit. A caller that wants
// only one of the two gradients switches the other off, and binds a small unused buffer in its place.

/** Write dweight (false: the caller asked for dbias only and bound a small unused buffer at w_dweight, never written). */
override HAS_DWEIGHT: bool = true;
/** Write dbias (false: the caller asked for dweight only and bound a small unused buffer at w_dbias, never written). */
override HAS_DBIAS: bool = true;

@group(0) @binding(1) var<storage, read> w_dpooled: array<f32>;          // (B, V)
@group(0) @binding(2) var<storage, read> w_pooled: array<f32>;           // (B, V)
@group(0) @binding(3) var<storage, read> w_argmax: array<u32>;           // (B, V)
@group(0) @binding(4) var<storage, read> w_hidden: array<vec4f>;         // (B, T, d/4)
@group(0) @binding(5) var<storage, read_write> w_dweight: array<vec4f>;  // (v_end - w0, d/4): rows w0.. of dW
@group(0) @binding(6) var<storage, read_write> w_dbias: array<f32>;      // (V)

@compute @workgroup_size(BWD_WG)
fn head_backward_weight(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) groups: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let D4 = dims.D / 4u;
  let T = dims.T;
  let V = dims.V;
  let index = workgroup_index(wid, groups) * BWD_WG + lid;
  let v = chunk.w0 + index / D4;
  let k = index % D4;
  if (v >= chunk.v_end) { return; }
  var acc = vec4f(0.0);
  var acc_bias = 0.0;
  for (var b = 0u; b < dims.B; b++) {
    let t = w_argmax[b * V + v];
    if (t < T) {
      let g = dlogit(w_dpooled[b * V + v], w_pooled[b * V + v]);
      acc += g * w_hidden[(b * T + t) * D4 + k];
      acc_bias += g;
    }
  }
  if (HAS_DWEIGHT) { w_dweight[index] += acc; }
  if (HAS_DBIAS && k == 0u) { w_dbias[v] += acc_bias; }
}
