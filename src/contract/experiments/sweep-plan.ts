// Sweeps, the paper's way of answering "which k for this backbone?": one run per k (default 1, 2, 4, 8, 16) or per
// (lambda_q, lambda_d) of its Figure 2 grid, same backbone, data, recipe and seed, trained one after another; the
// plan is kept so that a reload resumes the queue where it stopped.
import type { DataFingerprint } from '../training/training-report.ts';
import { InvalidRequestError, K_DEMO_LIMITS, TRAIN_LIMITS, checkK, checkRange } from '../limits.ts';
import type { TrainRequest } from '../training/training-request.ts';
import type { SetEvaluation } from '../evaluation/results.ts';
import type { TrainEvent } from '../training/training-events.ts';
import { jsonDifferences } from '../json-differences.ts';

/** The paper's ks (Table 2). */
export const DEFAULT_SWEEP_KS = [1, 2, 4, 8, 16] as const;

/** The paper's Figure 2 grid. */
export const FIGURE2_LAMBDAS = { queries: [1e-2, 5e-2, 2e-1], documents: [6e-4, 3e-3, 1e-2] } as const;

/** Runs one sweep may hold (a 3 x 3 lambda grid, or a dozen ks). */
const MAX_RUNS = 12;

export interface SweepRequest {
  /** What every run shares (its k and lambdas are set per run). */
  base: TrainRequest;
  /** One run per k. */
  ks?: readonly number[];
  /** One run per (lambda_q, lambda_d), at base.k. */
  lambdas?: { queries: readonly number[]; documents: readonly number[] };
}

export interface SweepPlan {
  id: string;
  createdAt: string;
  modelKey: string;
  data: DataFingerprint;
  /** The runs, in order. */
  runs: TrainRequest[];
  /** Indices of the runs that finished. */
  finished: number[];
}

/** The runs of a sweep, checked against the limits: a k sweep, or a lambda grid (not both). */
export function planSweepRuns(request: SweepRequest): TrainRequest[] {
  const { base, ks, lambdas } = request;
  if ((ks === undefined) === (lambdas === undefined))
    throw new InvalidRequestError('A sweep varies either k or the lambdas: give one of them');
  const runs: TrainRequest[] = ks
    ? ks.map((k) => ({ ...base, k: checkK(k), resume: false }))
    : lambdas!.queries.flatMap((q) =>
        lambdas!.documents.map((d) => ({
          ...base,
          lambdaQueries: checkRange(q, TRAIN_LIMITS.lambda, 'lambda_q'),
          lambdaDocuments: checkRange(d, TRAIN_LIMITS.lambda, 'lambda_d'),
          resume: false,
        })),
      );
  checkRange(runs.length, { min: 1, max: MAX_RUNS, integer: true }, 'The number of runs in a sweep');
  const seen = new Set(runs.map((r) => `${r.k} ${r.lambdaQueries} ${r.lambdaDocuments}`));
  if (seen.size !== runs.length) throw new InvalidRequestError('A sweep lists the same run twice');
  return runs;
}

/** A new sweep's plan for a model and data, made at `createdAt` (an ISO time: the caller's clock). */
export function planSweep(request: SweepRequest, modelKey: string, data: DataFingerprint, createdAt: string): SweepPlan {
  return { id: `sweep ${createdAt}`, createdAt, modelKey, data, runs: planSweepRuns(request), finished: [] };
}

/** What a sweep is compared on when it is resumed: its backbone, its data, and its runs' settings. */
function sweepKey(plan: Pick<SweepPlan, 'modelKey' | 'data'> & { runs?: readonly TrainRequest[] }) {
  const { triplets, crc32 } = plan.data;
  const runs = plan.runs;
  const shared = runs?.[0] ? (({ k: _k, lambdaQueries: _q, lambdaDocuments: _d, resume: _r, ...rest }) => rest)(runs[0]) : {};
  return {
    model: plan.modelKey,
    data: { triplets, crc32: crc32.toString(16).padStart(8, '0') },
    ...(runs && {
      ks: runs.map((r) => r.k),
      lambdas: runs.map((r) => [r.lambdaQueries ?? null, r.lambdaDocuments ?? null]),
      ...shared,
    }),
  };
}

