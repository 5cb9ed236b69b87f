// MLM-head statistics on the GPU: per-row L2 norms (divided by k), exact sort, summary, histogram,
// anisotropy over sampled row pairs. (The division W <- W / k itself is shaders/head_divide.wgsl.)
//
// Portability: norms under k are norms of W · (1/k rounded once on the host), as shaders/head_divide.wgsl divides
// (Dawn compiles division as a reciprocal multiply on Metal and D3D12, so x / k would differ between devices;
// x · f32(1/k) is one correctly rounded product everywhere), and a cosine is dot · inverseSqrt(ni) · inverseSqrt(nj) (ni · nj of two tiny rows
// underflows to 0 in f32).
//
// Non-finite rows: a row holding an Inf or a NaN, or whose squared norm passes the f32 range, has no norm. It gets
// the key NO_NORM (the largest f32, which no measured norm reaches: a finite norm is at most sqrt of it), so the sort
// puts it after every finite norm, with the padding; the statistics cover the finite rows 0 .. F-1 of the sorted
// keys only, and stats[8] counts the others. With no finite row the summary is NaN, and so is the anisotropy when no
// sampled pair has two finite rows. `stats` is written as words, so that NaN is a stored bit pattern, never computed.

struct Params {
  V: u32,          // rows of the head
  d: u32,          // hidden size
  padded: u32,     // V rounded up to a power of two (sort length)
  bins: u32,       // histogram bins
  pairs: u32,      // sampled row pairs for anisotropy
  scale: f32,      // 1 / k, rounded on the host: norms are of W · scale
}

// WORKGROUP (shaders/prelude.wgsl): invocations per workgroup.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> weight: array<f32>;     // (V, d)
@group(0) @binding(2) var<storage, read_write> sorted: array<f32>;     // (padded) norms, sorted ascending by head_sort
@group(0) @binding(3) var<storage, read_write> stats: array<u32>;      // f32 bits: mean, std, min, max, p50, p90, p99,
                                                                       // anisotropy, non-finite rows (an exact count)
@group(0) @binding(4) var<storage, read_write> histogram: array<u32>;  // (bins)
@group(0) @binding(5) var<storage, read> pairs: array<u32>;            // (pairs, 2)
@group(0) @binding(6) var<storage, read> edges: array<f32>;            // (bins + 1) histogram edges, from the host

/** Sort key of a row without a norm, and of the padding: the largest finite f32. */
const NO_NORM = 3.4028234663852886e38;
const NAN_BITS = 0x7fc00000u;

/** ||W[row]|| / k, and whether the row is non-finite (an element Inf or NaN, or the norm out of f32 range). */
fn row_norm(row: u32) -> vec2f {
  var s = 0.0;
  var bad = false;
  for (var c = 0u; c < params.d; c++) {
    let x = weight[row * params.d + c];
    bad = bad || is_non_finite_bits(bitcast<u32>(x));
    let w = x * params.scale;
    s += w * w;
  }
  let norm = sqrt(s);
  bad = bad || is_non_finite_bits(bitcast<u32>(norm));
  return vec2f(norm, select(0.0, 1.0, bad));
}

// sorted[v] = ||W[v]|| / k for v < V, NO_NORM for a non-finite row; padding (NO_NORM) sorts last too.
@compute @workgroup_size(WORKGROUP)
fn head_row_norms(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let v = global_index(id, groups);
  if (v >= params.padded) { return; }
  if (v >= params.V) { sorted[v] = NO_NORM; return; }
  let r = row_norm(v);
  sorted[v] = select(r.x, NO_NORM, r.y != 0.0);
}

