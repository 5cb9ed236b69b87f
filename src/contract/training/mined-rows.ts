// The rows a mining writes, in sentence-transformers' output formats (triplet, n-tuple, labeled-pair, labeled-list),
// and the report of what the rules did: how many queries got fewer negatives than asked, and why. Pure.
import { REMOVAL_RULES, type QuerySelection, type RemovalRule, type SettledRules } from './hard-negatives.ts';

export const OUTPUT_FORMATS = ['triplet', 'n-tuple', 'labeled-pair', 'labeled-list'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/**
 * Why `format` cannot carry include_positives, or null: sentence-transformers writes include_positives' candidates as
 * n-tuples only (it sets any other format to n-tuple, so that a row keeps the ranking with the positives in place).
 */
export function includePositivesFormatProblem(format: OutputFormat): string | null {
  if (format === 'n-tuple') return null;
  return (
    `include_positives writes n-tuple rows only (sentence-transformers turns any other output_format into n-tuple, so that ` +
    `a row keeps the whole ranking with its positives in place); ${format} rows would lose that order`
  );
}

/** A query as mined: a name for messages (its id, or where it was read), its text, its positives' document numbers. */
export interface MinedQuery {
  name: string;
  text: string;
  positives: readonly number[];
}

/**
 * One output row, by query and document numbers: a query with a positive and negatives (triplet: one; n-tuple:
 * num_negatives; labeled-list: those found, with labels 1 then 0 each), or a labeled pair (one passage, 1 or 0).
 */
export type MinedRow =
  | { kind: 'tuple'; query: number; positive: number; negatives: number[]; labels?: number[] }
  | { kind: 'pair'; query: number; passage: number; label: 0 | 1 };

/**
 * The rows of `format`, query by query in the queries' order, a query's positives in their order, as
 * sentence-transformers writes them: triplet, one row per (positive, negative); n-tuple, one row per positive of a
 * query that got all num_negatives (others dropped); labeled-pair, each positive labelled 1 then each negative 0 (once
 * per query); labeled-list, one row per positive of a query that got any negative, labels [1, 0, ...].
 */
export function minedRows(
  format: OutputFormat,
  queries: readonly MinedQuery[],
  selections: readonly QuerySelection[],
  numNegatives: number,
): MinedRow[] {
  const rows: MinedRow[] = [];
  queries.forEach((q, query) => {
    const { negatives } = selections[query];
    if (format === 'labeled-pair') {
      for (const passage of q.positives) rows.push({ kind: 'pair', query, passage, label: 1 });
      for (const passage of negatives) rows.push({ kind: 'pair', query, passage, label: 0 });
      return;
    }
    for (const positive of q.positives) {
      if (format === 'triplet')
        for (const negative of negatives) rows.push({ kind: 'tuple', query, positive, negatives: [negative] });
      else if (format === 'n-tuple' && negatives.length === numNegatives)
        rows.push({ kind: 'tuple', query, positive, negatives: [...negatives] });
      else if (format === 'labeled-list' && negatives.length > 0)
        rows.push({ kind: 'tuple', query, positive, negatives: [...negatives], labels: [1, ...negatives.map(() => 0)] });
    }
  });
  return rows;
}

/** The most rows `format` could hold: every query with all num_negatives. */
export function possibleRows(format: OutputFormat, queries: readonly MinedQuery[], numNegatives: number): number {
  let rows = 0;
  for (const q of queries) {
    if (format === 'triplet') rows += q.positives.length * numNegatives;
    else if (format === 'labeled-pair') rows += q.positives.length + numNegatives;
    else rows += q.positives.length;
  }
  return rows;
}

/** Why a query got fewer negatives than asked: retrieval found fewer candidates than it looked for, a rule took some out, range_min skipped some. */
export const SHORTFALL_CAUSES = ['retrieval', ...REMOVAL_RULES, 'range_min'] as const;
export type ShortfallCause = (typeof SHORTFALL_CAUSES)[number];

export interface ShortQuery {
  name: string;
  got: number;
  retrieved: number;
  removed: Record<RemovalRule, number>;
  belowRangeMin: number;
  causes: ShortfallCause[];
}

/** count, mean, min and max of some scores (0 count: the others NaN). */
export interface ScoreSummary {
  count: number;
  mean: number;
  min: number;
  max: number;
}

export interface MiningReport {
  queries: number;
  numNegatives: number;
  rangeMin: number;
  rangeMax: number;
  /** Candidates retrieved per query at most: range_max + the most positives a query has. */
  poolSize: number;
  /** Queries with num_negatives, with fewer, with none. */
  full: number;
  short: number;
  none: number;
  /** For each cause: the short queries it played in, and the candidates it took from them. */
  causes: Record<ShortfallCause, { queries: number; candidates: number }>;
  /** Candidates each rule took out over every query, and their share of the candidates retrieved. */
  removed: Record<RemovalRule, { candidates: number; share: number }>;
  retrieved: number;
  rows: number;
  possibleRows: number;
  positiveScores: ScoreSummary;
  negativeScores: ScoreSummary;
  /** Every query with fewer than num_negatives, in query order. */
  shortQueries: ShortQuery[];
}

function summary(scores: readonly number[]): ScoreSummary {
  if (scores.length === 0) return { count: 0, mean: NaN, min: NaN, max: NaN };
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const s of scores) {
    sum += s;
    min = Math.min(min, s);
    max = Math.max(max, s);
  }
  return { count: scores.length, mean: sum / scores.length, min, max };
}

