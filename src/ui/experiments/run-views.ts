// How runs read in the compare view: short labels that name what differs, and the curves of each run.
import type { RunRecord, StepReport } from '../../worker/api.ts';
import type { ChartSeries } from '../common/loss-chart.ts';

/** "k = 4", or "k = 4, λq 0.05, λd 0.003" when the compared runs differ in their lambdas too. */
export function runLabel(run: RunRecord, among: readonly RunRecord[]): string {
  const lambdasDiffer = new Set(among.map((r) => `${r.recipe.lambdaQueries} ${r.recipe.lambdaDocuments}`)).size > 1;
  const base = `k = ${run.k}`;
  return lambdasDiffer ? `${base}, λq ${run.recipe.lambdaQueries}, λd ${run.recipe.lambdaDocuments}` : base;
}

/** One series per run of a reported value (1-based steps). */
export function curves(runs: readonly RunRecord[], value: (r: StepReport) => number): ChartSeries[] {
  return runs.map((run) => ({ label: runLabel(run, runs), points: run.reports.map((r) => ({ x: r.step + 1, y: value(r) })) }));
}
