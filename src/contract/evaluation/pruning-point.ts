// One point of a pruning curve: the rule that pruned the vectors (top N weights, or a weight threshold), and what the
// index then costs and retrieves. Kept apart from index-stats.ts so that stored results can hold a curve.

export type PruningRule = { kind: 'all' } | { kind: 'top'; n: number } | { kind: 'threshold'; weight: number };

export interface PruningPoint {
  rule: PruningRule;
  /** Whether the queries were pruned too (top-N points, as `eval --prune N` does). */
  queriesPruned: boolean;
  postings: number;
  /** Index bytes under the Anserini model. */
  indexBytes: number;
  meanQueryPostings: number;
  ndcg_cut_10: number;
  recip_rank_10: number;
}
