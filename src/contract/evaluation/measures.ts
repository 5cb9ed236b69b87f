// What results are reported in, as pure data the page may import: the headline trec_eval measures, the NanoBEIR
// sets, the evaluation defaults, and the mean over sets.
export { NANOBEIR_SETS } from './dataset.ts';

/** The measures every evaluation leads with (trec_eval names). */
export const HEADLINE_MEASURES = ['ndcg_cut_10', 'recip_rank_10', 'recall_100', 'recall_1000', 'P_10', 'map'] as const;

/** The mean of each headline measure over several sets' evaluations (NanoBEIR's mean). */
export function meanMetrics(results: readonly Record<string, number>[]): Record<string, number> {
  const mean: Record<string, number> = Object.create(null);
  for (const name of HEADLINE_MEASURES)
    mean[name] = results.reduce((sum, m) => sum + (m[name] ?? 0), 0) / Math.max(1, results.length);
  return mean;
}
