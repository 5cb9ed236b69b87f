// The lambda calibrator, once for the page and the CLI: short runs from the same starting point (the backbone with
// its head divided by k), each with the lambdas the search picks next, until the mean active dimensions of queries
// and documents reach a target; each trial can be evaluated, and the suggested lambdas can be trained again at other
// batch sizes to show how sparsity depends on the batch (the FLOPS term squares a batch mean).
import type { GpuContext } from '../../gpu/context.ts';
import type { RetrievalDataset } from '../../contract/evaluation/dataset.ts';
import type { TrainingData } from '../../train/splade/training-loop.ts';
import type { StepReport } from '../../contract/training/training-report.ts';
import { closestTrial, nextLambdas, withinTarget, type LambdaPair } from '../../contract/experiments/lambda-search.ts';
import { CALIBRATE_LIMITS, TRAIN_LIMITS, checkRange } from '../../contract/limits.ts';
import type { OpenedModel } from '../model/open-model.ts';
import type { Platform } from '../platform/platform.ts';
import type { TrainRequest } from '../../contract/training/training-request.ts';
import type { EvalRequest } from '../../contract/evaluation/evaluation-request.ts';
import { evaluateRun } from '../evaluation/trained-model-evaluation.ts';
import { trainRun } from '../training/train.ts';
import {
  CalibrationEvent,
  CalibrationRequest,
  CalibrationResult,
  CalibrationTrial,
} from '../../contract/experiments/calibration.ts';
import { PAPER_LAMBDAS } from '../../contract/training/recipe.ts';

export interface CalibrationOptions {
  model: OpenedModel;
  data: TrainingData;
  request: CalibrationRequest;
  /** Where trial `index` with these settings is kept (a folder in Node, a key in the page). */
  runIdOf: (request: TrainRequest, index: number) => string;
  evaluate?: { sets: readonly RetrievalDataset[]; request: Omit<EvalRequest, 'k'>; memoryBudget?: number };
  signal?: AbortSignal;
  onEvent?: (event: CalibrationEvent) => void;
}

/** Checks the calibrator's own settings (the training request is checked by each trial's run). */
export function checkCalibration(request: CalibrationRequest): void {
  const L = CALIBRATE_LIMITS;
  checkRange(request.target.queries, L.target, 'The query target');
  checkRange(request.target.documents, L.target, 'The document target');
  checkRange(request.target.tolerance, L.tolerance, 'The tolerance');
  checkRange(request.maxTrials, L.trials, 'Trials');
  checkRange((request.batchSizes ?? []).length, L.batchSizes, 'The number of batch sizes');
  for (const b of request.batchSizes ?? []) checkRange(b, TRAIN_LIMITS.batchSize, 'A batch size');
}

function mean(reports: StepReport[], key: keyof StepReport): number {
  return reports.reduce((sum, r) => sum + (r[key] as number), 0) / reports.length;
}

/** The reports of a trial's last quarter (at least its last report). */
function measured(reports: StepReport[]): StepReport[] {
  const total = reports.at(-1)?.steps ?? 0;
  const late = reports.filter((r) => r.step + 1 > 0.75 * total);
  return late.length ? late : reports.slice(-1);
}

export async function calibrateLambdas(
  ctx: GpuContext,
  platform: Platform,
  options: CalibrationOptions,
): Promise<CalibrationResult> {
  const { request, signal } = options;
  checkCalibration(request);
  const emit = options.onEvent ?? (() => undefined);
  const trials: CalibrationTrial[] = [];
  const start: LambdaPair = {
    lambdaQueries: request.train.lambdaQueries ?? PAPER_LAMBDAS.queries,
    lambdaDocuments: request.train.lambdaDocuments ?? PAPER_LAMBDAS.documents,
  };

  const trial = async (
    lambdas: LambdaPair,
    batchSize: number,
    purpose: CalibrationTrial['purpose'],
  ): Promise<CalibrationTrial> => {
    signal?.throwIfAborted();
    const index = trials.length;
    const train: TrainRequest = { ...request.train, ...lambdas, batchSize, resume: false, probeEvery: 0, stopOnAlarm: false };
    const runId = options.runIdOf(train, index);
    emit({ kind: 'trial-start', index, runId, purpose, request: train });
    const reports: StepReport[] = [];
    await trainRun(ctx, platform, {
      model: options.model,
      data: options.data,
      run: runId,
      request: train,
      existing: 'replace',
      record: { store: platform.runs },
      signal,
      onEvent: (event) => {
        if (event.kind === 'report') reports.push(event.report);
        emit({ kind: 'train', index, event });
      },
    });
    const late = measured(reports);
    const evaluations = options.evaluate
      ? await evaluateRun(ctx, platform, runId, options.evaluate.sets, options.evaluate.request, {
          signal,
          memoryBudget: options.evaluate.memoryBudget,
        })
      : [];
    const done: CalibrationTrial = {
      index,
      runId,
      purpose,
      batchSize,
      ...lambdas,
      activeQueries: mean(late, 'activeQueries'),
      activeDocuments: mean(late, 'activeDocuments'),
      flopsQueries: mean(late, 'flopsQueries'),
      flopsDocuments: mean(late, 'flopsDocuments'),
      paperBatchFlopsQueries: mean(late, 'paperBatchFlopsQueries'),
      paperBatchFlopsDocuments: mean(late, 'paperBatchFlopsDocuments'),
      rank: mean(late, 'rank'),
      measuredReports: late.length,
      evaluations,
    };
    trials.push(done);
    emit({ kind: 'trial-done', trial: done });
    return done;
  };

  const B = request.train.batchSize;
  let last = await trial(start, B, 'search');
  while (trials.length < request.maxTrials && !withinTarget(last, request.target)) {
    last = await trial(nextLambdas(trials, request.target), B, 'search');
  }
  const best = closestTrial(trials, request.target);
  const suggested = {
    lambdaQueries: best.lambdaQueries,
    lambdaDocuments: best.lambdaDocuments,
    trial: best.index,
    within: withinTarget(best, request.target),
  };
  const batchDependence = [best];
  for (const batchSize of request.batchSizes ?? []) {
    if (batchSize === B) continue;
    batchDependence.push(await trial(suggested, batchSize, 'batch'));
  }
  batchDependence.sort((a, b) => a.batchSize - b.batchSize);
  return { target: request.target, trials, suggested, batchDependence };
}
