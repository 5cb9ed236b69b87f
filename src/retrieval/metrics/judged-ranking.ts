// Turns one query's scored documents plus its judgments into the ranked relevance list every trec_eval measure reads.

/** Relevance value of a retrieved document that is absent from the qrels (trec_eval's RELVALUE_NONPOOL). */
const NOT_IN_POOL = -1;
/** Relevance value of a document in the qrels with a negative grade: pooled but unjudged (RELVALUE_UNJUDGED). */
const POOLED_UNJUDGED = -2;

export interface JudgeOptions {
  /** Grades >= this count as relevant for binary measures (trec_eval -l, default 1). */
  relevanceLevel: number;
  /** Only the first this many ranked documents are evaluated (trec_eval -M). */
  maxDocsPerQuery: number;
  /** Drop retrieved documents without a judgment before ranking (trec_eval -J). */
  judgedOnly: boolean;
}

const defaultJudgeOptions: JudgeOptions = { relevanceLevel: 1, maxDocsPerQuery: Number.MAX_SAFE_INTEGER, judgedOnly: false };

export interface JudgedRanking {
  /** Relevance value at each rank (rank 1 first): a grade >= 0, NOT_IN_POOL or POOLED_UNJUDGED. */
  rels: Float64Array; // (numRet,) grades are longs, as in trec_eval
  numRet: number;
  /** Judged documents with grade >= relevanceLevel, retrieved or not. */
  numRel: number;
  numRelRet: number;
  numNotInPool: number;
  numPooledUnjudged: number;
  /** [grade, judged documents (retrieved or not) of that grade] for each grade >= 0 present, grades ascending. */
  gradeCounts: [grade: number, count: number][];
}

/** Byte-order comparison as C strcmp makes it for ASCII ids (UTF-16 code-unit order otherwise). */
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Ranks by score descending, ties by document id descending (trec_eval ignores the rank column),
 * keeps the first `maxDocsPerQuery`, and looks each document up in the judgments.
 */
export function judgeRanking(
  scores: ReadonlyMap<string, number> | undefined,
  judgments: ReadonlyMap<string, number>,
  options: JudgeOptions = defaultJudgeOptions,
): JudgedRanking {
  const ranked = [...(scores ?? new Map<string, number>())].sort((a, b) => b[1] - a[1] || compareIds(b[0], a[0]));
  let kept = ranked.slice(0, options.maxDocsPerQuery).map(([docId]) => {
    const grade = judgments.get(docId);
    return grade === undefined ? NOT_IN_POOL : grade < 0 ? POOLED_UNJUDGED : grade;
  });
  if (options.judgedOnly) kept = kept.filter((rel) => rel >= 0);

  // Sparse: a grade may be any long trec_eval's atol reads (a dense array indexed by grade could be gigabytes).
  const counts = new Map<number, number>();
  for (const grade of judgments.values()) if (grade >= 0) counts.set(grade, (counts.get(grade) ?? 0) + 1);
  const gradeCounts = [...counts].sort((a, b) => a[0] - b[0]);

  let numRel = 0;
  for (const [grade, count] of gradeCounts) if (grade >= options.relevanceLevel) numRel += count;
  const rels = Float64Array.from(kept);
  let numRelRet = 0;
  let numNotInPool = 0;
  let numPooledUnjudged = 0;
  for (const rel of rels) {
    if (rel === NOT_IN_POOL) numNotInPool++;
    else if (rel === POOLED_UNJUDGED) numPooledUnjudged++;
    else if (rel >= options.relevanceLevel) numRelRet++;
  }
  return { rels, numRet: rels.length, numRel, numRelRet, numNotInPool, numPooledUnjudged, gradeCounts };
}
