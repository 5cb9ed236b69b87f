// Searching an evaluated set, as the page sees it: the algorithms, hits with the terms that made each score, a
// document's vector, the queries where SPLADE and BM25 differ most, latency figures.
import type { SparseSummary } from '../model/model-results.ts';

export interface TermContribution {
  term: string;
  query: number;
  document: number;
  /** query x document: its part of the score. */
  product: number;
  /** product / score. */
  share: number;
  /** SPLADE only: the term is not one of the query's own tokens (the model expanded the query with it). */
  expansion: boolean;
}

export interface SearchHit {
  rank: number;
  docId: string;
  /** The document's text, shortened for display. */
  text: string;
  score: number;
  /** Judged relevant for this query (null: the query has no judgments). */
  relevant: boolean | null;
  /** The shared terms, largest product first. */
  terms: TermContribution[];
}

/** A searched query's SPLADE vector: its terms by weight, whether a static table made it, and how long that took. */
export interface QueryVectorView {
  terms: { term: string; weight: number }[];
  /** An inference-free model's query: its tokens looked up in the static table (no encoder ran). */
  staticTable: boolean;
  encodeMs: number;
}

export interface SearchResult {
  query: string;
  /** The set's judged query this text is (its qrels mark the hits), or null. */
  queryId: string | null;
  queryVector: QueryVectorView;
  splade: SearchHit[];
  bm25: SearchHit[];
}

export interface DocumentView {
  docId: string;
  text: string;
  vector: SparseSummary;
}

/** A query where one system's nDCG@10 is far above the other's, and why. */
export interface QueryDifference {
  queryId: string;
  query: string;
  spladeNdcg10: number;
  bm25Ndcg10: number;
  /** The judged-relevant document the better system ranked highest. */
  docId: string;
  spladeRank: number | null;
  bm25Rank: number | null;
  /** How each system scored that document: the terms that made the difference. */
  spladeTerms: TermContribution[];
  bm25Terms: TermContribution[];
}

/** `maxscore`: dynamic pruning (maxscore.ts); `exhaustive`: term-at-a-time over every posting. Both are exact. */
export type SearchAlgorithm = 'maxscore' | 'exhaustive';

export const searchAlgorithms: readonly SearchAlgorithm[] = ['maxscore', 'exhaustive'];

export function isSearchAlgorithm(name: string): name is SearchAlgorithm {
  return (searchAlgorithms as readonly string[]).includes(name);
}

export interface LatencyTimes {
  queries: number;
  totalMs: number;
  meanMs: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  queriesPerSecond: number;
}

export interface LatencyReport extends LatencyTimes {
  algorithm: SearchAlgorithm;
  /** Documents whose full score was computed, over all queries (exhaustive: every document a query touches). */
  fullyScoredDocs: number;
  meanFullyScoredDocs: number;
}