/** F: how many rows have a finite norm (the sorted keys before the first NO_NORM). */
fn finite_rows() -> u32 {
  var lo = 0u;
  var hi = params.V;
  while (lo < hi) {
    let mid = (lo + hi) / 2u;
    if (sorted[mid] < NO_NORM) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
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

/** Percentile q of the F finite sorted norms (linear interpolation between closest ranks). */
fn percentile(q: f32, F: u32) -> f32 {
  let position = q * f32(F - 1u);
  let lower = u32(floor(position));
  let upper = min(lower + 1u, F - 1u);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - f32(lower));
}

// One workgroup: mean and (population) std in fixed-order sums; min, max and percentiles from the sorted norms;
// all over the F finite rows only (NaN when F = 0), and the count V - F of the others.
@compute @workgroup_size(WORKGROUP)
fn head_summary(@builtin(local_invocation_index) lane: u32) {
  let F = finite_rows();
  var s = 0.0;
  for (var v = lane; v < F; v += WORKGROUP) { s += sorted[v]; }
  let mean = workgroup_sum(lane, s) / f32(F);
  var sq = 0.0;
  for (var v = lane; v < F; v += WORKGROUP) { sq += (sorted[v] - mean) * (sorted[v] - mean); }
  let variance = workgroup_sum(lane, sq) / f32(F);
  if (lane == 0u) {
    stats[8] = bitcast<u32>(f32(params.V - F));
    if (F == 0u) {
      for (var i = 0u; i < 7u; i++) { stats[i] = NAN_BITS; }
      return;
    }
    stats[0] = bitcast<u32>(mean);
    stats[1] = bitcast<u32>(sqrt(variance));
    stats[2] = bitcast<u32>(sorted[0]);
    stats[3] = bitcast<u32>(sorted[F - 1u]);
    stats[4] = bitcast<u32>(percentile(0.5, F));
    stats[5] = bitcast<u32>(percentile(0.9, F));
    stats[6] = bitcast<u32>(percentile(0.99, F));
  }
}

// Sorted finite norms (0 .. F-1) below `edge` (or at most `edge`, with `inclusive`): a binary search, so a bin's count
// is a difference of two searches against edges computed once on the host (no log or division here: the counts add
// up to the norms inside the range on every device).
fn count_below(edge: f32, inclusive: bool, F: u32) -> u32 {
  var lo = 0u;
  var hi = F;
  while (lo < hi) {
    let mid = (lo + hi) / 2u;
    let x = sorted[mid];
    if (x < edge || (inclusive && x == edge)) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}

// histogram[b] = norms in [edges[b], edges[b + 1]), the last bin holding its top edge too.
@compute @workgroup_size(WORKGROUP)
fn head_histogram(@builtin(global_invocation_id) id: vec3u) {
  let bin = id.x;
  if (bin >= params.bins) { return; }
  let F = finite_rows(); // rows without a norm are in no bin
  histogram[bin] = count_below(edges[bin + 1u], bin == params.bins - 1u, F) - count_below(edges[bin], false, F);
}

// One workgroup: stats[7] = mean cosine similarity over the sampled pairs whose two rows are finite, their squared
// norms within f32 range (zero rows count as cosine 0); NaN when no sampled pair is.
@compute @workgroup_size(WORKGROUP)
fn head_anisotropy(@builtin(local_invocation_index) lane: u32) {
  var total = 0.0;
  var counted = 0u;
  for (var p = lane; p < params.pairs; p += WORKGROUP) {
    let i = pairs[2u * p];
    let j = pairs[2u * p + 1u];
    var dot = 0.0;
    var ni = 0.0;
    var nj = 0.0;
    var bad = false;
    for (var c = 0u; c < params.d; c++) {
      let a = weight[i * params.d + c];
      let b = weight[j * params.d + c];
      bad = bad || is_non_finite_bits(bitcast<u32>(a)) || is_non_finite_bits(bitcast<u32>(b));
      dot += a * b;
      ni += a * a;
      nj += b * b;
    }
    // a row out of f32 range squared cannot be measured either
    bad = bad || is_non_finite_bits(bitcast<u32>(ni)) || is_non_finite_bits(bitcast<u32>(nj));
    if (bad) { continue; }
    counted += 1u;
    if (ni > 0.0 && nj > 0.0) { total += dot * inverseSqrt(ni) * inverseSqrt(nj); }
  }
  let sum = workgroup_sum(lane, total);
  let pairs_counted = workgroup_sum_u32(lane, counted);
  if (lane == 0u) { stats[7] = select(bitcast<u32>(sum / f32(pairs_counted)), NAN_BITS, pairs_counted == 0u); }
}
