// One text's SPLADE vector as the lesson explains it: its top terms (expansions marked) with the special pieces
// ([CLS], [SEP], [unused…]: the audit's "special" kind) listed apart, how many dimensions are active, its FLOPS, and the
// logits behind the weights (w = log(1 + max(0, logit)), so logit = e^w − 1 exactly).
import type { TextTokenizer } from '../../io/tokenizer/tokenizer.ts';
import type { SparseVector } from '../../util/sparse-vector.ts';
import type { ModelSession } from '../model/model-session.ts';
import { pieceKind, pieceMarkingOf } from '../model/piece-kinds.ts';
import { summarizeSparse } from '../model/sparse-summary.ts';
import { LessonVector } from '../../contract/lesson/lesson-frames.ts';

/** Any marking will do: a piece's special kind does not depend on it. */
const WORDPIECE = pieceMarkingOf([]);

/** Whether vocabulary id `id` (spelt `term`) is of the audit's "special" kind under `tokenizer`. */
function isSpecial(tokenizer: TextTokenizer, id: number, term: string): boolean {
  const special = Object.values(tokenizer.specialIds).includes(id);
  return pieceKind(term, WORDPIECE, special) === 'special';
}

/** The lesson's view of `vector`, the SPLADE vector of `text` under W_head / k. */
export function lessonVector(
  text: string,
  k: number,
  vector: SparseVector,
  tokenizer: TextTokenizer,
  topTerms: number,
): LessonVector {
  const weights = Array.from(vector.values);
  const logits = weights.map(Math.expm1).sort((a, b) => a - b);
  const maxWeight = weights.reduce((a, b) => Math.max(a, b), 0);
  // every term, heaviest first, split into the special pieces and the others
  const all = summarizeSparse(text, vector, tokenizer, vector.indices.length);
  const special = all.terms.filter((t) => isSpecial(tokenizer, t.id, t.term));
  const shown = new Set(special);
  return {
    k,
    ...all,
    terms: all.terms.filter((t) => !shown.has(t)).slice(0, topTerms),
    vocabSize: tokenizer.vocabSize,
    special: special.slice(0, topTerms),
    specialDims: special.length,
    flops: weights.reduce((sum, w) => sum + w * w, 0),
    weightSum: weights.reduce((sum, w) => sum + w, 0),
    maxWeight,
    maxLogit: Math.expm1(maxWeight),
    medianLogit: logits.length ? (logits[(logits.length - 1) >> 1] + logits[logits.length >> 1]) / 2 : 0,
  };
}

/** `text` encoded under each k by the loaded model (the lesson's first two steps). */
export async function lessonSentence(
  session: ModelSession,
  text: string,
  ks: readonly number[],
  topTerms: number,
  maxLength: number,
): Promise<LessonVector[]> {
  const views: LessonVector[] = [];
  for (const k of ks) {
    const [vector] = await session.encode([text], { k, maxLength });
    views.push(lessonVector(text, k, vector, session.model.tokenizer, topTerms));
  }
  return views;
}
