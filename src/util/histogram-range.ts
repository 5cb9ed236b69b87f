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
export function sharedHistogramRange(base: { min: number; max: number }, k: number, bins: number, logNorm: boolean): HistogramRange {
  const hi = Math.max(base.max, base.max / k) * (1 + MARGIN);
  if (!logNorm) return { lo: 0, hi: hi > 0 ? hi : 1, bins, log: false };
  const lo = Math.max(LOG_FLOOR, Math.min(base.min, base.min / k) * (1 - MARGIN));
  return { lo, hi: hi > lo ? hi : lo * 10, bins, log: true };
}

/** Bin index of `value` in `range`, or -1 outside it (the last edge belongs to the last bin). */
export function histogramBin(value: number, range: HistogramRange): number {
  const { lo, hi, bins, log } = range;
  const x = log ? Math.log(value) : value;
  const a = log ? Math.log(lo) : lo;
  const b = log ? Math.log(hi) : hi;
  if (!(x >= a && x <= b)) return -1;
  return Math.min(bins - 1, Math.floor(((x - a) / (b - a)) * bins));
}

/** Counts of `values` per bin of `range` (values outside it are left out). */
export function histogramCounts(values: ArrayLike<number>, range: HistogramRange): number[] {
  const counts = new Array<number>(range.bins).fill(0);
  for (let i = 0; i < values.length; i++) {
    const bin = histogramBin(values[i], range);
    if (bin >= 0) counts[bin]++;
  }
  return counts;
}
