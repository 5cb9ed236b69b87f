// The index and latency estimate of a model on one retrieval set, for the CLI and the page: the set encoded once (as
// evaluateOnSet does), then posting lengths, the postings each query touches, index sizes and a pruning curve.
import type { RetrievalDataset } from '../../contract/evaluation/dataset.ts';
import { checkIndexStatsRequest, type IndexStatsReport, type IndexStatsRequest } from '../../contract/evaluation/index-stats.ts';
import { EVAL_DEFAULTS } from '../../contract/limits.ts';
import { measureIndex } from '../../retrieval/index-measures.ts';
import type { ModelSession } from '../model/model-session.ts';
import { evaluateOnSet, type EvaluateOptions } from './evaluate-on-set.ts';

export interface IndexStatsOptions extends Pick<EvaluateOptions, 'signal' | 'onProgress' | 'memoryBudget'> {
  /** After each point of the pruning curve. */
  onPoint?: (done: number, total: number) => void;
}

/** Encodes `dataset` under `request.k` once and measures its index, unpruned and at each pruning point. */
export async function indexStatsOnSet(
  session: ModelSession,
  dataset: RetrievalDataset,
  request: IndexStatsRequest,
  options: IndexStatsOptions = {},
): Promise<IndexStatsReport> {
  const asked = checkIndexStatsRequest(request);
  const evalRequest = { ...EVAL_DEFAULTS, k: asked.k, queryLength: asked.queryLength, documentLength: asked.documentLength };
  const { result, vectors } = await evaluateOnSet(session, dataset, evalRequest, options);
  const measures = measureIndex(vectors, dataset, asked, {
    vocab: session.vocabulary(),
    topK: EVAL_DEFAULTS.topK,
    onPoint: options.onPoint,
  });
  return {
    set: result.set,
    model: { name: result.model.name, architecture: result.model.architecture },
    request: { ...asked, queryLength: result.request.queryLength, documentLength: result.request.documentLength },
    ...measures,
    warnings: result.warnings,
  };
}
