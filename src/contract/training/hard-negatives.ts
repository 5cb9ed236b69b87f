// Which of a query's retrieved candidates become its hard negatives, by sentence-transformers' mine_hard_negatives rules
// (util/hard_negatives.py), written afresh: positives never; absolute_margin, relative_margin (against the query's
// hardest positive), max_score and min_score; then the window range_min..range_max over what is left, and num_negatives
// of it, the top ones or a seeded random draw. include_positives keeps the positives among the candidates (a reranking
// set's full ranking). Pure: the candidates and their scores come from the caller.
import type { Random } from '../../util/random.ts';
import { checkRange, InvalidRequestError, type NumberRange } from '../limits.ts';

export const SAMPLING_STRATEGIES = ['top', 'random'] as const;
export type SamplingStrategy = (typeof SAMPLING_STRATEGIES)[number];

/** The rules under sentence-transformers' names; an absent score rule is off. */
export interface MiningRules {
  range_min: number;
  /** Absent: defaultRangeMax's value, as sentence-transformers sets it. */
  range_max?: number;
  max_score?: number;
  min_score?: number;
  absolute_margin?: number;
  relative_margin?: number;
  num_negatives: number;
  sampling_strategy: SamplingStrategy;
  /**
   * Keep the query's positives among the candidates, ranked like any other (sentence-transformers' include_positives,
   * for reranking evaluation sets): only the n-tuple format allows it (includePositivesFormatProblem).
   */
  include_positives?: boolean;
}

/** The rules with range_max settled. */
export type SettledRules = MiningRules & { range_max: number };

/** What each count may be (range_max is a retrieval depth: eval's largest top-k). */
export const MINING_LIMITS = {
  num_negatives: { min: 1, max: 1000, integer: true },
  range_min: { min: 0, max: 100_000, integer: true },
  range_max: { min: 1, max: 100_000, integer: true },
} as const satisfies Record<string, NumberRange>;

/** The rules that take a candidate out, in the order sentence-transformers applies them. */
export const REMOVAL_RULES = ['positive', 'absolute_margin', 'relative_margin', 'max_score', 'min_score'] as const;
export type RemovalRule = (typeof REMOVAL_RULES)[number];

/**
 * The options set away from their defaults that may still take a positive out when include_positives keeps them:
 * sentence-transformers warns about range_min, range_max, max_score, the margins and sampling_strategy (min_score and
 * the margins may drop a positive too, so they are named here as well).
 */
export function rulesThatMayDropPositives(rules: MiningRules): string[] {
  const set: string[] = [];
  if (rules.range_min !== 0) set.push('range_min');
  for (const name of ['range_max', 'max_score', 'min_score', 'absolute_margin', 'relative_margin'] as const)
    if (rules[name] !== undefined) set.push(name);
  if (rules.sampling_strategy !== 'top') set.push('sampling_strategy');
  return set;
}

/** Whether a score rule is on (sentence-transformers looks deeper by default when one is). */
function filtersByScore(rules: MiningRules): boolean {
  return rules.absolute_margin !== undefined || rules.relative_margin !== undefined || rules.max_score !== undefined;
}

/**
 * sentence-transformers' range_max when none is given: range_min + num_negatives + the most positives a query has, or
 * range_min + 10 num_negatives + that when a margin or max_score may take candidates out (min_score does not count).
 */
export function defaultRangeMax(rules: MiningRules, maxPositives: number): number {
  return rules.range_min + rules.num_negatives * (filtersByScore(rules) ? 10 : 1) + maxPositives;
}

/** The rules checked (counts in MINING_LIMITS, scores finite, a window of at least num_negatives), range_max settled. */
export function settleRules(rules: MiningRules, maxPositives: number): SettledRules {
  for (const name of ['num_negatives', 'range_min'] as const) checkRange(rules[name], MINING_LIMITS[name], name);
  for (const name of ['max_score', 'min_score', 'absolute_margin', 'relative_margin'] as const) {
    const value = rules[name];
    if (value !== undefined && !Number.isFinite(value))
      throw new InvalidRequestError(`${name} must be a finite number, got ${value}`);
  }
  if (!SAMPLING_STRATEGIES.includes(rules.sampling_strategy))
    throw new InvalidRequestError(
      `sampling_strategy must be ${SAMPLING_STRATEGIES.join(' or ')}, got "${rules.sampling_strategy}"`,
    );
  const range_max = rules.range_max ?? defaultRangeMax(rules, maxPositives);
  checkRange(range_max, MINING_LIMITS.range_max, 'range_max');
  if (range_max - rules.range_min < rules.num_negatives)
    throw new InvalidRequestError(
      `range_max ${range_max} - range_min ${rules.range_min} leaves a window of ${Math.max(0, range_max - rules.range_min)} candidates, ` +
        `fewer than num_negatives ${rules.num_negatives}: no query could get as many; raise range_max or lower range_min`,
    );
  return { ...rules, range_max };
}

