// One row of the benchmark table; every section of scripts/bench.ts returns a list of these.

export interface BenchRow {
  /** What was measured, e.g. "matmul nt 512x768x768". */
  name: string;
  /** Median wall time per call in milliseconds (GPU work awaited). */
  ms: number;
  /** Useful floating-point operations per second, in GFLOP/s, where meaningful. */
  gflops?: number;
  /** Peak bytes of GPU buffers the measured path allocated. */
  peakBytes?: number;
  /** Free-form extra figures (ratios against a baseline measured in the same run, shapes). */
  extra?: Record<string, number | string>;
}
