// Evaluation on a retrieval set, once for the page and the CLI: a model under k (GPU encoding, exact top-k,
// trec_eval measures, sparsity and FLOPS) and the BM25 baseline on the same set.
import { bm25Query, buildBm25, type Bm25Params } from '../retrieval/bm25.ts';
import type { RetrievalDataset } from '../retrieval/dataset.ts';
import { evaluateEncoder, retrieveAndEvaluate, type EncoderReport, type RetrievalReport } from '../retrieval/evaluate.ts';
import type { SearchAlgorithm } from '../retrieval/search.ts';
import { idAnalyzer, wordAnalyzer, type Analyzer } from '../retrieval/word-analyzer.ts';
import { openTokenizer } from './open-model.ts';
import type { FilesRef, Platform } from './platform.ts';
import type { ModelSession } from './model-session.ts';
import { checkEvalRequest, type EvalRequest } from './requests.ts';

/** The measures every evaluation leads with (trec_eval names). */
export const HEADLINE_MEASURES = ['ndcg_cut_10', 'recip_rank_10', 'recall_100', 'recall_1000', 'P_10', 'map'] as const;

export type EvalProgress = (stage: 'queries' | 'documents' | 'search', done: number, total: number) => void;

/** Encodes the set's queries and documents with the session's model under k, retrieves exactly and scores the run. */
export async function evaluateModel(session: ModelSession, dataset: RetrievalDataset, request: EvalRequest, onProgress?: EvalProgress): Promise<EncoderReport> {
  const r = checkEvalRequest(request);
  const encoder = session.sparseEncoder(r.k, { query: r.queryLength, document: r.documentLength }, r.prune);
  return evaluateEncoder(encoder, dataset, { topK: r.topK, search: r.search, onProgress });
}

export interface Bm25Request {
  params: Bm25Params;
  topK: number;
  search: SearchAlgorithm;
  /** Terms of a text (default: lower-cased words without English stop words). */
  analyzer?: Analyzer;
}

export interface Bm25Report extends RetrievalReport {
  params: Bm25Params;
}

/** The lexical baseline (k1 0.9, b 0.4 unless asked otherwise) on the same set, with the same measures. */
export function evaluateBm25(dataset: RetrievalDataset, request: Bm25Request, onProgress?: EvalProgress): Bm25Report {
  const start = performance.now();
  const model = buildBm25(dataset.corpusTexts, request.analyzer ?? wordAnalyzer(), request.params);
  const indexMs = performance.now() - start;
  const queries = dataset.queryTexts.map((text) => bm25Query(model, text));
  const report = retrieveAndEvaluate(model.index, queries, dataset, { topK: request.topK, search: request.search, onProgress });
  return { ...report, params: request.params, timingsMs: { index: indexMs, ...report.timingsMs } };
}

/** BM25 terms = a model tokenizer's piece ids of the text, without special tokens and without truncation. */
export async function tokenizerAnalyzer(platform: Platform, ref: FilesRef): Promise<Analyzer> {
  const tokenizer = await openTokenizer(platform, ref);
  return idAnalyzer((text) => tokenizer.encode(text, { addSpecialTokens: false }).ids);
}

export { formatRun as formatTrecRun } from '../io/trec.ts';
