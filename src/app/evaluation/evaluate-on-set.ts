// Evaluation of a loaded model on one retrieval set, once for the page and the CLI: the corpus encoded under k on the
// GPU (progress, cancel, a memory check after a measured sample), exact top-k retrieval, trec_eval measures,
// sparsity, FLOPS, throughput and index size, and BM25 on the same set; the page keeps the set for its search view.
import type { RetrievalDataset } from '../../contract/evaluation/dataset.ts';
import { evaluateEncoder, type SparseEncoder } from '../../retrieval/evaluate.ts';
import type { RetrievalReport, SetEvaluation, SpladeResult, SystemResult } from '../../contract/evaluation/results.ts';
import type { Run } from '../../contract/evaluation/run-types.ts';
import { summarizeDataset } from './datasets.ts';
import { evaluateBm25 } from './bm25-baseline.ts';
export { HEADLINE_MEASURES, meanMetrics } from '../../contract/evaluation/measures.ts';
import {
  checkEvaluationMemory,
  estimateEvaluationMemory,
  type EvaluationMemory,
} from '../../contract/evaluation/evaluation-memory.ts';
import type { ModelSession } from '../model/model-session.ts';
import { checkEvalRequest, type EvalProgress, type EvalRequest } from '../../contract/evaluation/evaluation-request.ts';
import { maxSequenceTokens } from '../../contract/model/max-tokens.ts';
import { EvaluatedSet } from './evaluated-set.ts';
import { auditQueries, auditTexts } from '../model/expansion-audit.ts';
import type { SparseVector } from '../../util/sparse-vector.ts';

/** Documents encoded first, to measure their density before the memory check. */
const SAMPLE_DOCUMENTS = 32;

export type { SetEvaluation, SpladeResult, SystemResult } from '../../contract/evaluation/results.ts';

/** The set's vectors as evaluated (pruned as asked), in the dataset's query and corpus order. */
export interface EncodedSet {
  queries: SparseVector[];
  documents: SparseVector[];
}

export interface EvaluateOptions {
  signal?: AbortSignal;
  onProgress?: EvalProgress;
  /** Host bytes the vectors, index and encoding may take (the page's budget; the CLI's is the machine's). */
  memoryBudget?: number;
  /** Also run BM25 on the set and keep both for a search view (the page; `splade-lab bm25` is the CLI's baseline). */
  bm25?: boolean;
}

/** An encoder whose documents are encoded a sample first, so that an evaluation too large is refused early. */
function guardedEncoder(
  session: ModelSession,
  dataset: RetrievalDataset,
  request: EvalRequest,
  options: EvaluateOptions,
  memory: { estimate: EvaluationMemory | null },
): SparseEncoder {
  const inner = session.sparseEncoder(
    request.k,
    { query: request.queryLength, document: request.documentLength },
    request.prune,
    options.signal,
  );
  const { config } = session.model;
  return {
    ...inner,
    async encodeDocuments(texts, onProgress) {
      const sampleSize = Math.min(texts.length, SAMPLE_DOCUMENTS);
      const sample = await inner.encodeDocuments(texts.slice(0, sampleSize), (done) => onProgress?.(done, texts.length));
      if (options.memoryBudget !== undefined) {
        const shape = {
          documents: dataset.corpusIds.length,
          queries: dataset.queryIds.length,
          vocabSize: config.vocabSize,
          hidden: config.hidden,
          intermediate: config.intermediate,
          batchSize: session.encoder.batchSize,
          documentLength: request.documentLength,
          prune: request.prune,
        };
        const active = sample.reduce((sum, v) => sum + v.indices.length, 0) / Math.max(1, sample.length);
        memory.estimate = estimateEvaluationMemory(shape, active);
        checkEvaluationMemory(dataset.name, shape, memory.estimate, options.memoryBudget);
      }
      const rest = await inner.encodeDocuments(texts.slice(sampleSize), (done) => onProgress?.(sampleSize + done, texts.length));
      return [...sample, ...rest];
    },
  };
}

/** Evaluates the session's model under `request.k` on `dataset`: the results, the TREC run, and (with BM25) what a search view needs. */
export async function evaluateOnSet(
  session: ModelSession,
  dataset: RetrievalDataset,
  request: EvalRequest,
  options: EvaluateOptions = {},
): Promise<{ result: SetEvaluation; run: Run; kept: EvaluatedSet | null; vectors: EncodedSet }> {
  const asked = checkEvalRequest(request);
  const max = maxSequenceTokens(session.model.config);
  const r = { ...asked, queryLength: Math.min(asked.queryLength, max), documentLength: Math.min(asked.documentLength, max) };
  const capped = r.queryLength !== asked.queryLength || r.documentLength !== asked.documentLength;
  const memory: { estimate: EvaluationMemory | null } = { estimate: null };
  const encoder = guardedEncoder(session, dataset, r, options, memory);
  const report = await evaluateEncoder(encoder, dataset, { topK: r.topK, search: r.search, onProgress: options.onProgress });
  options.signal?.throwIfAborted();
  const { model } = session;
  const splade: SpladeResult = {
    metrics: report.metrics,
    index: report.index,
    latency: report.latency,
    timingsMs: report.timingsMs,
    efficiency: report.efficiency,
    queryPostings: report.queryPostings,
    documentsPerSecond:
      report.timingsMs.encodeDocuments > 0 ? (1000 * dataset.corpusIds.length) / report.timingsMs.encodeDocuments : 0,
  };
  let bm25: SystemResult | null = null;
  let kept: EvaluatedSet | null = null;
  if (options.bm25) {
    const bm25Report = evaluateBm25(dataset, { params: { k1: 0.9, b: 0.4 }, topK: r.topK, search: r.search }, options.onProgress);
    bm25 = { metrics: bm25Report.metrics, index: bm25Report.index, latency: bm25Report.latency, timingsMs: bm25Report.timingsMs };
    const ndcg = (rep: RetrievalReport) =>
      new Map([...rep.evaluation.perQuery].map(([id, m]) => [id, m.get('ndcg_cut_10') ?? 0]));
    kept = new EvaluatedSet({
      dataset,
      tokenizer: model.tokenizer,
      vocab: encoder.vocab,
      spladeIndex: report.searchIndex,
      docVectors: report.docVectors,
      queryVectors: report.queryVectors,
      bm25: bm25Report.model,
      encodeQuery: async (text) => (await encoder.encodeQueries([text]))[0],
      staticQueries: session.inferenceFree,
      auditDocument: async (text) =>
        (await auditTexts(session, [text], { k: r.k, maxLength: r.documentLength, topK: r.prune }))[0],
      auditQuery: async (text) => (await auditQueries(session, [text], { k: r.k, maxLength: r.queryLength, topK: r.prune }))[0],
      spladeNdcg: ndcg(report),
      bm25Ndcg: ndcg(bm25Report),
      run: report.run,
      encoding: { k: r.k, documentLength: r.documentLength, prune: r.prune },
    });
  }
  return {
    result: {
      set: summarizeDataset(dataset),
      model: { name: model.name, key: model.key, architecture: model.config.hfArchitecture },
      request: r,
      splade,
      bm25,
      memory: memory.estimate,
      warnings: capped
        ? [`lengths capped at ${max} tokens, the longest this model encodes (its position table ends there)`, ...report.warnings]
        : report.warnings,
      evaluatedAt: new Date().toISOString(),
    },
    run: report.run,
    kept,
    vectors: { queries: report.queryVectors, documents: report.docVectors },
  };
}
