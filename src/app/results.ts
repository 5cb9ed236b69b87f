// The plain results of evaluations, as they are stored (IndexedDB, run records) and sent to the page: types only.
import type { EfficiencyReport } from '../retrieval/efficiency.ts';
import type { RetrievalReport } from '../retrieval/evaluate.ts';
import type { LatencyReport } from '../retrieval/search.ts';
import type { EvaluationMemory } from '../contract/evaluation-memory.ts';
import type { EvalRequest } from './requests.ts';

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

export interface SpladeResult extends SystemResult {
  efficiency: EfficiencyReport;
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