/** Candidates to retrieve per query: range_max plus the most positives a query has (they may rank among them). */
export function candidatePoolSize(rules: SettledRules, maxPositives: number): number {
  return rules.range_max + maxPositives;
}

/** One query's retrieved candidates, best first, with its positives and their scores under the same scorer. */
export interface RankedCandidates {
  docs: ArrayLike<number>; // (n,) document numbers, best first
  scores: ArrayLike<number>; // (n,)
  /** Document numbers of the query's positives (at least one). */
  positives: readonly number[];
  positiveScores: readonly number[];
}

/** What the rules did with one query's candidates. */
export interface QuerySelection {
  /** The chosen negatives (document numbers), best score first, and their scores. */
  negatives: number[];
  scores: number[];
  /** Candidates the retrieval returned. */
  retrieved: number;
  /** Candidates each rule took out (each counted under the first rule that takes it). */
  removed: Record<RemovalRule, number>;
  /** Candidates left after the rules but ranked above range_min (skipped). */
  belowRangeMin: number;
  /** Candidates in the window range_min..range_max: what the choice is made from. */
  eligible: number;
}

/** The first rule that takes a candidate out, or null. `hardest` is the query's lowest positive score. */
function removalOf(
  doc: number,
  score: number,
  positives: ReadonlySet<number>,
  hardest: number,
  rules: MiningRules,
): RemovalRule | null {
  if (!rules.include_positives && positives.has(doc)) return 'positive';
  if (rules.absolute_margin !== undefined && score + rules.absolute_margin > hardest) return 'absolute_margin';
  if (rules.relative_margin !== undefined && score > hardest * (1 - rules.relative_margin)) return 'relative_margin';
  if (rules.max_score !== undefined && score > rules.max_score) return 'max_score';
  if (rules.min_score !== undefined && score < rules.min_score) return 'min_score';
  return null;
}

/**
 * `count` distinct positions of [0, n) in draw order, as Python's random.sample draws from a small population (its
 * pool method): each pick takes a uniform slot of what is left and moves the last one into it.
 */
export function samplePositions(n: number, count: number, random: Random): number[] {
  const pool = Array.from({ length: n }, (_, i) => i);
  const picked: number[] = [];
  for (let i = 0; i < count; i++) {
    const j = random.int(n - i);
    picked.push(pool[j]);
    pool[j] = pool[n - i - 1];
  }
  return picked;
}

/**
 * The negatives of one query. Candidates the rules take out are dropped (the query's positives too, unless
 * include_positives keeps them); the rest keep their order by score (ties in
 * retrieval order); the window is positions range_min..range_max of that order; "top" takes its first num_negatives,
 * "random" draws num_negatives positions of max(window, num_negatives) (samplePositions on `random`, as
 * sentence-transformers clamps its options) and keeps those inside the window, ordered by score.
 */
export function selectNegatives(candidates: RankedCandidates, rules: SettledRules, random: Random): QuerySelection {
  if (candidates.positives.length === 0)
    throw new InvalidRequestError('a query needs at least one positive to mine negatives for');
  const hardest = Math.min(...candidates.positiveScores);
  const positives = new Set(candidates.positives);
  const removed: Record<RemovalRule, number> = {
    positive: 0,
    absolute_margin: 0,
    relative_margin: 0,
    max_score: 0,
    min_score: 0,
  };
  const kept: number[] = []; // positions in the retrieved list
  for (let i = 0; i < candidates.docs.length; i++) {
    const rule = removalOf(candidates.docs[i], candidates.scores[i], positives, hardest, rules);
    if (rule) removed[rule]++;
    else kept.push(i);
  }
  const byScore = (a: number, b: number) => candidates.scores[b] - candidates.scores[a] || a - b;
  kept.sort(byScore);
  const window = kept.slice(rules.range_min, rules.range_max);
  const n = rules.num_negatives;
  const chosen =
    rules.sampling_strategy === 'top'
      ? window.slice(0, n)
      : samplePositions(Math.max(window.length, n), n, random)
          .filter((p) => p < window.length)
          .map((p) => window[p])
          .sort(byScore);
  return {
    negatives: chosen.map((i) => candidates.docs[i]),
    scores: chosen.map((i) => candidates.scores[i]),
    retrieved: candidates.docs.length,
    removed,
    belowRangeMin: Math.min(rules.range_min, kept.length),
    eligible: window.length,
  };
}
