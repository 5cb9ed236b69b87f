// trec_eval over a whole run: which queries count, per-query measures, and their averages ("all" rows).
import { RunEvaluation } from '../../contract/evaluation/results.ts';
import type { Qrels, Run } from '../../contract/evaluation/run-types.ts';
import { judgeRanking } from './judged-ranking.ts';
import { countMeasures, defaultMeasureConfig, queryMeasures, type MeasureConfig } from './measures.ts';

export interface EvaluateRunOptions extends Partial<MeasureConfig> {
  /** Evaluate only the first this many documents of each query's ranking (trec_eval -M). */
  maxDocsPerQuery?: number;
  /** Drop unjudged retrieved documents before ranking (trec_eval -J). */
  judgedOnly?: boolean;
  /** Average over every query in the qrels, scoring queries missing from the run as empty rankings (trec_eval -c). */
  complete?: boolean;
}

/** trec_eval's floor for geometric means (MIN_GEO_MEAN), so that one zero does not zero the mean. */
const minGeometricMeanValue = 0.00001;

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Refuses options trec_eval could not mean: a negative (or non-integer) -M, a negative or non-numeric -l. */
function checkOptions(options: EvaluateRunOptions): void {
  const { maxDocsPerQuery, relevanceLevel } = options;
  if (maxDocsPerQuery !== undefined && !(Number.isInteger(maxDocsPerQuery) && maxDocsPerQuery >= 0)) {
    throw new RangeError(`maxDocsPerQuery (trec_eval -M) must be a whole number >= 0, got ${maxDocsPerQuery}`);
  }
  if (relevanceLevel !== undefined && !(Number.isFinite(relevanceLevel) && relevanceLevel >= 0)) {
    throw new RangeError(`relevanceLevel (trec_eval -l) must be a number >= 0, got ${relevanceLevel}`);
  }
}

export function evaluateRun(qrels: Qrels, run: Run, options: EvaluateRunOptions = {}): RunEvaluation {
  checkOptions(options);
  const config: MeasureConfig = { ...defaultMeasureConfig, ...definedOnly(options) };
  const judge = {
    relevanceLevel: config.relevanceLevel,
    maxDocsPerQuery: options.maxDocsPerQuery ?? Number.MAX_SAFE_INTEGER,
    judgedOnly: options.judgedOnly ?? false,
  };
  const qrelsIds = [...qrels.keys()].sort(byId);
  const qrelsQueriesWithoutRun = qrelsIds.filter((id) => !run.has(id));
  const runQueriesWithoutQrels = [...run.keys()].filter((id) => !qrels.has(id)).sort(byId);

  const perQuery = new Map<string, Map<string, number>>();
  for (const queryId of qrelsIds) {
    if (!run.has(queryId) && !options.complete) continue;
    perQuery.set(queryId, queryMeasures(judgeRanking(run.get(queryId), qrels.get(queryId)!, judge), config));
  }
  if (perQuery.size === 0) {
    throw new Error(
      `no query has both results and judgments (run: ${run.size} queries, qrels: ${qrels.size} queries); check that the query ids match`,
    );
  }
  return { perQuery, summary: summarise(perQuery), runQueriesWithoutQrels, qrelsQueriesWithoutRun };
}

function definedOnly(options: EvaluateRunOptions): Partial<MeasureConfig> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<MeasureConfig>;
}

function summarise(perQuery: Map<string, Map<string, number>>): Map<string, number> {
  const rows = [...perQuery.values()];
  const numQueries = rows.length;
  const summary = new Map<string, number>([['num_q', numQueries]]);
  const geometricMean = (name: string) =>
    Math.exp(rows.reduce((sum, row) => sum + Math.log(Math.max(row.get(name)!, minGeometricMeanValue)), 0) / numQueries);
  for (const name of rows[0].keys()) {
    const total = rows.reduce((sum, row) => sum + row.get(name)!, 0);
    summary.set(name, countMeasures.has(name) ? total : total / numQueries);
    if (name === 'map') summary.set('gm_map', geometricMean('map'));
    if (name === 'bpref') summary.set('gm_bpref', geometricMean('bpref'));
  }
  return summary;
}
