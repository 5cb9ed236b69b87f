// The one histogram range both series (k = 1 and k) are binned on, so that their bars line up and compare.
import type { HistogramRange, NormSummary } from '../kernels/reference/head-stats.ts';

/** Smallest lower edge of a log-spaced range (norms of exactly zero fall outside it). */
const LOG_FLOOR = 1e-6;
/** Relative widening of the range, so the extreme rows stay inside it despite f32 rounding of norm / k. */
const MARGIN = 1e-4;

/** Spans the norms at k = 1 and at k: [0, max] on a linear axis, [min, max] on a log axis. */
export function sharedHistogramRange(base: NormSummary, k: number, bins: number, logNorm: boolean): HistogramRange {
  const hi = Math.max(base.max, base.max / k) * (1 + MARGIN);
  if (!logNorm) return { lo: 0, hi: hi > 0 ? hi : 1, bins, log: false };
  const lo = Math.max(LOG_FLOOR, Math.min(base.min, base.min / k) * (1 - MARGIN));
  return { lo, hi: hi > lo ? hi : lo * 10, bins, log: true };
}
