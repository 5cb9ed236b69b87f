// Masked-LM cross-entropy over the vocabulary, only where a label is set, and its backward, never B x T x V: the
// labelled rows are gathered (M x d); the vocabulary is walked in chunks of C ids whose logits (M x C) the matmul
// kernels compute; these passes keep each row's online log-sum-exp, turn a chunk's logits into their gradient, and
// add the chunk's bias gradient. Every sum has a fixed order (no float atomics): results repeat bit for bit.

struct Params {
  rows: u32,       // Mb: rows of the gathered block (labelled rows first, then zero rows)
  d: u32,          // width of hidden and decoder rows
  columns: u32,    // C: ids of this chunk
  v0: u32,         // the chunk's first vocabulary id
  first: u32,      // 1 for the first chunk of a forward: the running statistics start here
  slot: u32,       // where the loss goes in `losses`
  scale: f32,      // weight of this loss in the total (applied to gradients only)
  positions: u32,  // B·T
}

/** The label of a position that is not predicted. */
const IGNORED: i32 = -100;
/** Running statistics per predicted row: max, sum, label logit, best logit (its id is in best_ids). */
const STATS: u32 = 4u;

@group(0) @binding(0) var<uniform> params: Params;

var<workgroup> shared_count: u32;

// ---------------------------------------------------------------------------------------------------------------
// Compaction: the labelled positions in order with their labels, and their count (one workgroup).

@group(0) @binding(1) var<storage, read> c_labels: array<i32>;          // (B·T)
@group(0) @binding(2) var<storage, read_write> c_rows: array<vec2u>;    // (B·T): position, label
@group(0) @binding(3) var<storage, read_write> c_counts: array<u32>;    // [0] := M

