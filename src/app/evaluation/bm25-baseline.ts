// The BM25 baseline on a retrieval set (k1 0.9, b 0.4 by default; words or a model's tokenizer pieces), and TREC run
// files, once for the page and the CLI.
import { bm25Query, buildBm25, type Bm25Model, type Bm25Params } from '../../retrieval/bm25.ts';
import type { RetrievalDataset } from '../../contract/evaluation/dataset.ts';
import { retrieveAndEvaluate } from '../../retrieval/evaluate.ts';
import { type RetrievalReport } from '../../contract/evaluation/results.ts';
import type { SearchAlgorithm } from '../../contract/evaluation/search-results.ts';
import { idAnalyzer, wordAnalyzer, type Analyzer } from '../../retrieval/word-analyzer.ts';
import { openTokenizer } from '../model/open-model.ts';
import type { FilesRef, Platform } from '../platform/platform.ts';
import type { EvalProgress } from '../../contract/evaluation/evaluation-request.ts';

export interface Bm25Request {
  params: Bm25Params;
  topK: number;
  search: SearchAlgorithm;
  /** Terms of a text (default: lower-cased words without English stop words). */
  analyzer?: Analyzer;
}

export interface Bm25Report extends RetrievalReport {
  params: Bm25Params;
  /** The index and analyzer, for a search view. */
  model: Bm25Model;
}

/** The lexical baseline (k1 0.9, b 0.4 unless asked otherwise) on the set, with the same measures as SPLADE's. */
export function evaluateBm25(dataset: RetrievalDataset, request: Bm25Request, onProgress?: EvalProgress): Bm25Report {
  const start = performance.now();
  const model = buildBm25(dataset.corpusTexts, request.analyzer ?? wordAnalyzer(), request.params, (done, total) =>
    onProgress?.('bm25', done, total),
  );
  const indexMs = performance.now() - start;
  const queries = dataset.queryTexts.map((text) => bm25Query(model, text));
  const report = retrieveAndEvaluate(model.index, queries, dataset, { topK: request.topK, search: request.search, onProgress });
  return { ...report, params: request.params, model, timingsMs: { index: indexMs, ...report.timingsMs } };
}

/** BM25 terms = a model tokenizer's piece ids of the text, without special tokens and without truncation. */
export async function tokenizerAnalyzer(platform: Platform, ref: FilesRef): Promise<Analyzer> {
  const tokenizer = await openTokenizer(platform, ref);
  return idAnalyzer((text) => tokenizer.encode(text, { addSpecialTokens: false }).ids);
}

export { formatRun as formatTrecRun } from '../../io/beir/trec.ts';
export type { Run } from '../../contract/evaluation/run-types.ts';
