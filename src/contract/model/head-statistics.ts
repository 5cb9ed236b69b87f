// The MLM head's per-row norm figures under a divisor k (summary, anisotropy, histogram), as plain data.
import type { HistogramRange } from '../../util/histogram-range.ts';

export interface HeadStatistics {
  /** Divisor k the norms were measured under (norms of W / k). */
  k: number;
  /** Figures over the finite rows; `summary.nonFiniteRows` counts rows whose norm is NaN or Inf (all NaN: none finite). */
  summary: NormSummary;
  /** Mean cosine similarity of sampled row pairs of finite rows (independent of k); NaN when no pair had two. */
  anisotropy: number;
  histogram: { range: HistogramRange; counts: number[] };
}

/** Statistics of the finite row norms; NaN (all seven) when no row is finite. */
export interface NormSummary {
  mean: number;
  std: number;
  min: number;
  max: number;
  p50: number;
  p90: number;
  p99: number;
  /** Rows whose norm is NaN or Inf, left out of every figure above. */
  nonFiniteRows: number;
}
