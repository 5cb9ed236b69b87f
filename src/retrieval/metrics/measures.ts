// Per-query trec_eval measures computed from a judged ranking, named and ordered as `trec_eval -m all_trec -q` prints them.
import type { JudgedRanking } from './judged-ranking.ts';

export interface MeasureConfig {
  /** Grades >= this are relevant for binary measures (trec_eval -l). nDCG always uses the raw grades as gains. */
  relevanceLevel: number;
  /** Document cut-offs of P, recall, ndcg_cut, map_cut and relative_P. */
  cutoffs: readonly number[];
  successCutoffs: readonly number[];
  /** recip_rank_k: reciprocal rank counting only the first k documents (= trec_eval -M k -m recip_rank). */
  recipRankCutoffs: readonly number[];
  /** Recall levels of iprec_at_recall and 11pt_avg. */
  recallLevels: readonly number[];
  /** Multiples of R for Rprec_mult. */
  rprecMultipliers: readonly number[];
  /** set_F weight of recall against precision. */
  fBeta: number;
  /** utility = a*relret + b*nonrelret + c*relnotret (trec_eval's 4th term needs the collection size; taken as 0). */
  utilityCoefficients: readonly [number, number, number];
}

const standardCutoffs = [5, 10, 15, 20, 30, 100, 200, 500, 1000];
const tenths = (from: number, to: number, step: number) =>
  Array.from({ length: Math.round((to - from) / step) + 1 }, (_, i) => Math.round((from + i * step) * 100) / 100);

export const defaultMeasureConfig: MeasureConfig = {
  relevanceLevel: 1,
  cutoffs: standardCutoffs,
  successCutoffs: [1, 5, 10],
  recipRankCutoffs: [10],
  recallLevels: tenths(0, 1, 0.1),
  rprecMultipliers: tenths(0.2, 2, 0.2),
  fBeta: 1,
  utilityCoefficients: [1, -1, 0],
};

/** Measures that are counts: printed as integers and summed (not averaged) over queries. */
export const countMeasures: ReadonlySet<string> = new Set(['num_ret', 'num_rel', 'num_rel_ret', 'num_nonrel_judged_ret']);

/** trec_eval's printed form of a fractional parameter: 0 -> "0.00", 0.2 -> "0.20". */
const twoDecimals = (x: number) => x.toFixed(2);

/** Running sums over the ranking, so that every cut-off measure is one lookup. */
interface Prefixes {
  relevantAt: Float64Array; // (numRet+1,) relevant documents in the first i ranks
  precisionSumAt: Float64Array; // (numRet+1,) sum of precision at each relevant rank within the first i
  dcgAt: Float64Array; // (numRet+1,) DCG of the first i ranks, gain = grade
  idealDcgAt: Float64Array; // (numJudgedPositive+1,) DCG of the ideal ordering of all positive grades
}

function prefixes(ranking: JudgedRanking, relevanceLevel: number): Prefixes {
  const n = ranking.numRet;
  const relevantAt = new Float64Array(n + 1);
  const precisionSumAt = new Float64Array(n + 1);
  const dcgAt = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) {
    const rel = ranking.rels[i];
    const relevant = rel >= relevanceLevel ? 1 : 0;
    relevantAt[i + 1] = relevantAt[i] + relevant;
    precisionSumAt[i + 1] = precisionSumAt[i] + (relevant ? relevantAt[i + 1] / (i + 1) : 0);
    dcgAt[i + 1] = dcgAt[i] + (rel > 0 ? rel / Math.log2(i + 2) : 0);
  }
  const idealGains: number[] = [];
  for (let k = ranking.gradeCounts.length - 1; k >= 0; k--) {
    const [grade, count] = ranking.gradeCounts[k];
    if (grade > 0) for (let c = 0; c < count; c++) idealGains.push(grade);
  }
  const idealDcgAt = new Float64Array(idealGains.length + 1);
  idealGains.forEach((gain, i) => (idealDcgAt[i + 1] = idealDcgAt[i] + gain / Math.log2(i + 2)));
  return { relevantAt, precisionSumAt, dcgAt, idealDcgAt };
}

/** Value of a prefix array at cut-off k; ranks past the end count as non-relevant documents. */
const at = (prefix: Float64Array, k: number) => prefix[Math.min(k, prefix.length - 1)];
const ratio = (num: number, den: number) => (den > 0 ? num / den : 0);

/**
 * Interpolated precision at each recall level: the best precision at or below the rank where
 * round(level * R) relevant documents have been seen; 0 if that many are never retrieved.
 */
function interpolatedPrecisions(ranking: JudgedRanking, p: Prefixes, levels: readonly number[]): number[] {
  const n = ranking.numRet;
  const bestFrom = new Float64Array(n + 2); // best precision at ranks >= i
  for (let i = n; i >= 1; i--) bestFrom[i] = Math.max(bestFrom[i + 1], p.relevantAt[i] / i);
  const rankOfNth: number[] = [0]; // rank of the m-th relevant document
  for (let i = 1; i <= n; i++) if (p.relevantAt[i] > p.relevantAt[i - 1]) rankOfNth.push(i);
  return levels.map((level) => {
    const needed = Math.round(level * ranking.numRel);
    if (needed > ranking.numRelRet) return 0;
    return needed === 0 ? bestFrom[1] : bestFrom[rankOfNth[needed]];
  });
}

