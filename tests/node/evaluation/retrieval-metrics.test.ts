// trec_eval equivalence: every measure we compute must print exactly as trec_eval printed it on its own test suite.
import { describe, expect, it } from 'vitest';
import { atol, formatRun, parseQrels, parseRun } from '../../../src/io/beir/trec.ts';
import { evaluateRun } from '../../../src/retrieval/metrics/evaluate-run.ts';
import { formatFixed, formatMeasureValue } from '../../../src/retrieval/metrics/format-trec-eval.ts';
import { readFixtureText, readTrecEvalOutput, type TrecEvalRow } from '../../helpers/fixtures.ts';

const run = parseRun(readFixtureText('trec_eval/results.test'), 'results.test').run;

/** Our value for each (query, measure) row that trec_eval printed and that we implement. */
function compareRows(rows: TrecEvalRow[], evaluation: ReturnType<typeof evaluateRun>) {
  const mismatches: string[] = [];
  let compared = 0;
  for (const row of rows) {
    const ours =
      row.queryId === 'all' ? evaluation.summary.get(row.measure) : evaluation.perQuery.get(row.queryId)?.get(row.measure);
    if (ours === undefined) continue;
    compared++;
    const printed = formatMeasureValue(row.measure, ours);
    if (printed !== row.value) mismatches.push(`${row.measure} ${row.queryId}: ours ${printed}, trec_eval ${row.value}`);
  }
  return { mismatches, compared };
}

const cases = [
  { file: 'out.test', qrels: 'qrels.test', relevanceLevel: 1, perQuery: false },
  { file: 'out.test.a', qrels: 'qrels.test', relevanceLevel: 1, perQuery: false },
  { file: 'out.test.aq', qrels: 'qrels.test', relevanceLevel: 1, perQuery: true },
  { file: 'out.test.aql', qrels: 'qrels.rel_level', relevanceLevel: 2, perQuery: true },
];

describe('trec_eval equivalence on its own test suite', () => {
  it.each(cases)(
    '$file: every implemented measure prints as trec_eval printed it',
    ({ file, qrels, relevanceLevel, perQuery }) => {
      const evaluation = evaluateRun(parseQrels(readFixtureText(`trec_eval/${qrels}`), qrels), run, { relevanceLevel });
      const rows = readTrecEvalOutput(`trec_eval/${file}`);
      const { mismatches, compared } = compareRows(rows, evaluation);
      expect(mismatches).toEqual([]);
      // Guard against a vacuous pass: the file's measures that we claim must all have been compared.
      const claimed = rows.filter((r) =>
        (r.queryId === 'all' ? evaluation.summary : evaluation.perQuery.get(r.queryId))?.has(r.measure),
      );
      expect(compared).toBe(claimed.length);
      expect(compared).toBeGreaterThan(perQuery ? 250 : 25);
    },
  );

  it('out.test.a: the measures the CLI promises are among those compared', () => {
    const evaluation = evaluateRun(parseQrels(readFixtureText('trec_eval/qrels.test')), run);
    const printed = new Set(readTrecEvalOutput('trec_eval/out.test.a').map((r) => r.measure));
    for (const name of ['ndcg_cut_10', 'recall_100', 'recall_1000', 'P_10', 'map', 'recip_rank', 'num_q', 'gm_map', 'bpref']) {
      expect(printed.has(name)).toBe(true);
      expect(evaluation.summary.has(name)).toBe(true);
    }
  });

  it('recip_rank_10 equals recip_rank evaluated on the first 10 documents only (trec_eval -M 10)', () => {
    const qrels = parseQrels(readFixtureText('trec_eval/qrels.test'));
    const full = evaluateRun(qrels, run);
    const cut = evaluateRun(qrels, run, { maxDocsPerQuery: 10 });
    for (const [queryId, measures] of full.perQuery) {
      expect(measures.get('recip_rank_10')).toBe(cut.perQuery.get(queryId)!.get('recip_rank'));
    }
    // query 301's first relevant document is at rank 6 (recip_rank 0.1667 in out.test.aq): inside the top 10, outside the top 5
    expect(full.perQuery.get('301')!.get('recip_rank_10')).toBeCloseTo(1 / 6, 12);
    expect(
      evaluateRun(qrels, run, { recipRankCutoffs: [5] })
        .perQuery.get('301')!
        .get('recip_rank_5'),
    ).toBe(0);
  });
});

