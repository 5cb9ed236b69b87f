// End-to-end evaluation: encode queries and corpus, index, retrieve top-k, score with trec_eval measures, report efficiency.
import type { RetrievalDataset } from '../contract/evaluation/dataset.ts';
import { efficiencyReport } from './efficiency.ts';
import { type EfficiencyReport, type QueryPostingsSummary, RetrievalReport } from '../contract/evaluation/results.ts';
import { queryPostings } from './posting-statistics.ts';
import { buildInvertedIndex, indexMemoryBytes, postingsCount, type InvertedIndex } from './inverted-index.ts';
import { evaluateRun, type EvaluateRunOptions } from './metrics/evaluate-run.ts';
import type { Run } from '../contract/evaluation/run-types.ts';
import { searchAll } from './search.ts';
import { type SearchAlgorithm } from '../contract/evaluation/search-results.ts';
import type { SparseVector } from '../util/sparse-vector.ts';
import type { Ranking } from './top-k.ts';
export type Progress = (done: number, total: number) => void;

/** What a SPLADE model (GPU or otherwise) offers to evaluation. */
export interface SparseEncoder {
  /** id -> token, for exports and for the index dimension. */
  vocab: readonly string[];
  encodeQueries(texts: string[], onProgress?: Progress): Promise<SparseVector[]>;
  encodeDocuments(texts: string[], onProgress?: Progress): Promise<SparseVector[]>;
}

export interface RetrievalOptions extends EvaluateRunOptions {
  /** Documents retrieved per query (default 1000). */
  topK?: number;
  /** Exact search algorithm (default exhaustive term-at-a-time). */
  search?: SearchAlgorithm;
  onProgress?: (stage: 'queries' | 'documents' | 'search', done: number, total: number) => void;
}

export interface EncoderReport extends RetrievalReport {
  efficiency: EfficiencyReport;
  /** The summed posting length each query reads (index-stats' latency proxy), over the queries. */
  queryPostings: QueryPostingsSummary;
  /** The vectors and the index the run came from (a search view reuses them). */
  queryVectors: SparseVector[];
  docVectors: SparseVector[];
  searchIndex: InvertedIndex;
}

/** Turns rankings of document numbers into a run keyed by query and document ids. */
function rankingsToRun(rankings: readonly Ranking[], queryIds: readonly string[], docIds: readonly string[]): Run {
  const run: Run = new Map();
  rankings.forEach((ranking, q) => {
    const scores = new Map<string, number>();
    ranking.docs.forEach((d, r) => scores.set(docIds[d], ranking.scores[r]));
    run.set(queryIds[q], scores);
  });
  return run;
}

/** Searches prepared query vectors against an index and evaluates the run on the dataset's qrels. */
export function retrieveAndEvaluate(
  index: InvertedIndex,
  queryVectors: readonly SparseVector[],
  dataset: RetrievalDataset,
  options: RetrievalOptions = {},
): RetrievalReport {
  const start = performance.now();
  const { rankings, latency } = searchAll(
    index,
    queryVectors,
    options.topK ?? 1000,
    (done, total) => options.onProgress?.('search', done, total),
    {
      algorithm: options.search,
    },
  );
  const searchMs = performance.now() - start;
  const run = rankingsToRun(rankings, dataset.queryIds, dataset.corpusIds);
  const evaluation = evaluateRun(dataset.qrels, run, options);
  const warnings = [...dataset.warnings];
  if (evaluation.qrelsQueriesWithoutRun.length) {
    warnings.push(
      `${evaluation.qrelsQueriesWithoutRun.length} judged queries were not searched and are left out of the averages`,
    );
  }
  const empty = rankings.filter((r) => r.docs.length === 0).length;
  if (empty) warnings.push(`${empty} queries retrieved no document (no dimension shared with any document)`);
  return {
    metrics: Object.fromEntries(evaluation.summary),
    evaluation,
    run,
    index: {
      documents: index.numDocs,
      dimension: index.dimension,
      postings: postingsCount(index),
      memoryBytes: indexMemoryBytes(index),
    },
    latency,
    timingsMs: { search: searchMs },
    warnings,
  };
}

/** Encodes the dataset with `encoder`, then indexes, retrieves and evaluates; adds sparsity and FLOPs figures. */
export async function evaluateEncoder(
  encoder: SparseEncoder,
  dataset: RetrievalDataset,
  options: RetrievalOptions = {},
): Promise<EncoderReport> {
  const t0 = performance.now();
  const queryVectors = await encoder.encodeQueries(dataset.queryTexts, (done, total) =>
    options.onProgress?.('queries', done, total),
  );
  const t1 = performance.now();
  const docVectors = await encoder.encodeDocuments(dataset.corpusTexts, (done, total) =>
    options.onProgress?.('documents', done, total),
  );
  const t2 = performance.now();
  if (queryVectors.length !== dataset.queryIds.length || docVectors.length !== dataset.corpusIds.length) {
    throw new Error(
      `encoder returned ${queryVectors.length} query and ${docVectors.length} document vectors for ${dataset.queryIds.length} queries and ${dataset.corpusIds.length} documents`,
    );
  }
  const indexStart = performance.now();
  const index = buildInvertedIndex(docVectors, encoder.vocab.length);
  const indexMs = performance.now() - indexStart;
  const report = retrieveAndEvaluate(index, queryVectors, dataset, options);
  return {
    ...report,
    efficiency: efficiencyReport(queryVectors, docVectors, index.dimension),
    queryPostings: (({ mean, p50, p99 }) => ({ mean, p50, p99 }))(queryPostings(index, queryVectors, dataset.queryIds)),
    timingsMs: { encodeQueries: t1 - t0, encodeDocuments: t2 - t1, index: indexMs, ...report.timingsMs },
    queryVectors,
    docVectors,
    searchIndex: index,
  };
}
