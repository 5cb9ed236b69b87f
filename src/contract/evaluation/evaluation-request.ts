// An evaluation's request (set, k, lengths, search algorithm, BM25 beside it), checked against limits.ts, and its stages.
import { EVAL_LIMITS, checkK, checkRange } from '../limits.ts';
import type { SearchAlgorithm } from './search-results.ts';

/** Evaluation of a model under k on a retrieval set. */
export interface EvalRequest {
  k: number;
  queryLength: number;
  documentLength: number;
  /** Documents retrieved per query. */
  topK: number;
  /** Keep each vector's largest weights only (0: keep all). */
  prune: number;
  search: SearchAlgorithm;
}

export type EvalStage = 'queries' | 'documents' | 'search' | 'bm25';

/** Progress of an evaluation: the stage, and how much of it is done. */
export type EvalProgress = (stage: EvalStage, done: number, total: number) => void;

export function checkEvalRequest(request: EvalRequest): EvalRequest {
  const L = EVAL_LIMITS;
  return {
    k: checkK(request.k),
    queryLength: checkRange(request.queryLength, L.queryLength, 'The query length'),
    documentLength: checkRange(request.documentLength, L.documentLength, 'The document length'),
    topK: checkRange(request.topK, L.topK, 'The number of documents retrieved per query'),
    prune: checkRange(request.prune, L.prune, 'The number of weights kept per vector'),
    search: request.search,
  };
}
