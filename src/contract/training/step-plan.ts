// What every training request shares, SPLADE and masked-LM alike, checked once against limits.ts: the steps (or the
// epochs over the rows), the batch and its accumulation, the optimiser, the schedule, clipping, dropout, the data
// order, the seed, checkpoints and reports. Each objective's planner adds its own fields and its own defaults.
import { InvalidRequestError, TRAIN_LIMITS, checkRange } from '../limits.ts';
import { OPTIMIZER_NAMES, type OptimizerName, type OptimizerSettings } from './optimizer-settings.ts';
import { PAPER_ADAMW, stepsForEpochs } from './recipe.ts';
import type { LinearSchedule } from './schedule.ts';

/** The fields of a request every training run has. */
export interface StepRequest {
  /** Steps of the whole run; when absent, `epochs` over the data (default 1) decide. */
  steps?: number;
  epochs?: number;
  /** Rows per micro-batch. */
  batchSize: number;
  gradAccum?: number;
  optimizer?: OptimizerName;
  peakLr?: number;
  warmupRatio?: number;
  weightDecay?: number;
  /** Clip the averaged gradient to this global L2 norm (0: no clipping). */
  maxGradNorm?: number;
  /** Every dropout probability set to this while training; absent: the backbone's config.json's. */
  dropout?: number;
  seed?: number;
  /** false: rows in file order every epoch (default: a seeded shuffle per epoch). */
  shuffle?: boolean;
  checkpointEvery: number;
  reportEvery?: number;
  resume: boolean;
}

/** An objective's defaults for what a request leaves out. */
export interface StepDefaults {
  peakLr: number;
  warmupRatio: number;
  maxGradNorm: number;
  seed: number;
  /** Reports per run when the request does not say how often. */
  reports: number;
}

/** A request's shared fields, checked, with the objective's defaults filled in. */
export interface StepPlan {
  steps: number;
  batchSize: number;
  gradAccum: number;
  optimizer: OptimizerSettings;
  schedule: LinearSchedule;
  /** 0: no clipping. */
  maxGradNorm: number;
  /** 'config': the backbone's probabilities. */
  dropout: 'config' | number;
  /** false: file order. */
  shuffle: boolean;
  seed: number;
  checkpointEvery: number;
  reportEvery: number;
  resume: boolean;
}

/** Checks a request's shared fields for `rows` rows per epoch (the steps of its epochs) and fills in the defaults. */
export function planStepRecipe(request: StepRequest, rows: number, defaults: StepDefaults): StepPlan {
  const L = TRAIN_LIMITS;
  const batchSize = checkRange(request.batchSize, L.batchSize, 'The batch size');
  const gradAccum = checkRange(request.gradAccum ?? 1, L.gradAccum, 'Gradient accumulation');
  if (request.steps !== undefined && request.epochs !== undefined)
    throw new InvalidRequestError('Give the steps or the epochs of a run, not both');
  const steps =
    request.steps !== undefined
      ? checkRange(request.steps, L.steps, 'Steps')
      : stepsForEpochs(checkRange(request.epochs ?? 1, L.epochs, 'Epochs'), rows, batchSize * gradAccum);
  const optimizer = request.optimizer ?? 'adamw';
  if (!OPTIMIZER_NAMES.includes(optimizer))
    throw new InvalidRequestError(`Unknown optimiser "${optimizer}"; the optimisers are ${OPTIMIZER_NAMES.join(', ')}`);
  const weightDecay =
    request.weightDecay === undefined
      ? PAPER_ADAMW.weightDecay
      : checkRange(request.weightDecay, L.weightDecay, 'The weight decay');
  const reportEvery =
    request.reportEvery === undefined
      ? Math.max(1, Math.round(steps / defaults.reports))
      : checkRange(request.reportEvery, L.reportEvery, 'Report every');
  return {
    steps,
    batchSize,
    gradAccum,
    optimizer: optimizer === 'sgd' ? { kind: 'sgd', weightDecay } : { ...PAPER_ADAMW, weightDecay },
    schedule: {
      peakLr: request.peakLr === undefined ? defaults.peakLr : checkRange(request.peakLr, L.peakLr, 'The learning rate'),
      totalSteps: steps,
      warmupRatio:
        request.warmupRatio === undefined ? defaults.warmupRatio : checkRange(request.warmupRatio, L.ratio, 'The warm-up ratio'),
    },
    maxGradNorm:
      request.maxGradNorm === undefined
        ? defaults.maxGradNorm
        : checkRange(request.maxGradNorm, L.maxGradNorm, 'The maximum gradient norm'),
    dropout: request.dropout === undefined ? 'config' : checkRange(request.dropout, L.dropout, 'The dropout probability'),
    shuffle: request.shuffle !== false,
    seed: request.seed === undefined ? defaults.seed : checkRange(request.seed, L.seed, 'The seed'),
    checkpointEvery: checkRange(request.checkpointEvery, L.checkpointEvery, 'Checkpoint every'),
    reportEvery,
    resume: request.resume,
  };
}
