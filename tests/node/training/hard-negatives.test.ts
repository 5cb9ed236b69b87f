// The mining rules (src/contract/training/hard-negatives.ts, mined-rows.ts) against a reference written from
// sentence-transformers' mine_hard_negatives source (tests/helpers/mine-reference.ts), seeded, for every sampling mode
// and score rule, with and without include_positives, several positives per query and short retrievals; then the
// rules' edges one by one and the report.
import { describe, expect, it } from 'vitest';
import {
  defaultRangeMax,
  rulesThatMayDropPositives,
  samplePositions,
  selectNegatives,
  settleRules,
  type MiningRules,
  type QuerySelection,
} from '../../../src/contract/training/hard-negatives.ts';
import {
  includePositivesFormatProblem,
  minedRows,
  miningReport,
  OUTPUT_FORMATS,
  type MinedQuery,
} from '../../../src/contract/training/mined-rows.ts';
import { buildInvertedIndex } from '../../../src/retrieval/inverted-index.ts';
import { documentScore, IndexSearcher } from '../../../src/retrieval/search.ts';
import { Random } from '../../../src/util/random.ts';
import { sparseOf } from '../../helpers/sparse-of.ts';
import { referencePicks, referenceRows, type ReferenceQuery } from '../../helpers/mine-reference.ts';

/**
 * Queries over a corpus of 40 documents: 1 to 3 positives each, scores on a coarse grid (ties), some retrievals short;
 * a retrieved positive scores its positive score (as one index scores both), and half the positives are retrieved.
 */
function generatedQueries(seed: number, poolSize: number): ReferenceQuery[] {
  const random = new Random(seed);
  return Array.from({ length: 16 }, () => {
    const docs = Array.from({ length: 40 }, (_, d) => d).sort(() => random.next() - 0.5);
    const positives = docs.slice(0, 1 + random.int(3));
    const positiveScores = positives.map(() => 2 + random.int(8) / 2);
    const retrieved = random.next() < 0.25 ? random.int(poolSize) : poolSize;
    const chosen = [...docs].sort(() => random.next() - 0.5).slice(0, retrieved);
    positives.forEach((doc, i) => {
      if (!chosen.includes(doc) && chosen.length > i && random.next() < 0.5) chosen[chosen.length - 1 - i] = doc;
    });
    const ranked = chosen
      .map((doc) => ({ doc, score: positives.includes(doc) ? positiveScores[positives.indexOf(doc)] : random.int(12) / 2 }))
      .sort((a, b) => b.score - a.score || a.doc - b.doc);
    return { positives, positiveScores, docs: ranked.map((r) => r.doc), scores: ranked.map((r) => r.score) };
  });
}

const RULES: [string, Partial<MiningRules>][] = [
  ['no score rule', {}],
  ['absolute_margin 0.5', { absolute_margin: 0.5 }],
  ['absolute_margin 0', { absolute_margin: 0 }],
  ['relative_margin 0.1', { relative_margin: 0.1 }],
  ['max_score 3', { max_score: 3 }],
  ['min_score 1', { min_score: 1 }],
  ['range_min 2', { range_min: 2 }],
  ['range_max 7', { range_max: 7 }],
  ['every rule', { range_min: 1, range_max: 12, absolute_margin: 0.5, relative_margin: 0.05, max_score: 4, min_score: 0.5 }],
];

const CASES = RULES.flatMap(([name, rules]) =>
  (['top', 'random'] as const).flatMap((sampling_strategy) =>
    [1, 3].flatMap((num_negatives) =>
      [false, true].map((include_positives) => ({
        name: `${name}, ${sampling_strategy}, num_negatives ${num_negatives}${include_positives ? ', include_positives' : ''}`,
        rules: { range_min: 0, ...rules, sampling_strategy, num_negatives, include_positives } as MiningRules,
      })),
    ),
  ),
);

/** The formats a case may write: include_positives allows n-tuple only, as sentence-transformers. */
const formatsOf = (rules: MiningRules) => OUTPUT_FORMATS.filter((f) => !rules.include_positives || f === 'n-tuple');

function mine(queries: ReferenceQuery[], rules: MiningRules, seed: number) {
  const maxPositives = Math.max(...queries.map((q) => q.positives.length));
  const settled = settleRules(rules, maxPositives);
  const random = new Random(seed);
  const selections = queries.map((q) => selectNegatives(q, settled, random));
  return { settled, selections, maxPositives };
}

