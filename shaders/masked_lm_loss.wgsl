// Masked-LM cross-entropy over the vocabulary, only where a label is set, and its backward: never B x T x V. The
// logits h·W_vᵀ + b_v are recomputed in each pass from the hidden states, the decoder (in row parts) and the stored
// per-position running max and sum of the online log-sum-exp; every sum has a fixed order (no float atomics). A pass
// may come in several dispatches (pieces of positions or rows under the work budget), each starting at item0.

struct Params {
  positions: u32,  // B·T
  d: u32,          // width of hidden and decoder rows (at most MAX_D)
  row0: u32,       // this part's first vocabulary id
  rows: u32,       // this part's rows
  first: u32,      // 1 for the first part of a forward: the running statistics start here
  slot: u32,       // where the loss goes in `losses`
  scale: f32,      // weight of this loss in the total (applied to gradients only)
  item0: u32,      // this dispatch's first predicted position (forward, dhidden) or row of the part (dweight)
}

/** Widest decoder row: ModernBERT-large's 1024 (the wrapper refuses wider ones). */
const MAX_D: u32 = 1024u;
/** Components of a row each invocation accumulates: MAX_D / WORKGROUP (WORKGROUP = 64). */
const PER_LANE: u32 = 16u;
/** The label of a position that is not predicted. */
const IGNORED: i32 = -100;
/** Running statistics per predicted position: max, sum, target logit, best logit (its id is in best_ids). */
const STATS: u32 = 4u;

@group(0) @binding(0) var<uniform> params: Params;

var<workgroup> row_cache: array<f32, MAX_D>;
var<workgroup> chunk_g: array<f32, 64>;
var<workgroup> chunk_index: array<u32, 64>;
var<workgroup> shared_count: u32;

// ---------------------------------------------------------------------------------------------------------------
// Compaction: the labelled positions in order, and their count (one workgroup).