/** The causes of one short query's shortfall. */
function causesOf(s: QuerySelection, rules: SettledRules, poolSize: number): ShortfallCause[] {
  const causes: ShortfallCause[] = [];
  if (s.retrieved < poolSize) causes.push('retrieval');
  for (const rule of REMOVAL_RULES) if (s.removed[rule] > 0) causes.push(rule);
  if (rules.range_min > 0 && s.belowRangeMin > 0) causes.push('range_min');
  return causes;
}

/** The report of a mining: counts per query and per rule, the rows against the most there could be, score summaries. */
export function miningReport(
  queries: readonly MinedQuery[],
  selections: readonly QuerySelection[],
  positiveScores: readonly (readonly number[])[],
  rules: SettledRules,
  poolSize: number,
  rows: number,
  format: OutputFormat,
): MiningReport {
  const zero = () => ({ queries: 0, candidates: 0 });
  const causes = Object.fromEntries(SHORTFALL_CAUSES.map((c) => [c, zero()])) as Record<
    ShortfallCause,
    { queries: number; candidates: number }
  >;
  const removedTotal = Object.fromEntries(REMOVAL_RULES.map((r) => [r, 0])) as Record<RemovalRule, number>;
  const shortQueries: ShortQuery[] = [];
  let retrieved = 0;
  let none = 0;
  selections.forEach((s, q) => {
    retrieved += s.retrieved;
    for (const rule of REMOVAL_RULES) removedTotal[rule] += s.removed[rule];
    if (s.negatives.length >= rules.num_negatives) return;
    if (s.negatives.length === 0) none++;
    const found = causesOf(s, rules, poolSize);
    for (const cause of found) {
      causes[cause].queries++;
      causes[cause].candidates +=
        cause === 'retrieval' ? poolSize - s.retrieved : cause === 'range_min' ? s.belowRangeMin : s.removed[cause];
    }
    shortQueries.push({
      name: queries[q].name,
      got: s.negatives.length,
      retrieved: s.retrieved,
      removed: { ...s.removed },
      belowRangeMin: s.belowRangeMin,
      causes: found,
    });
  });
  const removed = Object.fromEntries(
    REMOVAL_RULES.map((r) => [r, { candidates: removedTotal[r], share: retrieved ? removedTotal[r] / retrieved : 0 }]),
  ) as Record<RemovalRule, { candidates: number; share: number }>;
  return {
    queries: queries.length,
    numNegatives: rules.num_negatives,
    rangeMin: rules.range_min,
    rangeMax: rules.range_max,
    poolSize,
    full: queries.length - shortQueries.length,
    short: shortQueries.length,
    none,
    causes,
    removed,
    retrieved,
    rows,
    possibleRows: possibleRows(format, queries, rules.num_negatives),
    positiveScores: summary(positiveScores.flat()),
    negativeScores: summary(selections.flatMap((s) => s.scores)),
    shortQueries,
  };
}
