// What `index-stats` reports of a set's inverted index, as plain data: posting lengths, the postings each query
// touches (the latency proxy), index sizes under two stated impact models, and a what-if pruning curve; its request.
import { EVAL_LIMITS, checkK, checkRange, type NumberRange } from '../limits.ts';
import type { DatasetSummary, SetEvaluation } from './results.ts';
import type { PruningPoint, PruningRule } from './pruning-point.ts';

export type { PruningPoint, PruningRule } from './pruning-point.ts';

/** The curve's points unless asked otherwise: every vector unpruned, then these top-N and weight-threshold points. */
export const INDEX_STATS_DEFAULTS = {
  pruneTop: [256, 128, 64, 32, 16],
  pruneThreshold: [0.1, 0.3, 0.5, 1],
  /** Anserini's impact scale, as `encode --format anserini` quantises: round(scale * w). */
  scale: 100,
  /** Posting lists named in the report, longest first. */
  longestLists: 10,
} as const;

export const INDEX_STATS_LIMITS = {
  threshold: { min: 0, max: Number.MAX_VALUE },
  scale: { min: 0, max: Number.MAX_VALUE, exclusiveMin: true },
  /** Points of the pruning curve besides the unpruned one. */
  points: { min: 0, max: 64, integer: true },
} as const satisfies Record<string, NumberRange>;

/** How a per-byte size is estimated, in words: printed beside the figures and in `--help`. */
export const IMPACT_SIZE_MODELS = {
  anserini:
    'Anserini impacts: round(scale * w) per token (as `encode --format anserini`), postings quantised to 0 dropped; bytes = sum over postings of VInt(docid gap) + VInt(impact)',
  /** Elasticsearch/OpenSearch rank_features and sparse_vector (the key keeps its first name for `--json` readers). */
  byte: 'rank_features (Lucene FeatureField, as Elasticsearch and OpenSearch store each weight): the term frequency Float.floatToIntBits(w) >>> 15, a 16-bit number keeping 9 significant bits, no scale (scale 1), every positive weight kept; bytes = sum over postings of VInt(docid gap) + VInt(frequency), 3 bytes for any weight of at least 2^-63',
} as const;

/** A point of the pruning curve: all weights, each vector's N largest, or document weights of at least W. */

export interface IndexStatsRequest {
  k: number;
  queryLength: number;
  documentLength: number;
  /** Top-N points: each vector, document and query, keeps its N largest weights (as `eval --prune N`); 0 is "all". */
  pruneTop: number[];
  /** Threshold points: document weights below W dropped, queries whole; 0 is "all". */
  pruneThreshold: number[];
  scale: number;
}

/** Lengths of the non-empty posting lists (one per term that some document holds). */
export interface PostingLengths {
  postings: number;
  terms: number;
  mean: number;
  p50: number;
  p99: number;
  max: number;
  /**
   * `special`: the piece is of the audit's "special" kind (a special token of the tokenizer, or a reserved piece such as
   * [unused0]): it stands for no word of any text. Set by the page's estimate, which knows the tokenizer.
   */
  longest: { term: string; id: number; length: number; special?: boolean }[];
}

/** For each query, the summed posting length of its terms in the document index: what a term-at-a-time search reads. */
export interface QueryPostings {
  mean: number;
  p50: number;
  p99: number;
  perQuery: { id: string; postings: number }[];
}

export interface ImpactIndexSize {
  /** The stated model (IMPACT_SIZE_MODELS). */
  model: string;
  /** The weight w maps to round(scale * w) (1 where the model has no scale). */
  scale: number;
  /** Postings whose stored weight is not 0. */
  postings: number;
  bytes: number;
}

export interface IndexStatsReport {
  set: DatasetSummary;
  model: { name: string; architecture: string };
  /** The request as used (lengths capped at what the model encodes). */
  request: IndexStatsRequest;
  postingLengths: PostingLengths;
  queryPostings: QueryPostings;
  size: { anserini: ImpactIndexSize; byte: ImpactIndexSize };
  curve: PruningPoint[];
  warnings: string[];
}

/**
 * The mean summed posting length per query of a stored evaluation: averaged over queries, the sum of df(term) over a
 * query's terms is sum_j P(a query uses j) * df(j) = documents * avg_flops. Its p50 and p99 need the vectors.
 */
export function meanQueryPostings(evaluation: Pick<SetEvaluation, 'set' | 'splade'>): number {
  return evaluation.set.documents * evaluation.splade.efficiency.avg_flops;
}

/** The curve's rules: "all" first, then each top-N and each threshold point, zeros (which mean "all") left out. */
export function pruningRules(request: { pruneTop: readonly number[]; pruneThreshold: readonly number[] }): PruningRule[] {
  return [
    { kind: 'all' },
    ...request.pruneTop.filter((n) => n > 0).map((n): PruningRule => ({ kind: 'top', n })),
    ...request.pruneThreshold.filter((w) => w > 0).map((weight): PruningRule => ({ kind: 'threshold', weight })),
  ];
}

/** A pruning rule in words: "all", "top 64", "w >= 0.3". */
export function describeRule(rule: PruningRule): string {
  if (rule.kind === 'all') return 'all';
  return rule.kind === 'top' ? `top ${rule.n}` : `w >= ${rule.weight}`;
}

/** The page's request on its last evaluated set: the curve's points and scale (k, lengths and pruning are the evaluation's). */
export type IndexEstimateRequest = Pick<IndexStatsRequest, 'pruneTop' | 'pruneThreshold' | 'scale'>;

/** The measures of a set's index, from vectors already encoded: what `index-stats` and the page's estimate share. */
export type IndexMeasures = Pick<IndexStatsReport, 'postingLengths' | 'queryPostings' | 'size' | 'curve'>;

/** The page's index and latency estimate of its last evaluated set, from the vectors the evaluation kept. */
export interface IndexEstimate extends IndexMeasures {
  /** The set's name (DatasetSummary.name). */
  set: string;
  request: IndexEstimateRequest;
}

export function checkIndexEstimateRequest(request: IndexEstimateRequest): IndexEstimateRequest {
  const L = INDEX_STATS_LIMITS;
  checkRange(request.pruneTop.length + request.pruneThreshold.length, L.points, 'The number of pruning points');
  return {
    pruneTop: request.pruneTop.map((n) => checkRange(n, EVAL_LIMITS.prune, 'The number of weights kept per vector')),
    pruneThreshold: request.pruneThreshold.map((w) => checkRange(w, L.threshold, 'The weight threshold')),
    scale: checkRange(request.scale, L.scale, 'The impact scale'),
  };
}

export function checkIndexStatsRequest(request: IndexStatsRequest): IndexStatsRequest {
  return {
    k: checkK(request.k),
    queryLength: checkRange(request.queryLength, EVAL_LIMITS.queryLength, 'The query length'),
    documentLength: checkRange(request.documentLength, EVAL_LIMITS.documentLength, 'The document length'),
    ...checkIndexEstimateRequest(request),
  };
}
