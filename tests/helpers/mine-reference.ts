// A plain reference of sentence-transformers' mine_hard_negatives selection (util/hard_negatives.py, v5.x), written
// the way its source computes, for the tests of src/contract/training/hard-negatives.ts and mined-rows.ts: a score
// matrix of range_max + max_positives candidates per query, disqualified entries set to -Infinity in the source's
// order (the positives first, unless include_positives keeps them), topk(range_max), [range_min:], then "top" or Python's random.sample over the clamped options, re-sorted; rows
// exploded per positive and per format. Ties keep candidate order (torch.topk and sort leave it open). Two deliberate departures, which the module under test makes too: the margins
// use each query's own lowest positive score (the source's loop advances by n_positives[q_idx - 1], which equals that
// only when every query has as many positives), and labeled-pair takes each query's own negatives (the source indexes
// the exploded matrix by query).
import type { Random } from '../../src/util/random.ts';

export interface ReferenceParams {
  range_min: number;
  range_max: number;
  num_negatives: number;
  sampling_strategy: 'top' | 'random';
  absolute_margin?: number;
  relative_margin?: number;
  max_score?: number;
  min_score?: number;
  /** The source's include_positives: the positive mask is not applied (the margins and the window still are). */
  include_positives?: boolean;
}

export interface ReferenceQuery {
  positives: number[];
  positiveScores: number[];
  /** Retrieved candidates best first (fewer than range_max + max_positives when retrieval found fewer). */
  docs: number[];
  scores: number[];
}

/** A query's negatives: document numbers and scores, -Infinity entries dropped. */
export interface ReferencePick {
  docs: number[];
  scores: number[];
}

/** Python's random.sample(range(n), k) by its pool method, on our generator (randbelow(m) as random.int(m)). */
function pythonSample(n: number, k: number, random: Random): number[] {
  const pool = Array.from({ length: n }, (_, i) => i);
  const result: number[] = [];
  for (let i = 0; i < k; i++) {
    const j = random.int(n - i);
    result.push(pool[j]);
    pool[j] = pool[n - i - 1];
  }
  return result;
}

/** Indices of `row` sorted by value descending (stable), the first `k`: torch.topk with ties in order. */
function topk(row: number[], k: number): number[] {
  return row
    .map((_, i) => i)
    .sort((a, b) => (row[b] === row[a] ? a - b : row[b] > row[a] ? 1 : -1))
    .slice(0, k);
}

/** The per-query negatives as the source's matrix steps give them. */
export function referencePicks(queries: ReferenceQuery[], p: ReferenceParams, random: Random): ReferencePick[] {
  const maxPositives = Math.max(...queries.map((q) => q.positives.length));
  const width = p.range_max + maxPositives;
  // scores (Q, width) and indices (Q, width), a short retrieval padded with -inf
  const scores = queries.map((q) => Array.from({ length: width }, (_, i) => (i < q.scores.length ? q.scores[i] : -Infinity)));
  const indices = queries.map((q) => Array.from({ length: width }, (_, i) => (i < q.docs.length ? q.docs[i] : -1)));
  if (!p.include_positives)
    queries.forEach((q, r) => indices[r].forEach((d, c) => q.positives.includes(d) && (scores[r][c] = -Infinity)));
  const hardest = queries.map((q) => Math.min(...q.positiveScores));
  const mask = (test: (s: number, r: number) => boolean) =>
    scores.forEach((row, r) => row.forEach((s, c) => test(s, r) && (row[c] = -Infinity)));
  if (p.absolute_margin !== undefined) mask((s, r) => s + p.absolute_margin! > hardest[r]);
  if (p.relative_margin !== undefined) mask((s, r) => s > hardest[r] * (1 - p.relative_margin!));
  if (p.max_score !== undefined) mask((s) => s > p.max_score!);
  if (p.min_score !== undefined) mask((s) => s < p.min_score!);
  return scores.map((row, r) => {
    const order = topk(row, p.range_max).slice(p.range_min); // (range_max - range_min,)
    let picked: number[];
    if (p.sampling_strategy === 'top') picked = order.slice(0, p.num_negatives);
    else {
      const options = Math.max(order.length - order.filter((c) => row[c] === -Infinity).length, p.num_negatives);
      picked = pythonSample(options, p.num_negatives, random)
        .map((j) => order[j])
        .sort((a, b) => (row[a] === row[b] ? a - b : row[b] > row[a] ? 1 : -1)); // by score, ties in candidate order
    }
    const finite = picked.filter((c) => c !== undefined && row[c] !== -Infinity);
    return { docs: finite.map((c) => indices[r][c]), scores: finite.map((c) => row[c]) };
  });
}

/** A row as the source's output formats write it: by query number and document numbers. */
export type ReferenceRow =
  | { query: number; positive: number; negatives: number[]; labels?: number[] }
  | { query: number; passage: number; label: number };

/** The rows of each output format, exploded per positive in the source's order. */
export function referenceRows(
  format: 'triplet' | 'n-tuple' | 'labeled-pair' | 'labeled-list',
  queries: ReferenceQuery[],
  picks: ReferencePick[],
  numNegatives: number,
): ReferenceRow[] {
  const rows: ReferenceRow[] = [];
  queries.forEach((q, query) => {
    const negatives = picks[query].docs;
    if (format === 'labeled-pair') {
      q.positives.forEach((passage) => rows.push({ query, passage, label: 1 }));
      negatives.forEach((passage) => rows.push({ query, passage, label: 0 }));
      return;
    }
    for (const positive of q.positives) {
      if (format === 'triplet') negatives.forEach((negative) => rows.push({ query, positive, negatives: [negative] }));
      if (format === 'n-tuple' && negatives.length === numNegatives) rows.push({ query, positive, negatives });
      if (format === 'labeled-list' && negatives.length > 0)
        rows.push({ query, positive, negatives, labels: [1, ...negatives.map(() => 0)] });
    }
  });
  return rows;
}
