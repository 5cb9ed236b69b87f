// The measures of a set's index from vectors already encoded, shared by `index-stats` and the page's estimate:
// posting lengths, the postings each query touches, the index size under both impact models, and the pruning curve.
import type { RetrievalDataset } from '../contract/dataset.ts';
import { INDEX_STATS_DEFAULTS, pruningRules, type IndexEstimateRequest, type IndexMeasures } from '../contract/index-stats.ts';
import type { Vocabulary } from './exports.ts';
import { anseriniIndexSize, rankFeaturesIndexSize } from './impact-size.ts';
import { buildInvertedIndex } from './inverted-index.ts';
import { postingLengths, queryPostings } from './posting-statistics.ts';
import { pruningCurve } from './pruning-curve.ts';
import type { SparseVector } from '../util/sparse-vector.ts';

export interface IndexMeasureOptions {
  vocab: Vocabulary;
  /** Documents retrieved per query at each curve point (as eval's --top-k). */
  topK: number;
  onPoint?: (done: number, total: number) => void;
}

/** Measures the index of `vectors` (in `dataset`'s query and corpus order) unpruned and at each of `request`'s points. */
export function measureIndex(
  vectors: { queries: readonly SparseVector[]; documents: readonly SparseVector[] },
  dataset: RetrievalDataset,
  request: IndexEstimateRequest,
  options: IndexMeasureOptions,
): IndexMeasures {
  const { vocab } = options;
  const index = buildInvertedIndex(vectors.documents, vocab.length);
  return {
    postingLengths: postingLengths(index, vocab, INDEX_STATS_DEFAULTS.longestLists),
    queryPostings: queryPostings(index, vectors.queries, dataset.queryIds),
    size: {
      anserini: anseriniIndexSize(vectors.documents, vocab, request.scale),
      byte: rankFeaturesIndexSize(vectors.documents, vocab),
    },
    curve: pruningCurve(pruningRules(request), vectors, dataset, {
      vocab,
      scale: request.scale,
      topK: options.topK,
      onPoint: options.onPoint,
    }),
  };
}
