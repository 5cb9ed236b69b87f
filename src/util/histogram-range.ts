// The one histogram range both series of the head-norm histogram (k = 1 and k) are binned on, so that their bars
// line up: used by the GPU statistics in the worker and by the page's precomputed figures alike.

/** Bin edges over [lo, hi]: evenly spaced in the norm, or in log(norm) (lo > 0 then). */
export interface HistogramRange {
  lo: number;
  hi: number;
  bins: number;
  log: boolean;
}

/** Smallest lower edge of a log-spaced range (norms of exactly zero fall outside it). */
const LOG_FLOOR = 1e-6;
/** Relative widening of the range, so the extreme rows stay inside it despite f32 rounding of norm / k. */
const MARGIN = 1e-4;

/** Spans the norms at k = 1 and at k: [0, max] on a linear axis, [min, max] on a log axis. */
export function sharedHistogramRange(
  base: { min: number; max: number },
  k: number,
  bins: number,
  logNorm: boolean,
): HistogramRange {
  const hi = Math.max(base.max, base.max / k) * (1 + MARGIN);
  if (!logNorm) return { lo: 0, hi: hi > 0 ? hi : 1, bins, log: false };
  const lo = Math.max(LOG_FLOOR, Math.min(base.min, base.min / k) * (1 - MARGIN));
  return { lo, hi: hi > lo ? hi : lo * 10, bins, log: true };
}

/**
 * The bins + 1 edges of `range`, computed once here (never per value on the GPU, where log and exp carry device-
 * dependent errors), rounded to f32 and non-decreasing: every count is then a difference of two searches over sorted
 * values, never negative, and the counts add up to the values inside the range on every device.
 */
export function histogramEdges(range: HistogramRange): Float32Array {
  const { lo, hi, bins, log } = range;
  const edges = new Float32Array(bins + 1);
  for (let b = 0; b <= bins; b++) {
    const t = b / bins;
    edges[b] =
      b === 0 ? lo : b === bins ? hi : log ? Math.exp(Math.log(lo) + t * (Math.log(hi) - Math.log(lo))) : lo + t * (hi - lo);
    if (b > 0 && edges[b] < edges[b - 1]) edges[b] = edges[b - 1];
  }
  return edges;
}

/** Bin index of `value` in `range` by its edges: [e_b, e_b+1), the last bin holding e_bins too; -1 outside. */
export function histogramBin(value: number, range: HistogramRange, edges = histogramEdges(range)): number {
  const bins = edges.length - 1;
  if (!(value >= edges[0] && value <= edges[bins])) return -1;
  let lo = 0;
  let hi = bins; // the first edge above value, searched in [1, bins]
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (edges[mid] <= value) lo = mid;
    else hi = mid - 1;
  }
  return Math.min(bins - 1, lo);
}

/** Counts of `values` per bin of `range` (values outside it are left out). */
export function histogramCounts(values: ArrayLike<number>, range: HistogramRange): number[] {
  const counts = new Array<number>(range.bins).fill(0);
  const edges = histogramEdges(range);
  for (let i = 0; i < values.length; i++) {
    const bin = histogramBin(values[i], range, edges);
    if (bin >= 0) counts[bin]++;
  }
  return counts;
}
