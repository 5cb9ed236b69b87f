// Comparing runs as the paper's Table 2 does, as pure data (the page and `splade-lab runs` both use it): each run's
// evaluation on a chosen set, the sets any run was evaluated on, and the best run with the rule that picks it.
import type { SetEvaluation } from '../evaluation/results.ts';
import type { RunRecord } from './runs.ts';

export const BEST_RULE =
  'The run with the highest nDCG@10 on the chosen set; among equal ones, the one with the lowest avg_flops.';

/** The run's newest evaluation on a set (by name), or null. */
export function evaluationOn(run: RunRecord, set: string): SetEvaluation | null {
  return [...run.evaluations].reverse().find((e) => e.set.name === set) ?? null;
}

/** Names of the sets any of the runs was evaluated on, in the order first seen. */
export function evaluatedSets(runs: readonly RunRecord[]): string[] {
  return [...new Set(runs.flatMap((r) => r.evaluations.map((e) => e.set.name)))];
}

/** The best run on a set by BEST_RULE, or null when none was evaluated there. */
export function bestRun(runs: readonly RunRecord[], set: string): RunRecord | null {
  let best: { run: RunRecord; ndcg: number; flops: number } | null = null;
  for (const run of runs) {
    const e = evaluationOn(run, set);
    if (!e) continue;
    const ndcg = e.splade.metrics.ndcg_cut_10 ?? 0;
    const flops = e.splade.efficiency.avg_flops;
    if (!best || ndcg > best.ndcg || (ndcg === best.ndcg && flops < best.flops)) best = { run, ndcg, flops };
  }
  return best?.run ?? null;
}

/** One row of the comparison table of runs on a set. */
export interface RunTableRow {
  run: RunRecord;
  /** Mean row norm of the head the run trained from: as loaded, divided by k. */
  dividedNorm: number | null;
  evaluation: SetEvaluation | null;
  best: boolean;
}

/** The comparison rows, sorted by k then lambda_q, the best run on `set` marked. */
export function runTable(runs: readonly RunRecord[], set: string): RunTableRow[] {
  const best = bestRun(runs, set);
  return [...runs]
    .sort(
      (a, b) =>
        a.k - b.k || a.recipe.lambdaQueries - b.recipe.lambdaQueries || a.recipe.lambdaDocuments - b.recipe.lambdaDocuments,
    )
    .map((run) => ({
      run,
      dividedNorm: run.model.meanRowNorm === null ? null : run.model.meanRowNorm / run.k,
      evaluation: evaluationOn(run, set),
      best: run === best,
    }));
}