/**
 * Refuses to resume a sweep with another backbone or other data (triplet count and CRC-32; the file may have moved),
 * or, when `now.runs` is given, other runs (ks, lambdas, or any setting the runs share): the error names each
 * difference, as a resumed run's does.
 */
export function checkSweepResumable(
  saved: SweepPlan,
  now: Pick<SweepPlan, 'modelKey' | 'data'> & { runs?: readonly TrainRequest[] },
  where: string,
): void {
  const found = jsonDifferences(sweepKey({ ...saved, runs: now.runs && saved.runs }), sweepKey(now), 'sweep');
  if (found.length === 0) return;
  const names = saved.data.name === now.data.name ? '' : ` (the sweep's data: ${saved.data.name}; now: ${now.data.name})`;
  throw new InvalidRequestError(
    `${where} was planned with other settings${names}: resume it with the same model, data and options, or start a ` +
      `new sweep elsewhere:\n  ${found.join('\n  ')}`,
  );
}

/** The first run of a plan that has not finished, or null when the sweep is done. */
export function nextSweepRun(plan: SweepPlan): number | null {
  const index = plan.runs.findIndex((_, i) => !plan.finished.includes(i));
  return index < 0 ? null : index;
}

/** ks a user can read from a text field ("1, 2, 4"), within the limits, or an error naming the problem. */
export function parseKs(text: string): number[] {
  const ks = text
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(Number);
  if (ks.length === 0 || ks.some((k) => !Number.isFinite(k)))
    throw new InvalidRequestError(`k values are numbers separated by commas, got "${text}"`);
  ks.forEach((k) => checkK(k));
  checkRange(ks.length, { ...K_DEMO_LIMITS.ks, max: MAX_RUNS }, 'The number of k values');
  return ks;
}

/**
 * Mean row norms after dividing by k where the paper's backbones did best: Table 2 prints 0.16 to 1.82 (ModernBERT's
 * best k = 16 is 2.553 / 16 = 0.1596, so the lower end is 0.15).
 */
export const GOOD_DIVIDED_NORMS = { min: 0.15, max: 1.8 } as const;

/**
 * The ks a sweep should try for a head of this mean row norm: the powers of two whose divided norm falls in
 * GOOD_DIVIDED_NORMS, and k = 1 as the baseline (at most six). A suggestion of where to look, not an answer: the paper's
 * best k differs by backbone (RoBERTa collapses at 16, ALBERT does worse at any k > 1).
 */
export function suggestSweepKs(meanNorm: number): number[] {
  if (!(meanNorm > 0)) return [...DEFAULT_SWEEP_KS];
  const candidates = [0.25, 0.5, 1, 2, 4, 8, 16, 32, 64];
  const inside = candidates.filter((k) => meanNorm / k >= GOOD_DIVIDED_NORMS.min && meanNorm / k <= GOOD_DIVIDED_NORMS.max);
  const ks = [...new Set([1, ...inside])].sort((a, b) => a - b);
  return ks.length > 6 ? [1, ...ks.filter((k) => k !== 1).slice(-5)].sort((a, b) => a - b) : ks;
}

export type SweepEvent =
  | { kind: 'run-start'; index: number; total: number; runId: string; request: TrainRequest; resumed: boolean }
  | { kind: 'train'; index: number; event: TrainEvent }
  | { kind: 'run-done'; index: number; total: number; runId: string; outcome: RunOutcome; evaluations: SetEvaluation[] };
export interface RunOutcome {
  startStep: number;
  step: number;
  msPerStep: number;
  /** Where the trained model was saved and its files. */
  saved: { where: string; files: string[] };
}

/** Where sweep plans are kept (IndexedDB in the page, the sweep folder's sweep.json in Node). */
export interface SweepStore {
  get(id: string): Promise<SweepPlan | null>;
  put(plan: SweepPlan): Promise<void>;
}
