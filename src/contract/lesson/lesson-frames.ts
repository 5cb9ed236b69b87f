// What the teaching lesson shows as it plays: its facts, each frame of the runs side by side, the held-out measures.
/** The held-out queries of the generated task, searched over its whole corpus. */

import type { LessonSettings, LessonRecipe } from './lesson-settings.ts';
import type { SparseSummary, SparseTerm } from '../model/model-results.ts';

export interface HeldOutMeasure {
  ndcg10: number;
  recall10: number;
  queryActiveDims: number;
  documentActiveDims: number;
  /** Expected multiplications per query-document pair (Σ_j p_q(j)·p_d(j)): the retrieval cost k trades. */
  flops: number;
}

/** One k at one step. */
export interface LessonRunFrame {
  k: number;
  /** The step's loss parts and its batch's mean active dimensions (null before the first step). */
  losses: { rank: number; flopsQueries: number; flopsDocuments: number; total: number } | null;
  active: { queries: number; documents: number } | null;
  /** The watched query's vector now. */
  probe: LessonVector;
  /** Measured at this step (measuredAt), else null. */
  heldOut: HeldOutMeasure | null;
}

export interface LessonFrame {
  /** Steps taken by every k (0: before training). */
  step: number;
  runs: LessonRunFrame[];
}

/** What the lesson trains on and measures, for captions and the task view. */
export interface LessonFacts {
  settings: LessonSettings;
  /** The watched query (a held-out one) and how many queries, documents and training triplets the task has. */
  probe: string;
  queries: number;
  documents: number;
  triplets: number;
  recipe: LessonRecipe;
}

/**
 * One text's vector as the lesson shows it. `terms` are its heaviest terms other than the special pieces ([CLS], [SEP],
 * [PAD], [MASK], [UNK], [unused…]: the audit's "special" kind), which keep their weights in the vector (and in
 * `activeDims`) but are listed apart in `special`, so that they never pass for top terms.
 */
export interface LessonVector extends SparseSummary {
  k: number;
  /** V: the vector's length (the vocabulary). */
  vocabSize: number;
  /** The heaviest active special pieces (at most as many as `terms`), and how many special pieces are active. */
  special: SparseTerm[];
  specialDims: number;
  /** Σ_j w_j²: one vector's FLOPS term (the batch mean of |w_j| squared, for a batch of one). */
  flops: number;
  /** Sum of the weights. */
  weightSum: number;
  /** The largest weight and the logit it saturates (e^w − 1). */
  maxWeight: number;
  maxLogit: number;
  /** The median logit of the active dimensions: where a typical term sits on the log curve. */
  medianLogit: number;
}

/**
 * Special pieces by their spelling alone, for term lists recorded without their ids (the head-growth recording): BERT's
 * [CLS] [SEP] [PAD] [MASK] [UNK] and [unusedN], RoBERTa's <s> </s> <pad> <mask> <unk>, <|…|> and <unusedN>.
 */
export const SPECIAL_SPELLING = /^(\[(CLS|SEP|PAD|MASK|UNK)\]|\[unused\d+\]|<\/?s>|<(pad|mask|unk)>|<\|[^|]*\|>|<unused\d+>)$/;

/** A recorded list of terms split into the special pieces (by spelling) and the others, in their order. */
export function apartBySpelling<T extends { term: string }>(terms: readonly T[]): { terms: T[]; special: T[] } {
  return {
    terms: terms.filter((t) => !SPECIAL_SPELLING.test(t.term)),
    special: terms.filter((t) => SPECIAL_SPELLING.test(t.term)),
  };
}
