// The lambda calibrator's search, pure: from the trials so far (lambdas and the active dimensions they reached), the
// next lambda_q and lambda_d to try, by a secant method in log-log space (more weight, fewer active dimensions).

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

/** The largest factor one trial moves a lambda by. */
const MAX_STEP = 30;

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

/** log(lambda_q), log(lambda_d) and log(active queries), log(active documents) of a trial (empty counts as half a dimension). */
function logPoint(t: ReachedSparsity): { x: [number, number]; y: [number, number] } {
  return {
    x: [Math.log(t.lambdaQueries), Math.log(t.lambdaDocuments)],
    y: [Math.log(Math.max(t.activeQueries, 0.5)), Math.log(Math.max(t.activeDocuments, 0.5))],
  };
}

type Matrix = [[number, number], [number, number]];

/**
 * The lambdas of the next trial, given every trial so far (at least one). Queries and documents share the encoder, so
 * each lambda moves both counts: the search is a secant (Broyden) method on log(active) against log(lambda), starting
 * from "each count falls as 1 / its own lambda" and learning the 2 x 2 slopes from the trials; each step starts from
 * the trial closest to the target and moves each lambda by at most x30.
 */
export function nextLambdas(trials: readonly ReachedSparsity[], target: SparsityTarget): LambdaPair {
  if (trials.length === 0) throw new Error('the calibrator starts from one trial of the given lambdas');
  const points = trials.map(logPoint);
  let J: Matrix = [
    [-1, 0],
    [0, -1],
  ];
  for (let i = 1; i < points.length; i++) {
    const dx = [points[i].x[0] - points[i - 1].x[0], points[i].x[1] - points[i - 1].x[1]];
    const dy = [points[i].y[0] - points[i - 1].y[0], points[i].y[1] - points[i - 1].y[1]];
    const norm = dx[0] ** 2 + dx[1] ** 2;
    if (norm < 1e-12) continue;
    const r = [dy[0] - (J[0][0] * dx[0] + J[0][1] * dx[1]), dy[1] - (J[1][0] * dx[0] + J[1][1] * dx[1])];
    J = [
      [J[0][0] + (r[0] * dx[0]) / norm, J[0][1] + (r[0] * dx[1]) / norm],
      [J[1][0] + (r[1] * dx[0]) / norm, J[1][1] + (r[1] * dx[1]) / norm],
    ];
  }
  // more weight never makes a count grow: a learnt positive own slope (noise, saturation) falls back to the start
  const det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
  if (!(J[0][0] < -0.05 && J[1][1] < -0.05) || Math.abs(det) < 1e-3) {
    J = [
      [Math.min(J[0][0], -0.2), 0],
      [0, Math.min(J[1][1], -0.2)],
    ];
  }
  const base = logPoint(closestTrial(trials, target));
  const g = [Math.log(target.queries) - base.y[0], Math.log(target.documents) - base.y[1]];
  const d = J[0][0] * J[1][1] - J[0][1] * J[1][0];
  const step = [(J[1][1] * g[0] - J[0][1] * g[1]) / d, (J[0][0] * g[1] - J[1][0] * g[0]) / d];
  const clamp = (v: number) => Math.max(-Math.log(MAX_STEP), Math.min(Math.log(MAX_STEP), v));
  return { lambdaQueries: Math.exp(base.x[0] + clamp(step[0])), lambdaDocuments: Math.exp(base.x[1] + clamp(step[1])) };
}
