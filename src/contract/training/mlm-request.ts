// A masked-LM training request as the page and the CLI send it, checked once against limits.ts and turned into the
// run's plan: Hugging Face's run_mlm.py defaults (AdamW, lr 5e-5, no warm-up, 15% masking) with the user's changes.
import { InvalidRequestError, TRAIN_LIMITS, checkK, checkRange } from '../limits.ts';
import { planStepRecipe, type StepRequest } from './step-plan.ts';
import type { MlmLayout, MlmRecipe } from './mlm-recipe.ts';

/** A masked-LM request: what every training request has (StepRequest), with the sequences and their masking. */
export interface MlmRequest extends StepRequest {
  /**
   * Tokens per sequence: a text's blocks (or its truncated lines). Absent: MLM_DEFAULTS.maxLength for a text, and for
   * pre-masked batches their longest sequence (given, it is the most a batch sequence may hold, and the run's length).
   */
  maxLength?: number;
  mlmProbability?: number;
  layout: MlmLayout;
  /**
   * Divide the head by k before the first step (absent: 1, the head as loaded): a long-rowed head starts short, as
   * before pretraining grew it, so that a short run shows the rows growing. A tied head divides the embeddings with it.
   */
  k?: number;
}

export interface MlmPlan {
  recipe: MlmRecipe;
  /** The head is divided by k before the first step (a checkpoint records it: a resume must ask for the same). */
  k: number;
  seed: number;
  checkpointEvery: number;
  reportEvery: number;
  resume: boolean;
}

export const MLM_DEFAULTS = {
  peakLr: 5e-5,
  mlmProbability: 0.15,
  warmupRatio: 0,
  maxGradNorm: 1,
  seed: 42,
  /** Tokens per sequence of a text (run_mlm.py's block size is the model's, at most 1024; 128 fits every backbone here). */
  maxLength: 128,
} as const;

export const MLM_LIMITS = {
  /** Chance of a token to be predicted: above 0 (0 would predict nothing: a loss of 0/0) and at most 1. */
  mlmProbability: { min: 0, max: 1, exclusiveMin: true },
} as const;

/** The run's plan for `sequences` sequences per epoch (the text's, after grouping or one per line). */
export function planMlm(request: MlmRequest, sequences: number): MlmPlan {
  const step = planStepRecipe(request, sequences, { ...MLM_DEFAULTS, reports: 20 });
  const { gradAccum, maxGradNorm } = step;
  const mlmProbability = request.mlmProbability ?? MLM_DEFAULTS.mlmProbability;
  if (!(mlmProbability > 0))
    throw new InvalidRequestError(
      `The masking probability (--mlm-probability) must be above 0 and at most 1, got ${mlmProbability}: at 0 no token is predicted and the loss is 0/0`,
    );
  checkRange(mlmProbability, MLM_LIMITS.mlmProbability, 'The masking probability');
  // the keys in the order recipes (and checkpoints) have always had them
  const recipe: MlmRecipe = {
    objective: 'mlm',
    batchSize: step.batchSize,
    maxLength: checkRange(request.maxLength ?? MLM_DEFAULTS.maxLength, TRAIN_LIMITS.documentLength, 'The sequence length'),
    mlmProbability,
    layout: request.layout,
    optimizer: step.optimizer,
    schedule: step.schedule,
    ...(step.shuffle ? {} : { dataOrder: 'file' as const }),
    ...(gradAccum > 1 ? { gradAccum } : {}),
    ...(maxGradNorm > 0 ? { maxGradNorm } : {}),
    dropout: step.dropout,
  };
  const { seed, checkpointEvery, reportEvery, resume } = step;
  return {
    recipe,
    k: request.k === undefined ? 1 : checkK(request.k, 'The head divisor k'),
    seed,
    checkpointEvery,
    reportEvery,
    resume,
  };
}
