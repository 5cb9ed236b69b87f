// What one training step reports (losses, learning rate, sparsity, throughput, where the data stands) and the
// fingerprint that ties a run to its data; plain data.
export interface StepLosses {
  step: number;
  rank: number;
  flopsQueries: number;
  flopsDocuments: number;
  total: number;
}

export interface StepReport extends StepLosses {
  /** Steps of the whole run. */
  steps: number;
  lr: number;
  lambdaQueries: number;
  lambdaDocuments: number;
  /** Global L2 norm of the step's averaged gradient, before clipping. */
  gradNorm: number;
  /** Mean number of non-zero dimensions of the batch's query and document vectors (means over micro-batches). */
  activeQueries: number;
  activeDocuments: number;
  /**
   * The FLOPS terms the paper's per-GPU batch (64 triplets: 64 queries, 128 documents) would see for this batch's
   * vectors (estimated from its squared norms; NaN with one triplet).
   */
  paperBatchFlopsQueries: number;
  paperBatchFlopsDocuments: number;
  /** Mean squared L2 norm of the batch's query and document vectors (what the FLOPS estimates above start from). */
  squaredNormQueries: number;
  squaredNormDocuments: number;
  /** Wall time per step since the previous report (checkpoint writes left out). */
  msPerStep: number;
  /** Throughput since the previous report: steps, and the queries' and documents' tokens (padding left out), per second. */
  stepsPerSecond: number;
  tokensPerSecond: number;
  /** Where the next batch starts. */
  position: DataPosition;
  /**
   * Distillation runs: the ranking loss equal student scores would give on this step's batches, from their teacher
   * labels (loss-levels.ts: MarginMSE the mean squared margin, KL T² · KL(teacher ‖ uniform)), which the stall alarm
   * compares the loss with; absent for the contrastive loss (chance is log((1 + n)B)) and in older records.
   */
  rankAtEqualScores?: number;
}

/** What the run trains on, checked on resume so a checkpoint never continues on other data. */
export interface DataFingerprint {
  name: string;
  triplets: number;
  crc32: number;
}

/** Where the next batch starts: the `index`-th triplet of epoch `epoch`'s shuffled order (both 0-based). */
export interface DataPosition {
  epoch: number;
  index: number;
}
