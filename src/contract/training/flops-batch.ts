// The FLOPS term a batch of another size would see. FLOPS = sum_j (mean_i v_ij)^2 squares a batch mean, so its
// expectation is sum_j mu_j^2 + sum_j sigma_j^2 / B: smaller batches see a larger term (and train sparser). From one
// batch of B rows, F_B and the rows' mean squared norm give an unbiased estimate at any other size.

/** The paper's per-GPU batch: 64 queries and 128 documents (64 positives, 64 negatives) per FLOPS term. */
export const PAPER_FLOPS_BATCH = 64;

/**
 * Estimated FLOPS at `target` rows, from the FLOPS `flops` of a batch of `rows` non-negative vectors and their mean
 * squared L2 norm: F_B + (1/target - 1/B) sum_j s_j^2, with the unbiased per-dimension variances summed as
 * sum_j s_j^2 = B/(B-1) (meanSquaredNorm - F_B). NaN for a batch of one row (no variance to go on).
 */
export function flopsAtBatch(flops: number, meanSquaredNorm: number, rows: number, target: number): number {
  if (rows < 2) return NaN;
  const variances = (rows / (rows - 1)) * Math.max(0, meanSquaredNorm - flops);
  return Math.max(0, flops + (1 / target - 1 / rows) * variances);
}
