// The lambda calibrator's search, pure: from the trials so far (lambdas and the active dimensions they reached), the
// next lambda_q and lambda_d to try, each on its own line in log-log space (more weight, fewer active dimensions).

export interface SparsityTarget {
  /** Mean active dimensions wanted for queries and for documents. */
  queries: number;
  documents: number;
  /** Relative tolerance: reached within target x (1 +/- tolerance). */
  tolerance: number;
}

export interface LambdaPair {
  lambdaQueries: number;
  lambdaDocuments: number;
}

/** What one trial reached with its lambdas. */
export interface ReachedSparsity extends LambdaPair {
  activeQueries: number;
  activeDocuments: number;
}

/** The largest factor one trial moves a lambda by when there is no bracket yet. */
const MAX_STEP = 30;

type Side = 'queries' | 'documents';
const LAMBDA: Record<Side, keyof LambdaPair> = { queries: 'lambdaQueries', documents: 'lambdaDocuments' };
const ACTIVE: Record<Side, 'activeQueries' | 'activeDocuments'> = { queries: 'activeQueries', documents: 'activeDocuments' };

/** How far a reached count is from its target, as |log(reached / target)| (an empty vector counts as half a dimension). */
function logError(active: number, target: number): number {
  return Math.abs(Math.log(Math.max(active, 0.5) / target));
}

export function withinTarget(trial: ReachedSparsity, target: SparsityTarget): boolean {
  const ok = (active: number, wanted: number) => Math.abs(active - wanted) <= target.tolerance * wanted;
  return ok(trial.activeQueries, target.queries) && ok(trial.activeDocuments, target.documents);
}

/** The trial closest to the target (the larger of its two log errors is the smallest). */
export function closestTrial<T extends ReachedSparsity>(trials: readonly T[], target: SparsityTarget): T {
  if (trials.length === 0) throw new Error('no calibration trial yet');
  const worst = (t: T) => Math.max(logError(t.activeQueries, target.queries), logError(t.activeDocuments, target.documents));
  return trials.reduce((best, t) => (worst(t) < worst(best) ? t : best));
}

/** The next value of one lambda: interpolated inside a bracket, else extrapolated (slope from the trials, or -1). */
function nextLambda(points: { lambda: number; active: number }[], target: number): number {
  const xy = points.map((p) => ({ x: Math.log(p.lambda), y: Math.log(Math.max(p.active, 0.5)) }));
  const goal = Math.log(target);
  const above = xy.filter((p) => p.y > goal).sort((a, b) => b.x - a.x)[0]; // too dense: the largest such lambda
  const below = xy.filter((p) => p.y <= goal).sort((a, b) => a.x - b.x)[0]; // too sparse: the smallest such lambda
  if (above && below && above.x < below.x) {
    const slope = (below.y - above.y) / (below.x - above.x);
    const x = slope < 0 ? above.x + (goal - above.y) / slope : (above.x + below.x) / 2;
    // stay strictly inside the bracket, so that it keeps shrinking
    const margin = 0.1 * (below.x - above.x);
    return Math.exp(Math.min(below.x - margin, Math.max(above.x + margin, x)));
  }
  const nearest = [...xy].sort((a, b) => Math.abs(a.y - goal) - Math.abs(b.y - goal));
  const [p, q] = nearest;
  let slope = -1;
  if (q && p.x !== q.x) {
    const measured = (p.y - q.y) / (p.x - q.x);
    if (measured < -0.05) slope = Math.max(measured, -10);
  }
  const step = Math.max(-Math.log(MAX_STEP), Math.min(Math.log(MAX_STEP), (goal - p.y) / slope));
  return Math.exp(p.x + step);
}

/** The lambdas of the next trial, given every trial so far (at least one). */
export function nextLambdas(trials: readonly ReachedSparsity[], target: SparsityTarget): LambdaPair {
  if (trials.length === 0) throw new Error('the calibrator starts from one trial of the given lambdas');
  const next = (side: Side) => {
    const points = trials.map((t) => ({ lambda: t[LAMBDA[side]], active: t[ACTIVE[side]] }));
    const last = trials.at(-1)!;
    const wanted = target[side];
    // a side already within tolerance keeps its lambda
    if (Math.abs(last[ACTIVE[side]] - wanted) <= target.tolerance * wanted) return last[LAMBDA[side]];
    return nextLambda(points, wanted);
  };
  return { lambdaQueries: next('queries'), lambdaDocuments: next('documents') };
}