@compute @workgroup_size(WORKGROUP)
fn mlm_compact(@builtin(local_invocation_index) lane: u32) {
  let n = params.positions;
  let segment = (n + WORKGROUP - 1u) / WORKGROUP;
  let begin = min(lane * segment, n);
  let end = min(begin + segment, n);
  var mine = 0u;
  for (var p = begin; p < end; p++) { if (c_labels[p] != IGNORED) { mine++; } }
  reduce_u32[lane] = mine;
  workgroupBarrier();
  if (lane == 0u) {
    var running = 0u;
    for (var i = 0u; i < WORKGROUP; i++) {
      let count = reduce_u32[i];
      reduce_u32[i] = running;
      running += count;
    }
    c_counts[0] = running;
  }
  workgroupBarrier();
  var at = reduce_u32[lane];
  for (var p = begin; p < end; p++) {
    let label = c_labels[p];
    if (label != IGNORED) {
      c_rows[at] = vec2u(p, u32(label));
      at++;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Gather and scatter between the (B·T, d) hidden states and the gathered (Mb, d) block: one invocation per element.

@group(0) @binding(1) var<storage, read> g_rows: array<vec2u>;
@group(0) @binding(2) var<storage, read> g_counts: array<u32>;
@group(0) @binding(3) var<storage, read> g_hidden: array<f32>;          // (B·T, d)
@group(0) @binding(4) var<storage, read_write> g_block: array<f32>;     // (Mb, d)

@compute @workgroup_size(WORKGROUP)
fn mlm_gather(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let e = global_index(id, groups);
  let d = params.d;
  if (e >= params.rows * d) { return; }
  let i = e / d;
  var value = 0.0;
  if (i < g_counts[0]) { value = g_hidden[g_rows[i].x * d + e % d]; }
  g_block[e] = value;
}

@group(0) @binding(1) var<storage, read> s_rows: array<vec2u>;
@group(0) @binding(2) var<storage, read> s_counts: array<u32>;
@group(0) @binding(3) var<storage, read> s_dblock: array<f32>;          // (Mb, d)
@group(0) @binding(4) var<storage, read_write> s_dhidden: array<f32>;   // (B·T, d), accumulated into

@compute @workgroup_size(WORKGROUP)
fn mlm_scatter(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let e = global_index(id, groups);
  let d = params.d;
  if (e >= params.rows * d) { return; }
  let i = e / d;
  // labelled positions are distinct: each element of dhidden has at most one writer
  if (i < s_counts[0]) { s_dhidden[s_rows[i].x * d + e % d] += s_dblock[e]; }
}

// ---------------------------------------------------------------------------------------------------------------
// One chunk's logits (Mb, C), without bias, into each labelled row's running statistics: one invocation per row.

@group(0) @binding(1) var<storage, read> rows: array<vec2u>;
@group(0) @binding(2) var<storage, read> counts: array<u32>;
@group(0) @binding(3) var<storage, read> bias: array<f32>;              // (V)
@group(0) @binding(4) var<storage, read_write> stats: array<f32>;      // (B·T, STATS)
@group(0) @binding(5) var<storage, read_write> best_ids: array<u32>;   // (B·T)
@group(0) @binding(6) var<storage, read_write> logits: array<f32>;     // (Mb, C): logits, then their gradient

@compute @workgroup_size(WORKGROUP)
fn mlm_chunk_stats(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = global_index(id, groups);
  if (i >= min(counts[0], params.rows)) { return; }
  let C = params.columns;
  let label = rows[i].y;
  var m = -3.0e38;
  var s = 0.0;
  var best = -3.0e38;
  var bestId = 0u;
  var labelLogit = 0.0;
  for (var j = 0u; j < C; j++) {
    let v = params.v0 + j;
    let logit = logits[i * C + j] + bias[v];
    if (logit > m) {
      s = s * exp(m - logit) + 1.0;
      m = logit;
    } else {
      s += exp(logit - m);
    }
    if (logit > best) {
      best = logit;
      bestId = v;
    }
    if (v == label) { labelLogit = logit; }
  }
  let at = i * STATS;
  let inChunk = label >= params.v0 && label < params.v0 + C;
  if (params.first == 1u) {
    stats[at] = m;
    stats[at + 1u] = s;
    stats[at + 2u] = labelLogit;
    stats[at + 3u] = best;
    best_ids[i] = bestId;
    return;
  }
  let oldMax = stats[at];
  let newMax = max(oldMax, m);
  stats[at] = newMax;
  stats[at + 1u] = stats[at + 1u] * exp(oldMax - newMax) + s * exp(m - newMax);
  if (inChunk) { stats[at + 2u] = labelLogit; }
  // chunks come in increasing id order: a later best replaces only a strictly larger one (lowest id on ties)
  if (best > stats[at + 3u]) {
    stats[at + 3u] = best;
    best_ids[i] = bestId;
  }
}

/** One element of a chunk: its logit becomes scale / M · (softmax - one-hot); rows past M become 0. */
@compute @workgroup_size(WORKGROUP)
fn mlm_chunk_gradient(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let e = global_index(id, groups);
  let C = params.columns;
  if (e >= params.rows * C) { return; }
  let i = e / C;
  let M = min(counts[0], params.rows);
  var g = 0.0;
  if (i < M) {
    let v = params.v0 + e % C;
    let lse = stats[i * STATS] + log(stats[i * STATS + 1u]);
    let y = select(0.0, 1.0, v == rows[i].y);
    g = (exp(logits[e] + bias[v] - lse) - y) * params.scale / f32(M);
  }
  logits[e] = g;
}

@group(0) @binding(1) var<storage, read> b_counts: array<u32>;
@group(0) @binding(2) var<storage, read> b_gradient: array<f32>;        // (Mb, C)
@group(0) @binding(3) var<storage, read_write> dbias: array<f32>;      // (V), accumulated into

/** One column of a chunk's gradient summed over its rows into the bias gradient. */
@compute @workgroup_size(WORKGROUP)
fn mlm_chunk_dbias(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let j = global_index(id, groups);
  let C = params.columns;
  if (j >= C) { return; }
  let M = min(b_counts[0], params.rows);
  var sum = 0.0;
  for (var i = 0u; i < M; i++) { sum += b_gradient[i * C + j]; }
  dbias[params.v0 + j] += sum;
}

// ---------------------------------------------------------------------------------------------------------------
// The loss (mean over predicted rows), the count of right predictions, the mean largest logit (one workgroup).

@group(0) @binding(1) var<storage, read> l_rows: array<vec2u>;
@group(0) @binding(2) var<storage, read_write> l_counts: array<u32>;  // [1] := right predictions
@group(0) @binding(3) var<storage, read> l_stats: array<f32>;
@group(0) @binding(4) var<storage, read> l_best_ids: array<u32>;
@group(0) @binding(5) var<storage, read_write> losses: array<f32>;
@group(0) @binding(6) var<storage, read_write> measures: array<f32>;  // [0] := mean largest logit

@compute @workgroup_size(WORKGROUP)
fn mlm_loss(@builtin(local_invocation_index) lane: u32) {
  if (lane == 0u) { shared_count = min(l_counts[0], params.rows); }
  let M = workgroupUniformLoad(&shared_count);
  var loss = 0.0;
  var largest = 0.0;
  var right = 0u;
  for (var i = lane; i < M; i += WORKGROUP) {
    let at = i * STATS;
    loss += l_stats[at] + log(l_stats[at + 1u]) - l_stats[at + 2u];
    largest += l_stats[at + 3u];
    if (l_best_ids[i] == l_rows[i].y) { right++; }
  }
  let totals = workgroup_sum2(lane, vec2f(loss, largest));
  let rights = workgroup_sum_u32(lane, right);
  if (lane == 0u) {
    let n = f32(max(M, 1u));
    losses[params.slot] = totals.x / n;
    measures[0] = totals.y / n;
    l_counts[1] = rights;
  }
}
