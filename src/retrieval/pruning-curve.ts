// A what-if pruning curve from stored vectors, without encoding again: for each rule, the pruned document index's
// postings and Anserini bytes, the postings each query touches, and the retrieval measures of the pruned vectors.
import type { PruningPoint, PruningRule } from '../contract/evaluation/index-stats.ts';
import type { RetrievalDataset } from '../contract/evaluation/dataset.ts';
import { retrieveAndEvaluate } from './evaluate.ts';
import type { Vocabulary } from './exports.ts';
import { anseriniIndexSize } from './impact-size.ts';
import { buildInvertedIndex } from './inverted-index.ts';
import { queryPostings } from './posting-statistics.ts';
import { pruneTopK, type SparseVector } from '../util/sparse-vector.ts';

/** Keeps the entries whose weight is at least `threshold`. */
export function pruneBelow(vector: SparseVector, threshold: number): SparseVector {
  let kept = 0;
  for (const w of vector.values) if (w >= threshold) kept++;
  if (kept === vector.values.length) return vector;
  const pruned = { indices: new Uint32Array(kept), values: new Float32Array(kept) };
  for (let i = 0, k = 0; i < vector.values.length; i++) {
    if (vector.values[i] < threshold) continue;
    pruned.indices[k] = vector.indices[i];
    pruned.values[k++] = vector.values[i];
  }
  return pruned;
}

/**
 * The vectors a rule leaves: top-N prunes documents and queries alike, as `eval --prune N` does; a threshold prunes
 * documents only.
 */
export function applyPruning(
  rule: PruningRule,
  vectors: { queries: readonly SparseVector[]; documents: readonly SparseVector[] },
): { queries: readonly SparseVector[]; documents: readonly SparseVector[] } {
  if (rule.kind === 'all') return vectors;
  if (rule.kind === 'top') {
    const prune = (v: SparseVector) => pruneTopK(v, rule.n);
    return { queries: vectors.queries.map(prune), documents: vectors.documents.map(prune) };
  }
  return { queries: vectors.queries, documents: vectors.documents.map((v) => pruneBelow(v, rule.weight)) };
}

export interface PruningCurveOptions {
  vocab: Vocabulary;
  /** Anserini impact scale. */
  scale: number;
  /** Documents retrieved per query (as eval's --top-k). */
  topK: number;
  onPoint?: (done: number, total: number) => void;
}

/**
 * One point per rule, in order; each index is built, measured and searched, then let go. A top-N point starts from
 * the last top-N' vectors when N <= N': pruneTopK's order (weight desc, id asc) is total, so the N largest of the N'
 * largest are the N largest, and a dense vector is sorted once rather than once per point.
 */
export function pruningCurve(
  rules: readonly PruningRule[],
  vectors: { queries: readonly SparseVector[]; documents: readonly SparseVector[] },
  dataset: RetrievalDataset,
  options: PruningCurveOptions,
): PruningPoint[] {
  let lastTop: { n: number; vectors: typeof vectors } | null = null;
  return rules.map((rule, r) => {
    const wider = rule.kind === 'top' && lastTop && lastTop.n >= rule.n ? lastTop.vectors : vectors;
    const { queries, documents } = applyPruning(rule, wider);
    if (rule.kind === 'top') lastTop = { n: rule.n, vectors: { queries, documents } };
    const index = buildInvertedIndex(documents, options.vocab.length);
    const { metrics } = retrieveAndEvaluate(index, queries, dataset, { topK: options.topK });
    options.onPoint?.(r + 1, rules.length);
    return {
      rule,
      queriesPruned: rule.kind === 'top',
      postings: index.docs.length,
      indexBytes: anseriniIndexSize(documents, options.vocab, options.scale).bytes,
      meanQueryPostings: queryPostings(index, queries, dataset.queryIds).mean,
      ndcg_cut_10: metrics.ndcg_cut_10 ?? 0,
      recip_rank_10: metrics.recip_rank_10 ?? 0,
    };
  });
}