describe('mine_hard_negatives rules against the reference', () => {
  it.each(CASES)('$name: the same negatives, scores and rows of every output format it allows', ({ rules }) => {
    const settled = settleRules(rules, 3);
    for (const seed of [1, 2, 3]) {
      const queries = generatedQueries(seed, settled.range_max + 3);
      const { selections } = mine(queries, rules, 100 + seed);
      const picks = referencePicks(queries, settled, new Random(100 + seed));
      expect(selections.map((s) => ({ docs: s.negatives, scores: s.scores }))).toEqual(picks);
      const named: MinedQuery[] = queries.map((q, i) => ({ name: `q${i}`, text: `q${i}`, positives: q.positives }));
      for (const format of formatsOf(rules)) {
        const rows = minedRows(format, named, selections, rules.num_negatives).map(({ kind: _, ...row }) => row);
        expect(rows, format).toEqual(referenceRows(format, queries, picks, rules.num_negatives));
      }
    }
  });

  it('never chooses a positive, whatever its rank, under every case without include_positives', () => {
    for (const { rules } of CASES.filter((c) => !c.rules.include_positives)) {
      const queries = generatedQueries(7, settleRules(rules, 3).range_max + 3);
      const { selections } = mine(queries, rules, 7);
      selections.forEach((s, i) => expect(s.negatives.filter((d) => queries[i].positives.includes(d))).toEqual([]));
    }
  });

  it('chooses positives under include_positives, in every sampling mode (the cases above are not vacuous)', () => {
    for (const sampling_strategy of ['top', 'random'] as const) {
      const rules: MiningRules = { range_min: 0, num_negatives: 3, sampling_strategy, include_positives: true };
      const queries = generatedQueries(7, settleRules(rules, 3).range_max + 3);
      const { selections } = mine(queries, rules, 7);
      const chosen = selections.flatMap((s, i) => s.negatives.filter((d) => queries[i].positives.includes(d)));
      expect(chosen.length, sampling_strategy).toBeGreaterThan(3);
    }
  });
});

/** One query's candidates: documents 0.. in order with these scores; positives by document number. */
function candidates(scores: number[], positives: number[], positiveScores: number[]): ReferenceQuery {
  return { docs: scores.map((_, d) => d), scores, positives, positiveScores };
}

const top = (num_negatives: number, more: Partial<MiningRules> = {}): MiningRules => ({
  range_min: 0,
  num_negatives,
  sampling_strategy: 'top',
  ...more,
});

function pick(query: ReferenceQuery, rules: MiningRules): QuerySelection {
  return selectNegatives(query, settleRules(rules, query.positives.length), new Random(1));
}

describe('the rules one by one', () => {
  it('skips the positive ranked first and takes the next ones', () => {
    expect(pick(candidates([9, 8, 7, 6], [0], [9]), top(2)).negatives).toEqual([1, 2]);
  });

  it('include_positives keeps the positives in the ranking; a margin still takes out all but the lowest', () => {
    expect(pick(candidates([9, 8, 7, 6], [0], [9]), top(2, { include_positives: true })).negatives).toEqual([0, 1]);
    const two = candidates([9, 8, 7, 6], [0, 2], [9, 7]);
    const s = pick(two, top(2, { include_positives: true, absolute_margin: 0 }));
    expect(s.negatives).toEqual([2, 3]); // 0 and 1 score above the lowest positive, 7; 2 (that positive) stays
    expect([s.removed.positive, s.removed.absolute_margin]).toEqual([0, 2]);
  });

  it('include_positives: n-tuple only, and the options that may still drop a positive are named', () => {
    expect(includePositivesFormatProblem('n-tuple')).toBeNull();
    for (const format of ['triplet', 'labeled-pair', 'labeled-list'] as const)
      expect(includePositivesFormatProblem(format)).toMatch(/^include_positives writes n-tuple rows only/);
    expect(rulesThatMayDropPositives(top(3, { include_positives: true }))).toEqual([]);
    expect(
      rulesThatMayDropPositives({ ...top(3, { range_min: 1, range_max: 9, min_score: 0 }), sampling_strategy: 'random' }),
    ).toEqual(['range_min', 'range_max', 'min_score', 'sampling_strategy']);
  });

  it("absolute_margin takes out a candidate whose score + margin exceeds the query's lowest positive score (equal stays)", () => {
    const q = candidates([10.5, 9.5, 9, 8], [9], [10]);
    const s = pick(q, top(2, { absolute_margin: 1 }));
    expect(s.negatives).toEqual([2, 3]);
    expect(s.removed.absolute_margin).toBe(2);
  });

  it('relative_margin takes out a candidate above (1 - margin) x the lowest positive score (equal stays)', () => {
    const q = candidates([10.5, 9.5, 9, 8], [9], [10]);
    expect(pick(q, top(2, { relative_margin: 0.1 })).negatives).toEqual([2, 3]);
  });

  it('with several positives the margins compare with the lowest positive score', () => {
    const q = candidates([8, 7, 6, 5, 4], [10, 11], [9, 6.5]);
    expect(pick(q, top(2, { absolute_margin: 0 })).negatives).toEqual([2, 3]);
  });

  it('max_score and min_score bound the negatives, each counted', () => {
    const s = pick(candidates([9, 8, 7, 6, 1, 0.5], [20], [10]), top(2, { max_score: 8, min_score: 1 }));
    expect(s.negatives).toEqual([1, 2]);
    expect(s.removed.max_score).toBe(1);
    expect(s.removed.min_score).toBe(1);
  });

  it('range_min skips the best candidates left after the rules, not raw ranks', () => {
    const s = pick(candidates([9, 8, 7, 6, 5], [0], [9]), top(1, { range_min: 1, max_score: 7.5 }));
    // 0 is the positive, 1 is over max_score: left 2, 3, 4; range_min 1 skips 2
    expect(s.negatives).toEqual([3]);
    expect(s.belowRangeMin).toBe(1);
  });

  it("range_max defaults to sentence-transformers' depth, deeper with a margin or max_score", () => {
    expect(defaultRangeMax(top(3, { range_min: 2 }), 2)).toBe(2 + 3 + 2);
    expect(defaultRangeMax(top(3, { relative_margin: 0.05 }), 1)).toBe(30 + 1);
    expect(defaultRangeMax(top(3, { min_score: 0 }), 1)).toBe(3 + 1);
  });

  it('refuses rules that could give no query num_negatives, and values out of range', () => {
    expect(() => settleRules(top(5, { range_min: 4, range_max: 8 }), 1)).toThrow(
      /window of 4 candidates, fewer than num_negatives 5/,
    );
    expect(() => settleRules(top(0), 1)).toThrow(/num_negatives must be a whole number/);
    expect(() => settleRules(top(1, { range_max: 2.5 }), 1)).toThrow(/range_max must be a whole number/);
    expect(() => settleRules(top(1, { max_score: NaN }), 1)).toThrow(/max_score must be a finite number/);
    expect(() => settleRules({ ...top(1), sampling_strategy: 'best' as never }, 1)).toThrow(
      /sampling_strategy must be top or random/,
    );
  });

  it('random draws distinct window positions, reproducible by seed and uniform', () => {
    const counts = new Array<number>(10).fill(0);
    const random = new Random(5);
    for (let i = 0; i < 3000; i++) {
      const picked = samplePositions(10, 3, random);
      expect(new Set(picked).size).toBe(3);
      for (const p of picked) counts[p]++;
    }
    for (const c of counts) expect(Math.abs(c / 3000 - 0.3)).toBeLessThan(0.03);
    expect(samplePositions(10, 3, new Random(9))).toEqual(samplePositions(10, 3, new Random(9)));
  });
});

