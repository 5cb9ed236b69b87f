// The lambda calibrator's request, trials, events and result, as plain data the page, the worker and the CLI share.
import type { LambdaPair, ReachedSparsity, SparsityTarget } from './lambda-search.ts';
import type { TrainRequest } from '../training/training-request.ts';
import type { SetEvaluation } from '../evaluation/results.ts';
import type { TrainEvent } from '../training/training-events.ts';
import { LAPTOP_RUN } from '../training/recipe.ts';

/**
 * The calibrator's defaults, the page's form and the CLI's options alike: targets of a laptop-sized model, a relative
 * tolerance of 0.2, at most 6 search trials of the laptop recipe's steps each (sparsity is measured over a trial's
 * last quarter).
 */
export const CALIBRATE_DEFAULTS = {
  targetQueries: 40,
  targetDocuments: 150,
  tolerance: 0.2,
  trials: 6,
  stepsPerTrial: LAPTOP_RUN.steps,
} as const;

export interface CalibrationTrial extends ReachedSparsity {
  index: number;
  runId: string;
  /** 'search': a step of the search; 'batch': the suggested lambdas at another batch size. */
  purpose: 'search' | 'batch';
  batchSize: number;
  /** Means over the measured reports (the last quarter of the trial's steps). */
  flopsQueries: number;
  flopsDocuments: number;
  /** The same, as the paper's batch of 64 would see them. */
  paperBatchFlopsQueries: number;
  paperBatchFlopsDocuments: number;
  rank: number;
  /** Reports the means are over. */
  measuredReports: number;
  evaluations: SetEvaluation[];
}

export interface CalibrationRequest {
  /** Each trial's run: steps, batch, lengths, lr, k, seed; its lambdas are where the search starts. */
  train: TrainRequest;
  target: SparsityTarget;
  maxTrials: number;
  /** After the search, train the suggested lambdas again at these batch sizes. */
  batchSizes?: number[];
}

export type CalibrationEvent =
  | { kind: 'trial-start'; index: number; runId: string; purpose: CalibrationTrial['purpose']; request: TrainRequest }
  | { kind: 'train'; index: number; event: TrainEvent }
  | { kind: 'trial-done'; trial: CalibrationTrial };
export interface CalibrationResult {
  target: SparsityTarget;
  trials: CalibrationTrial[];
  /** The search trial closest to the target, and whether it is within tolerance. */
  suggested: LambdaPair & { trial: number; within: boolean };
  /** The suggested lambdas at each asked batch size (and the search's own). */
  batchDependence: CalibrationTrial[];
}