describe('trec_eval conventions', () => {
  const qrels = parseQrels('q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq2 0 x 1\nq3 0 z 1\n');

  it('breaks score ties by document id descending, ignoring the rank column', () => {
    const tied = parseRun('q1 Q0 a 1 1.0 t\nq1 Q0 b 2 1.0 t\n').run;
    // a tie between relevant "a" (listed first, rank 1) and non-relevant "b": trec_eval puts b first
    expect(evaluateRun(qrels, tied).perQuery.get('q1')!.get('recip_rank')).toBe(1 / 2);
  });

  it('uses graded relevance as nDCG gain and a threshold for binary measures', () => {
    const ranked = parseRun('q1 Q0 a 1 3 t\nq1 Q0 c 2 2 t\n').run;
    const ideal = 2 / Math.log2(2) + 1 / Math.log2(3);
    const actual = 1 / Math.log2(2) + 2 / Math.log2(3);
    const graded = evaluateRun(qrels, ranked);
    expect(graded.perQuery.get('q1')!.get('ndcg_cut_10')).toBeCloseTo(actual / ideal, 12);
    expect(evaluateRun(qrels, ranked, { relevanceLevel: 2 }).perQuery.get('q1')!.get('recall_5')).toBe(1);
    expect(graded.perQuery.get('q1')!.get('recall_5')).toBe(1);
    expect(evaluateRun(qrels, ranked, { relevanceLevel: 2 }).perQuery.get('q1')!.get('P_5')).toBeCloseTo(1 / 5, 12);
  });

  it('skips queries judged but not retrieved, unless complete (-c) scores them as empty rankings', () => {
    const partial = parseRun('q1 Q0 a 1 3 t\nq9 Q0 a 1 3 t\n').run;
    const skipped = evaluateRun(qrels, partial);
    expect(skipped.summary.get('num_q')).toBe(1);
    expect(skipped.qrelsQueriesWithoutRun).toEqual(['q2', 'q3']);
    expect(skipped.runQueriesWithoutQrels).toEqual(['q9']);
    const complete = evaluateRun(qrels, partial, { complete: true });
    expect(complete.summary.get('num_q')).toBe(3);
    expect(complete.summary.get('recip_rank')).toBeCloseTo(1 / 3, 12);
    expect(complete.summary.get('num_rel')).toBe(4);
  });

  it('refuses a run whose query ids match no judged query', () => {
    expect(() => evaluateRun(qrels, parseRun('zz Q0 a 1 3 t\n').run)).toThrow(/no query has both/);
  });

  it('rejects duplicate documents and malformed lines with file and line number', () => {
    expect(() => parseRun('q1 Q0 a 1 3 t\nq1 Q0 a 2 2 t\n', 'r.trec')).toThrow(/r\.trec:2: document "a" appears twice/);
    expect(() => parseRun('q1 Q0 a 1 t\n', 'r.trec')).toThrow(/r\.trec:1: expected 6 columns/);
    expect(() => parseQrels('q1 0 a x\n', 'q.txt')).toThrow(/q\.txt:1: relevance "x"/);
  });
});

describe('hostile or unusual inputs (issue 11)', () => {
  it.each([
    ['1', 1],
    ['1e1', 1],
    ['0x1', 0],
    ['3.7', 3],
    ['+2', 2],
    ['-1', -1],
    ['-0', 0],
    ['007', 7],
    ['12abc', 12],
    ['99999999999999999999', 2 ** 63],
    ['-99999999999999999999', -(2 ** 63)],
    ['x', null],
    ['-', null],
    ['.5', null],
  ])('reads relevance "%s" as C\'s atol does: %s', (text, value) => {
    expect(atol(text)).toBe(value);
    if (value !== null) expect(parseQrels(`q1 0 d1 ${text}\n`).get('q1')!.get('d1')).toBe(value);
  });

  it('refuses a negative -M and a negative -l with a RangeError', () => {
    const qrels = parseQrels('q1 0 a 1\n');
    const run = parseRun('q1 Q0 a 1 3 t\n').run;
    expect(() => evaluateRun(qrels, run, { maxDocsPerQuery: -1 })).toThrow(RangeError);
    expect(() => evaluateRun(qrels, run, { maxDocsPerQuery: -1 })).toThrow(
      'maxDocsPerQuery (trec_eval -M) must be a whole number >= 0, got -1',
    );
    expect(() => evaluateRun(qrels, run, { relevanceLevel: -1 })).toThrow(RangeError);
    expect(() => evaluateRun(qrels, run, { relevanceLevel: Number.NaN })).toThrow(
      /relevanceLevel \(trec_eval -l\) must be a number >= 0, got NaN/,
    );
    expect(evaluateRun(qrels, run, { maxDocsPerQuery: 0 }).perQuery.get('q1')!.get('num_ret')).toBe(0);
  });

  it('scores a grade beyond any array index (5e9) without allocating per grade', () => {
    const qrels = parseQrels('q1 0 a 5000000000\nq1 0 b 0\n');
    const measures = evaluateRun(qrels, parseRun('q1 Q0 b 1 2 t\nq1 Q0 a 2 1 t\n').run).perQuery.get('q1')!;
    expect(measures.get('num_rel')).toBe(1);
    expect(measures.get('ndcg')).toBeCloseTo(1 / Math.log2(3), 12);
    expect(measures.get('bpref')).toBe(0);
  });

  it('formatRun refuses ids that would forge or split TREC columns', () => {
    expect(() => formatRun(new Map([['q1', new Map([['d1 Q0 forged', 1]])]]), 'tag')).toThrow(
      'formatRun: document id "d1 Q0 forged" of query "q1" contains white space, which would split a TREC run or qrels line; rename it',
    );
    expect(() => formatRun(new Map([['q\n1', new Map([['d1', 1]])]]), 'tag')).toThrow(
      'query id "q\\u000a1" contains white space',
    );
    expect(() => formatRun(new Map([['q1', new Map([['', 1]])]]), 'tag')).toThrow(/document id "" of query "q1" is empty/);
  });
});

describe('formatFixed rounds like printf("%.4f")', () => {
  it.each([
    [1 / 32, '0.0312'],
    [3 / 32, '0.0938'],
    [0.00015, '0.0001'], // the double is just below the half
    [0.00025, '0.0003'], // the double is just above the half
    [2 / 3, '0.6667'],
    [-358, '-358.0000'],
    [0.99995, '1.0000'],
    [0, '0.0000'],
  ])('%s -> %s', (value, expected) => {
    expect(formatFixed(value, 4)).toBe(expected);
  });
});
