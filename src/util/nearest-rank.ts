// The nearest-rank quantile: the percentiles of the latency report and of the index statistics.

/** The nearest-rank q-quantile of ascending `sorted` (0 when empty): the smallest value with at least q of them at or below. */
export function nearestRank(sorted: ArrayLike<number>, q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] : 0;
}