/** All per-query measures, in trec_eval's all_trec order (gm_map and gm_bpref are formed when averaging). */
export function queryMeasures(ranking: JudgedRanking, config: MeasureConfig = defaultMeasureConfig): Map<string, number> {
  const p = prefixes(ranking, config.relevanceLevel);
  const { numRet, numRel, numRelRet } = ranking;
  const out = new Map<string, number>();
  const put = (name: string, value: number) => out.set(name, value);
  const perCutoff = (
    family: string,
    cutoffs: readonly number[],
    value: (k: number) => number,
    label: (k: number) => string = String,
  ) => cutoffs.forEach((k) => put(`${family}_${label(k)}`, value(k)));

  const firstRelevantRank = p.relevantAt.findIndex((count) => count > 0); // -1 if none
  const averagePrecisionAt = (k: number) => ratio(at(p.precisionSumAt, k), numRel);
  const ndcgAt = (k: number) => ratio(at(p.dcgAt, k), at(p.idealDcgAt, k));
  const iprec = interpolatedPrecisions(ranking, p, config.recallLevels);

  put('num_ret', numRet);
  put('num_rel', numRel);
  put('num_rel_ret', numRelRet);
  put('map', averagePrecisionAt(numRet));
  put('Rprec', numRet > 0 && numRel > 0 ? at(p.relevantAt, numRel) / numRel : 0);
  put('bpref', bpref(ranking, config.relevanceLevel));
  put('recip_rank', firstRelevantRank > 0 ? 1 / firstRelevantRank : 0);
  perCutoff('iprec_at_recall', config.recallLevels, (level) => iprec[config.recallLevels.indexOf(level)], twoDecimals);
  perCutoff('P', config.cutoffs, (k) => at(p.relevantAt, k) / k);
  perCutoff('recall', config.cutoffs, (k) => ratio(at(p.relevantAt, k), numRel));
  perCutoff(
    'Rprec_mult',
    config.rprecMultipliers,
    (m) => {
      const k = Math.floor(m * numRel + 0.9); // trec_eval's own rounding for this measure
      return k > 0 ? at(p.relevantAt, k) / k : 0;
    },
    twoDecimals,
  );
  const [a, b, c] = config.utilityCoefficients;
  put('utility', a * numRelRet + b * (numRet - numRelRet) + c * (numRel - numRelRet));
  put('11pt_avg', iprec.reduce((s, x) => s + x, 0) / Math.max(1, iprec.length));
  put('ndcg', ndcgAt(Number.MAX_SAFE_INTEGER));
  perCutoff('ndcg_cut', config.cutoffs, ndcgAt);
  perCutoff('map_cut', config.cutoffs, averagePrecisionAt);
  perCutoff('relative_P', config.cutoffs, (k) => ratio(at(p.relevantAt, k), Math.min(k, numRel)));
  perCutoff('success', config.successCutoffs, (k) => (at(p.relevantAt, k) > 0 ? 1 : 0));
  put('set_P', ratio(numRelRet, numRet));
  put('set_relative_P', ratio(numRelRet, Math.min(numRet, numRel)));
  put('set_recall', ratio(numRelRet, numRel));
  put('set_map', ratio(numRelRet * numRelRet, numRet * numRel));
  put('set_F', setF(numRelRet / numRet, ratio(numRelRet, numRel), numRelRet, config.fBeta));
  put('num_nonrel_judged_ret', numRet - ranking.numNotInPool - ranking.numPooledUnjudged - numRelRet);
  perCutoff('recip_rank', config.recipRankCutoffs, (k) =>
    firstRelevantRank > 0 && firstRelevantRank <= k ? 1 / firstRelevantRank : 0,
  );
  return out;
}

function setF(precision: number, recall: number, numRelRet: number, beta: number): number {
  return numRelRet > 0 ? ((beta + 1) * precision * recall) / (beta * precision + recall) : 0;
}

/**
 * Binary preference: for each judged relevant document retrieved, the fraction of judged non-relevant
 * documents (at most R of them) ranked above it, subtracted from one; averaged over R.
 */
function bpref(ranking: JudgedRanking, relevanceLevel: number): number {
  const { numRel } = ranking;
  let judgedNonRelevant = 0;
  for (const [grade, count] of ranking.gradeCounts) if (grade < relevanceLevel) judgedNonRelevant += count;
  let nonRelevantAbove = 0;
  let sum = 0;
  for (const rel of ranking.rels) {
    if (rel < 0) continue; // not in the pool, or pooled but unjudged
    if (rel < relevanceLevel) nonRelevantAbove++;
    else sum += nonRelevantAbove > 0 ? 1 - Math.min(nonRelevantAbove, numRel) / Math.min(judgedNonRelevant, numRel) : 1;
  }
  return ratio(sum, numRel);
}