@group(0) @binding(1) var<storage, read> c_labels: array<i32>;           // (B·T): an id in [0, V), or IGNORED
@group(0) @binding(2) var<storage, read_write> c_targets: array<vec2u>;  // (B·T): (position, label), labelled first
@group(0) @binding(3) var<storage, read_write> c_counts: array<u32>;     // [0] := predicted positions

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
    if (c_labels[p] != IGNORED) {
      c_targets[at] = vec2u(p, u32(c_labels[p]));
      at++;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Forward over one part of the vocabulary: one workgroup per predicted position, merged into its running statistics.

@group(0) @binding(1) var<storage, read> hidden: array<f32>;     // (B·T, d)
@group(0) @binding(2) var<storage, read> weight: array<f32>;     // (rows, d): this part
@group(0) @binding(3) var<storage, read> bias: array<f32>;       // (V)
@group(0) @binding(4) var<storage, read> targets: array<vec2u>; // (B·T): (position, label) of the predicted ones
@group(0) @binding(5) var<storage, read> counts: array<u32>;     // [0]: predicted positions
@group(0) @binding(6) var<storage, read_write> stats: array<f32>; // (B·T, STATS)
@group(0) @binding(7) var<storage, read_write> best_ids: array<u32>; // (B·T): id of the best logit so far

/** The number of predicted positions, as a value uniform over the workgroup. */
fn predicted_count(lane: u32) -> u32 {
  if (lane == 0u) { shared_count = counts[0]; }
  return workgroupUniformLoad(&shared_count);
}

/** Copies row `base` .. base + d of `source` (hidden or weight) into row_cache. */
fn cache_hidden_row(lane: u32, base: u32) {
  for (var j = lane; j < params.d; j += WORKGROUP) { row_cache[j] = hidden[base + j]; }
  workgroupBarrier();
}

/** row_cache · weight row r (this part's numbering) + its bias. */
fn logit_of_row(r: u32) -> f32 {
  let d = params.d;
  var dot = 0.0;
  for (var j = 0u; j < d; j++) { dot += row_cache[j] * weight[r * d + j]; }
  return dot + bias[params.row0 + r];
}

/** Lowest vocabulary id among lanes whose best logit equals `best` (0xffffffff from the others). */
fn workgroup_min_u32(lane: u32, value: u32) -> u32 {
  reduce_u32[lane] = value;
  workgroupBarrier();
  for (var stride = WORKGROUP / 2u; stride > 0u; stride /= 2u) {
    if (lane < stride) { reduce_u32[lane] = min(reduce_u32[lane], reduce_u32[lane + stride]); }
    workgroupBarrier();
  }
  let total = reduce_u32[0];
  workgroupBarrier();
  return total;
}

@compute @workgroup_size(WORKGROUP)
fn mlm_forward(
  @builtin(local_invocation_index) lane: u32,
  @builtin(workgroup_id) group: vec3u,
  @builtin(num_workgroups) groups: vec3u,
) {
  let i = params.item0 + workgroup_index(group, groups);
  let M = predicted_count(lane);
  if (i >= M) { return; }
  let pos = targets[i].x;
  cache_hidden_row(lane, pos * params.d);
  var m = -3.0e38;
  var s = 0.0;
  var best = -3.0e38;
  var bestId = 0xffffffffu;
  for (var r = lane; r < params.rows; r += WORKGROUP) {
    let logit = logit_of_row(r);
    if (logit > m) {
      s = s * exp(m - logit) + 1.0;
      m = logit;
    } else {
      s += exp(logit - m);
    }
    if (logit > best) {
      best = logit;
      bestId = params.row0 + r;
    }
  }
  let partMax = workgroup_max(lane, m);
  let partSum = workgroup_sum(lane, s * exp(m - partMax));
  let partBest = workgroup_max(lane, best);
  let partBestId = workgroup_min_u32(lane, select(0xffffffffu, bestId, best == partBest));
  if (lane != 0u) { return; }
  let label = targets[i].y;
  let at = i * STATS;
  let inPart = label >= params.row0 && label < params.row0 + params.rows;
  var labelLogit = 0.0;
  if (inPart) { labelLogit = logit_of_row(label - params.row0); }
  if (params.first == 1u) {
    stats[at] = partMax;
    stats[at + 1u] = partSum;
    stats[at + 2u] = labelLogit;
    stats[at + 3u] = partBest;
    best_ids[i] = partBestId;
    return;
  }
  let oldMax = stats[at];
  let newMax = max(oldMax, partMax);
  stats[at] = newMax;
  stats[at + 1u] = stats[at + 1u] * exp(oldMax - newMax) + partSum * exp(partMax - newMax);
  if (inPart) { stats[at + 2u] = labelLogit; }
  // parts come in increasing id order: a later part's best replaces only a strictly larger one (lowest id on ties)
  if (partBest > stats[at + 3u]) {
    stats[at + 3u] = partBest;
    best_ids[i] = partBestId;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The loss (mean over predicted positions), the count of right predictions, the mean largest logit (one workgroup).

@group(0) @binding(1) var<storage, read> l_targets: array<vec2u>;
@group(0) @binding(2) var<storage, read_write> l_counts: array<u32>;  // [1] := right predictions
@group(0) @binding(3) var<storage, read> l_stats: array<f32>;
@group(0) @binding(4) var<storage, read_write> losses: array<f32>;
@group(0) @binding(5) var<storage, read_write> measures: array<f32>;  // [0] := mean largest logit
@group(0) @binding(6) var<storage, read> l_best_ids: array<u32>;

@compute @workgroup_size(WORKGROUP)
fn mlm_loss(@builtin(local_invocation_index) lane: u32) {
  if (lane == 0u) { shared_count = l_counts[0]; }
  let M = workgroupUniformLoad(&shared_count);
  var loss = 0.0;
  var largest = 0.0;
  var right = 0u;
  for (var i = lane; i < M; i += WORKGROUP) {
    let at = i * STATS;
    loss += l_stats[at] + log(l_stats[at + 1u]) - l_stats[at + 2u];
    largest += l_stats[at + 3u];
    if (l_best_ids[i] == l_targets[i].y) { right++; }
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

// ---------------------------------------------------------------------------------------------------------------
// Backward to the hidden states over one part: dhidden[pos] += scale / M · Σ_v (p_v - [v = label]) W_v.

@group(0) @binding(7) var<storage, read_write> dhidden: array<f32>;  // (B·T, d), accumulated into

/** (softmax - one-hot) of row r at predicted position i, times scale / M. */
fn logit_gradient(logit: f32, i: u32, v: u32, label: u32, M: u32) -> f32 {
  let lse = stats[i * STATS] + log(stats[i * STATS + 1u]);
  let y = select(0.0, 1.0, v == label);
  return (exp(logit - lse) - y) * params.scale / f32(M);
}

@compute @workgroup_size(WORKGROUP)
fn mlm_dhidden(
  @builtin(local_invocation_index) lane: u32,
  @builtin(workgroup_id) group: vec3u,
  @builtin(num_workgroups) groups: vec3u,
) {
  let i = params.item0 + workgroup_index(group, groups);
  let M = predicted_count(lane);
  if (i >= M) { return; }
  let pos = targets[i].x;
  let label = targets[i].y;
  let d = params.d;
  cache_hidden_row(lane, pos * d);
  var acc: array<f32, PER_LANE>;
  for (var c = 0u; c < params.rows; c += WORKGROUP) {
    let r = c + lane;
    var g = 0.0;
    if (r < params.rows) { g = logit_gradient(logit_of_row(r), i, params.row0 + r, label, M); }
    chunk_g[lane] = g;
    workgroupBarrier();
    let n = min(WORKGROUP, params.rows - c);
    for (var k = 0u; k < PER_LANE; k++) {
      let j = lane + k * WORKGROUP;
      if (j >= d) { break; }
      var sum = 0.0;
      for (var q = 0u; q < n; q++) { sum += chunk_g[q] * weight[(c + q) * d + j]; }
      acc[k] += sum;
    }
    workgroupBarrier();
  }
  for (var k = 0u; k < PER_LANE; k++) {
    let j = lane + k * WORKGROUP;
    if (j >= d) { break; }
    dhidden[pos * d + j] += acc[k];
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Backward to one part's decoder rows and their biases: dW_v += scale / M · Σ_i (p_iv - [v = label_i]) h_i.

@group(0) @binding(7) var<storage, read_write> dweight: array<f32>;  // (rows, d): this part, accumulated into
@group(0) @binding(8) var<storage, read_write> dbias: array<f32>;    // (V), accumulated into

@compute @workgroup_size(WORKGROUP)
fn mlm_dweight(
  @builtin(local_invocation_index) lane: u32,
  @builtin(workgroup_id) group: vec3u,
  @builtin(num_workgroups) groups: vec3u,
) {
  let r = params.item0 + workgroup_index(group, groups);
  let M = predicted_count(lane);
  if (r >= params.rows || M == 0u) { return; }
  let d = params.d;
  let v = params.row0 + r;
  for (var j = lane; j < d; j += WORKGROUP) { row_cache[j] = weight[r * d + j]; }
  workgroupBarrier();
  var acc: array<f32, PER_LANE>;
  var gsum = 0.0;
  for (var c = 0u; c < M; c += WORKGROUP) {
    let i = c + lane;
    var g = 0.0;
    var pos = 0u;
    if (i < M) {
      let pair = targets[i];
      pos = pair.x;
      var dot = 0.0;
      for (var j = 0u; j < d; j++) { dot += row_cache[j] * hidden[pos * d + j]; }
      g = logit_gradient(dot + bias[v], i, v, pair.y, M);
    }
    gsum += g;
    chunk_g[lane] = g;
    chunk_index[lane] = pos;
    workgroupBarrier();
    let n = min(WORKGROUP, M - c);
    for (var k = 0u; k < PER_LANE; k++) {
      let j = lane + k * WORKGROUP;
      if (j >= d) { break; }
      var sum = 0.0;
      for (var q = 0u; q < n; q++) { sum += chunk_g[q] * hidden[chunk_index[q] * d + j]; }
      acc[k] += sum;
    }
    workgroupBarrier();
  }
  for (var k = 0u; k < PER_LANE; k++) {
    let j = lane + k * WORKGROUP;
    if (j >= d) { break; }
    dweight[r * d + j] += acc[k];
  }
  let total = workgroup_sum(lane, gsum);
  if (lane == 0u) { dbias[v] += total; }
}