describe('the report of a mining', () => {
  it('counts the queries that got fewer negatives than asked, and says why', () => {
    const queries = [
      candidates([9, 8, 7, 6, 5, 4], [0], [9]), // full
      candidates([9, 8], [0], [9]), // retrieval short: 1 negative
      candidates([9, 8.9, 8.8, 1, 0.5, 0.2], [5], [9]), // its positive and 3 over relative_margin out: 2 left
      candidates([], [0], [1]), // nothing retrieved
    ];
    const rules = settleRules(top(3, { relative_margin: 0.05, range_max: 5 }), 1);
    const random = new Random(1);
    const selections = queries.map((q) => selectNegatives(q, rules, random));
    const named = queries.map((q, i) => ({ name: `q${i}`, text: `q${i}`, positives: q.positives }));
    const rows = minedRows('triplet', named, selections, 3);
    const report = miningReport(
      named,
      selections,
      queries.map((q) => q.positiveScores),
      rules,
      6,
      rows.length,
      'triplet',
    );
    expect([report.full, report.short, report.none]).toEqual([1, 3, 1]);
    expect(report.shortQueries.map((q) => [q.name, q.got, q.causes])).toEqual([
      ['q1', 1, ['retrieval', 'positive']],
      ['q2', 2, ['positive', 'relative_margin']],
      ['q3', 0, ['retrieval']],
    ]);
    expect(report.causes.retrieval).toEqual({ queries: 2, candidates: 4 + 6 });
    expect(report.causes.relative_margin).toEqual({ queries: 1, candidates: 3 });
    expect(report.causes.positive).toEqual({ queries: 2, candidates: 2 });
    expect(report.removed.relative_margin.candidates).toBe(3);
    expect([report.rows, report.possibleRows]).toEqual([3 + 1 + 2, 12]);
  });
});

describe("a positive's score", () => {
  it('is the score the search gives that document, bit for bit, and 0 for one sharing no term', () => {
    const docs = [sparseOf([1, 0.3], [4, 1.7]), sparseOf([2, 0.1]), sparseOf([1, 0.7], [2, 0.9], [4, 0.2]), sparseOf([7, 1])];
    const index = buildInvertedIndex(docs, 8);
    const query = sparseOf([1, 1.1], [2, 0.35], [4, 2.3]);
    const ranking = new IndexSearcher(index).search(query, 4);
    ranking.docs.forEach((d, r) => expect(documentScore(index, query, d)).toBe(ranking.scores[r]));
    expect(documentScore(index, query, 3)).toBe(0);
  });
});
