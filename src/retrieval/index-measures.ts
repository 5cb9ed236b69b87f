// The measures of a set's index from vectors already encoded, shared by `index-stats` and the page's estimate:
// posting lengths, the postings each query touches, the index size under both impact models, and the pruning curve; a
// scale whose impacts no Anserini index could hold is refused first.
import type { RetrievalDataset } from '../contract/evaluation/dataset.ts';
import {
  INDEX_STATS_DEFAULTS,
  pruningRules,
  type IndexEstimateRequest,
  type IndexMeasures,
} from '../contract/evaluation/index-stats.ts';
import { InvalidRequestError } from '../contract/limits.ts';
import { anseriniImpact, type Vocabulary } from './exports.ts';
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

/** The largest impact an Anserini index holds: Lucene keeps an impact as a term frequency, a Java int (2^31 - 1). */
export const MAX_ANSERINI_IMPACT = 2 ** 31 - 1;

/**
 * Refuses a scale under which the largest document weight's impact round(scale * w) would not fit an Anserini index
 * (over MAX_ANSERINI_IMPACT, or infinite), naming the limit and the largest scale that fits these documents.
 */
export function checkImpactScale(documents: readonly SparseVector[], scale: number): void {
  let largest = 0;
  for (const vector of documents) for (const w of vector.values) if (w > largest) largest = w;
  const impact = anseriniImpact(largest, scale);
  if (impact <= MAX_ANSERINI_IMPACT) return;
  throw new InvalidRequestError(
    `The impact scale ${scale} makes the largest document weight, ${largest}, an impact of ${impact}, over ` +
      `${MAX_ANSERINI_IMPACT} (2^31 - 1), the largest term frequency a Lucene (Anserini) index stores: its sizes would ` +
      `count impacts no index can hold. Give a scale of at most ${Math.floor(MAX_ANSERINI_IMPACT / largest)} for these documents`,
  );
}

/** Measures the index of `vectors` (in `dataset`'s query and corpus order) unpruned and at each of `request`'s points. */
export function measureIndex(
  vectors: { queries: readonly SparseVector[]; documents: readonly SparseVector[] },
  dataset: RetrievalDataset,
  request: IndexEstimateRequest,
  options: IndexMeasureOptions,
): IndexMeasures {
  const { vocab } = options;
  checkImpactScale(vectors.documents, request.scale);
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
