// MLM-head statistics on the GPU: per-row L2 norms (divided by k), exact sort, summary, histogram,
// anisotropy over sampled row pairs; and the in-place division W <- W / k.

struct Params {
  V: u32,          // rows of the head
  d: u32,          // hidden size
  padded: u32,     // V rounded up to a power of two (sort length)
  bins: u32,       // histogram bins
  pairs: u32,      // sampled row pairs for anisotropy
  divisor: f32,    // k: norms are of W / k
  lo: f32,         // histogram range
  hi: f32,
  logBins: u32,    // 1: bins evenly spaced in log(norm)
}

// WORKGROUP (shaders/prelude.wgsl): invocations per workgroup.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> weight: array<f32>;     // (V, d)
@group(0) @binding(2) var<storage, read_write> sorted: array<f32>;     // (padded) norms, sorted ascending by head_sort
@group(0) @binding(3) var<storage, read_write> stats: array<f32>;      // mean, std, min, max, p50, p90, p99, anisotropy
@group(0) @binding(4) var<storage, read_write> histogram: array<u32>;  // (bins)
@group(0) @binding(5) var<storage, read> pairs: array<u32>;            // (pairs, 2)

const PAD_VALUE = 3.4e38;

// sorted[v] = ||W[v]|| / k for v < V; padding sorts last.
@compute @workgroup_size(WORKGROUP)
fn head_row_norms(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let v = global_index(id, groups);
  if (v >= params.padded) { return; }
  if (v >= params.V) { sorted[v] = PAD_VALUE; return; }
  var s = 0.0;
  for (var c = 0u; c < params.d; c++) {
    let w = weight[v * params.d + c] / params.divisor;
    s += w * w;
  }
  sorted[v] = sqrt(s);
}

// Bitonic sort of `sorted` in one workgroup (padded is a power of two); exact, so percentiles are exact.
@compute @workgroup_size(WORKGROUP)
fn head_sort(@builtin(local_invocation_index) lane: u32) {
  let n = params.padded;
  for (var size = 2u; size <= n; size *= 2u) {
    for (var stride = size / 2u; stride > 0u; stride /= 2u) {
      for (var i = lane; i < n; i += WORKGROUP) {
        let j = i ^ stride;
        if (j > i) {
          let ascending = (i & size) == 0u;
          let a = sorted[i];
          let b = sorted[j];
          if ((a > b) == ascending) {
            sorted[i] = b;
            sorted[j] = a;
          }
        }
      }
      storageBarrier();
      workgroupBarrier();
    }
  }
}

fn percentile(q: f32) -> f32 {
  let position = q * f32(params.V - 1u);
  let lower = u32(floor(position));
  let upper = min(lower + 1u, params.V - 1u);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - f32(lower));
}

// One workgroup: mean and (population) std in fixed-order sums; min, max and percentiles from the sorted norms.
@compute @workgroup_size(WORKGROUP)
fn head_summary(@builtin(local_invocation_index) lane: u32) {
  var s = 0.0;
  for (var v = lane; v < params.V; v += WORKGROUP) { s += sorted[v]; }
  let mean = workgroup_sum(lane, s) / f32(params.V);
  var sq = 0.0;
  for (var v = lane; v < params.V; v += WORKGROUP) { sq += (sorted[v] - mean) * (sorted[v] - mean); }
  let variance = workgroup_sum(lane, sq) / f32(params.V);
  if (lane == 0u) {
    stats[0] = mean;
    stats[1] = sqrt(variance);
    stats[2] = sorted[0];
    stats[3] = sorted[params.V - 1u];
    stats[4] = percentile(0.5);
    stats[5] = percentile(0.9);
    stats[6] = percentile(0.99);
  }
}

// Bin of a norm: -1 below the range, `bins` above it, else floor((x - a) / (b - a) · bins), the top edge in the last bin.
// Monotone in the norm, so each bin's count is a difference of two binary searches over the sorted norms.
fn bin_of(norm: f32) -> i32 {
  var x = norm;
  var a = params.lo;
  var b = params.hi;
  if (params.logBins == 1u) { x = log(max(norm, 1e-30)); a = log(params.lo); b = log(params.hi); }
  if (x < a) { return -1; }
  if (x > b) { return i32(params.bins); }
  return min(i32(params.bins) - 1, i32(floor((x - a) / (b - a) * f32(params.bins))));
}

// First index of the sorted norms whose bin is >= `bin`.
fn first_at_or_above(bin: i32) -> u32 {
  var lo = 0u;
  var hi = params.V;
  while (lo < hi) {
    let mid = (lo + hi) / 2u;
    if (bin_of(sorted[mid]) < bin) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}

@compute @workgroup_size(WORKGROUP)
fn head_histogram(@builtin(global_invocation_id) id: vec3u) {
  let bin = id.x;
  if (bin >= params.bins) { return; }
  histogram[bin] = first_at_or_above(i32(bin) + 1) - first_at_or_above(i32(bin));
}

// One workgroup: stats[7] = mean cosine similarity over the sampled pairs of rows (zero rows count as 0).
@compute @workgroup_size(WORKGROUP)
fn head_anisotropy(@builtin(local_invocation_index) lane: u32) {
  var total = 0.0;
  for (var p = lane; p < params.pairs; p += WORKGROUP) {
    let i = pairs[2u * p];
    let j = pairs[2u * p + 1u];
    var dot = 0.0;
    var ni = 0.0;
    var nj = 0.0;
    for (var c = 0u; c < params.d; c++) {
      let a = weight[i * params.d + c];
      let b = weight[j * params.d + c];
      dot += a * b;
      ni += a * a;
      nj += b * b;
    }
    if (ni > 0.0 && nj > 0.0) { total += dot / sqrt(ni * nj); }
  }
  let sum = workgroup_sum(lane, total);
  if (lane == 0u) { stats[7] = sum / f32(max(params.pairs, 1u)); }
}

// W <- W / k, in place.
@compute @workgroup_size(WORKGROUP)
fn head_rescale(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = global_index(id, groups);
  if (i >= params.V * params.d) { return; }
  weight[i] = weight[i] / params.divisor;
}
