// The plain results of evaluations, as they are stored (IndexedDB, run records) and sent to the page: types only.
import type { LatencyReport } from './search-results.ts';
import type { EvaluationMemory } from './evaluation-memory.ts';
import type { EvalRequest } from './evaluation-request.ts';
import type { Run } from './run-types.ts';
import type { PruningPoint } from './pruning-point.ts';

/** What the page shows of a read set. */
export interface DatasetSummary {
  name: string;
  documents: number;
  queries: number;
  /** Judgment rows (query, document) over all queries. */
  judgments: number;
  warnings: string[];
}

export interface SystemResult {
  /** trec_eval's "all" row. */
  metrics: Record<string, number>;
  index: RetrievalReport['index'];
  latency: LatencyReport;
  timingsMs: Record<string, number>;
}

/** The summed posting length of each query's terms in the document index (what a term-at-a-time search reads). */
export interface QueryPostingsSummary {
  mean: number;
  p50: number;
  p99: number;
}

export interface SpladeResult extends SystemResult {
  efficiency: EfficiencyReport;
  /** Over the set's queries (absent in evaluations stored before it was kept). */
  queryPostings?: QueryPostingsSummary;
  /** The pruning curve at index-stats' default points, kept by a run's evaluation (absent elsewhere and before). */
  pruningCurve?: PruningPoint[];
  /** Documents encoded per second (GPU encoding of the corpus). */
  documentsPerSecond: number;
}

/** One set's evaluation: what the results table shows, and what is stored for a reload. */
export interface SetEvaluation {
  set: DatasetSummary;
  model: { name: string; key: string; architecture: string };
  request: EvalRequest;
  splade: SpladeResult;
  /** BM25 (k1 0.9, b 0.4) on the same set, or null when not asked for. */
  bm25: SystemResult | null;
  memory: EvaluationMemory | null;
  warnings: string[];
  evaluatedAt: string;
}

export interface RetrievalReport {
  /** trec_eval "all" row, e.g. ndcg_cut_10, recip_rank_10, recall_100, map. */
  metrics: Record<string, number>;
  evaluation: RunEvaluation;
  run: Run;
  index: { documents: number; dimension: number; postings: number; memoryBytes: number };
  latency: LatencyReport;
  timingsMs: Record<string, number>;
  warnings: string[];
}

export interface SparsityStats {
  vectors: number;
  /** Mean number of non-zero dimensions per vector. */
  meanActiveDims: number;
  /** 1 - meanActiveDims / dimension. */
  sparsityRatio: number;
}

export interface EfficiencyReport {
  query_active_dims: number;
  query_sparsity_ratio: number;
  corpus_active_dims: number;
  corpus_sparsity_ratio: number;
  avg_flops: number;
}

export interface RunEvaluation {
  /** Query id (in trec_eval's order: sorted ids of the qrels) -> measure -> value. */
  perQuery: Map<string, Map<string, number>>;
  /** The "all" row: num_q, sums of count measures, means of the rest, geometric means gm_map and gm_bpref. */
  summary: Map<string, number>;
  /** Queries that have results but no judgments: ignored, as trec_eval does. */
  runQueriesWithoutQrels: string[];
  /** Queries that have judgments but no results: skipped, or scored as empty rankings when `complete`. */
  qrelsQueriesWithoutRun: string[];
}
