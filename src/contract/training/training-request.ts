// A training request as the page and the CLI send it, checked once against limits.ts and turned into the run's
// plan (the paper's recipe with the user's changes); and a recipe turned back into the request that makes it.
import {
  type RunSettings,
  LAPTOP_RUN,
  PAPER_LAMBDAS,
  PAPER_RUN,
  QUERY_TABLE_LR,
  RANKING_LOSSES,
  defaultTemperature,
  type RankingLossKind,
  type TrainedQueryTable,
  type TrainingRecipe,
} from './recipe.ts';

import { optimizerName, type OptimizerName } from './optimizer-settings.ts';
import { planStepRecipe, type StepDefaults } from './step-plan.ts';
import { ALARM_RULES, type AlarmRule } from './alarm-rules.ts';
import { checkProbes, DEFAULT_PROBES, type ProbeText } from './probes.ts';
import { InvalidRequestError, TRAIN_LIMITS, checkK, checkRange } from '../limits.ts';

/** A run of full fine-tuning: what the user sets; everything else is the paper's recipe (train/splade/trainer.ts). */
export interface TrainRequest {
  k: number;
  /** Steps of the whole run; when absent, `epochs` over the data (default 1) decide. */
  steps?: number;
  epochs?: number;
  batchSize: number;
  queryLength: number;
  documentLength: number;
  /** Peak learning rate (default the paper's 1e-4). */
  peakLr?: number;
  /** 'adamw' (the default, the paper's) or 'sgd' (plain SGD, no momentum). */
  optimizer?: OptimizerName;
  /** Weight decay, on weights and embeddings only (default 0.0, the Trainer's): decoupled for AdamW. */
  weightDecay?: number;
  /** Fraction of the steps of linear learning-rate warm-up (default the paper's 0.1). */
  warmupRatio?: number;
  /** Fraction of the steps over which the FLOPS weights ramp up quadratically (default a third; 0: full from step 1). */
  flopsRampRatio?: number;
  /** Temperature of the contrastive or the KL loss (default: defaultTemperature, 1 contrastive and 2 KL). */
  temperature?: number;
  /**
   * The ranking loss (default 'contrastive', the paper's): 'marginmse' or 'kl' distil a teacher's scores, the rows'
   * `label` column (see contract/training/teacher-labels.ts).
   */
  loss?: RankingLossKind;
  /**
   * Inference-free SPLADE: queries are their tokens weighted by a static table (IDF of the training documents, or of
   * a given corpus), frozen; only documents are encoded and regularised (lambda_q unused).
   */
  inferenceFree?: boolean;
  /**
   * Inference-free runs: train the static query table with the model (sentence-transformers' SparseStaticEmbedding
   * with frozen=False; special tokens stay 0), and optionally an L1 of this weight on the query vectors.
   */
  trainQueryWeights?: boolean;
  queryL1?: number;
  /** A trained query table's own peak learning rate (default QUERY_TABLE_LR, sentence-transformers' 1e-3). */
  queryTableLr?: number;
  /** Clip the averaged gradient to this global L2 norm (default 1.0, transformers' Trainer's; 0: no clipping). */
  maxGradNorm?: number;
  /** Micro-batches of `batchSize` per step, gradients averaged: N-GPU data parallelism (default 1). */
  gradAccum?: number;
  /** The FLOPS terms over each micro-batch (default, as each GPU of a DDP run) or over the whole accumulated step. */
  flopsOver?: 'micro-batch' | 'step';
  /** Every dropout probability of the backbone set to this (default: the backbone's config.json's; 0: none). */
  dropout?: number;
  lambdaQueries?: number;
  lambdaDocuments?: number;
  /** Seeds the data order (default 1). */
  seed?: number;
  /** false: triplets in file order every epoch (default true: a seeded shuffle per epoch). */
  shuffle?: boolean;
  checkpointEvery: number;
  /** Report every this many steps (default: about 100 reports per run). */
  reportEvery?: number;
  /** Continue the run's newest checkpoint (it must have been made with the same request). */
  resume: boolean;
  /** Texts encoded while training (default DEFAULT_PROBES). */
  probes?: ProbeText[];
  /** Encode the probes every this many steps (default: as often as reports; 0: never). */
  probeEvery?: number;
  /** Stop (after saving a checkpoint) when an alarm (not a warning) is raised, except for the rules in `ignoreAlarms`. */
  stopOnAlarm?: boolean;
  ignoreAlarms?: AlarmRule[];
}

/** A checked training request: the recipe and the run's other settings, as the training loop takes them. */
export type TrainPlan = RunSettings & {
  /** Probe texts and how often to encode them (every 0: never). */
  probes: { texts: ProbeText[]; every: number };
  /** The alarm rules that stop the run (none unless asked). */
  stopOn: AlarmRule[];
};

/** What a SPLADE request leaves out: the paper's schedule and clipping, the laptop run's seed, 100 reports a run. */
const TRAINING_DEFAULTS: StepDefaults = {
  peakLr: PAPER_RUN.peakLr,
  warmupRatio: PAPER_RUN.warmupRatio,
  maxGradNorm: PAPER_RUN.maxGradNorm,
  seed: LAPTOP_RUN.seed,
  reports: 100,
};

/** Checks a training request against the limits and builds its recipe for `triplets` rows of `negatives` negatives. */
export function planTraining(request: TrainRequest, triplets: number, negatives = 1): TrainPlan {
  const L = TRAIN_LIMITS;
  checkK(request.k);
  const step = planStepRecipe(request, triplets, TRAINING_DEFAULTS);
  const { gradAccum, maxGradNorm } = step;
  const queryLength = checkRange(request.queryLength, L.queryLength, 'The query length');
  const documentLength = checkRange(request.documentLength, L.documentLength, 'The document length');
  const loss = request.loss ?? 'contrastive';
  if (!RANKING_LOSSES.includes(loss))
    throw new InvalidRequestError(`Unknown loss "${loss}"; the losses are ${RANKING_LOSSES.join(', ')}`);
  if (loss === 'marginmse' && request.temperature !== undefined)
    throw new InvalidRequestError('The temperature is for the contrastive and KL losses; MarginMSE has none');
  if (request.trainQueryWeights && !request.inferenceFree)
    throw new InvalidRequestError('Training the query weights is for an inference-free run (its static query table)');
  if (request.queryL1 !== undefined) {
    if (!request.trainQueryWeights)
      throw new InvalidRequestError('The query L1 regularises a trained query table: ask to train the query weights too');
    checkRange(request.queryL1, L.lambda, 'The query L1 weight');
  }
  if (request.queryTableLr !== undefined) {
    if (!request.trainQueryWeights)
      throw new InvalidRequestError(
        "The query table's learning rate is for a trained query table: ask to train the query weights too",
      );
    checkRange(request.queryTableLr, L.peakLr, "The query table's learning rate");
  }
  // the keys in the order recipes (and checkpoints) have always had them
  const recipe: TrainingRecipe = {
    batchSize: step.batchSize,
    queryLength,
    documentLength,
    optimizer: step.optimizer,
    schedule: step.schedule,
    lambdaQueries:
      request.lambdaQueries === undefined ? PAPER_LAMBDAS.queries : checkRange(request.lambdaQueries, L.lambda, 'lambda_q'),
    lambdaDocuments:
      request.lambdaDocuments === undefined ? PAPER_LAMBDAS.documents : checkRange(request.lambdaDocuments, L.lambda, 'lambda_d'),
    tau:
      request.temperature === undefined
        ? defaultTemperature(loss)
        : checkRange(request.temperature, L.temperature, 'The temperature'),
    // absent unless asked, so that recipes (and checkpoints) of shuffled runs are what they always were
    ...(step.shuffle ? {} : { dataOrder: 'file' as const }),
    ...(gradAccum > 1 ? { gradAccum } : {}),
    ...(negatives > 1 ? { negatives } : {}),
    ...flopsOverField(request.flopsOver, gradAccum),
    ...(maxGradNorm > 0 ? { maxGradNorm } : {}),
    // a dropout of 0 is left out (none), as in older recipes
    ...(step.dropout === 'config' || step.dropout > 0 ? { dropout: step.dropout } : {}),
    // absent for the contrastive loss, so that its recipes (and checkpoints) are what they always were
    ...(loss !== 'contrastive' ? { loss } : {}),
    ...(request.flopsRampRatio !== undefined
      ? { flopsRampRatio: checkRange(request.flopsRampRatio, L.ratio, 'The FLOPS ramp ratio') }
      : {}),
  };
  const { reportEvery } = step;
  const ignored = request.ignoreAlarms ?? [];
  for (const rule of ignored)
    if (!ALARM_RULES.includes(rule))
      throw new InvalidRequestError(`Unknown alarm "${rule}"; the alarms are ${ALARM_RULES.join(', ')}`);
  return {
    recipe,
    k: request.k,
    seed: step.seed,
    checkpointEvery: step.checkpointEvery,
    reportEvery,
    resume: step.resume,
    probes: {
      texts: checkProbes(request.probes ?? DEFAULT_PROBES),
      every:
        request.probeEvery === undefined
          ? reportEvery
          : request.probeEvery === 0
            ? 0
            : checkRange(request.probeEvery, L.reportEvery, 'Probe every'),
    },
    stopOn: request.stopOnAlarm ? ALARM_RULES.filter((rule) => !ignored.includes(rule)) : [],
  };
}

/**
 * The `trained` field of an inference-free recipe, from a request planTraining has checked (none unless it trains
 * its table): the table's L1, and its own lr, left out when it is the model's (the field's old meaning).
 */
export function trainedTableField(
  request: Pick<TrainRequest, 'trainQueryWeights' | 'queryL1' | 'queryTableLr'>,
  peakLr: number,
): { trained?: TrainedQueryTable } {
  if (!request.trainQueryWeights) return {};
  const lr = request.queryTableLr ?? QUERY_TABLE_LR;
  return { trained: { l1: request.queryL1 ?? 0, ...(lr !== peakLr ? { lr } : {}) } };
}

/** FLOPS over the whole step is a choice only with several micro-batches (with one, both are the same). */
function flopsOverField(over: TrainRequest['flopsOver'], gradAccum: number): Pick<TrainingRecipe, 'flopsOver'> {
  if (over !== undefined && over !== 'micro-batch' && over !== 'step')
    throw new InvalidRequestError(`FLOPS over "${over}": choose micro-batch or step`);
  return over === 'step' && gradAccum > 1 ? { flopsOver: 'step' } : {};
}

/** The request that continues a saved run exactly: its own recipe, k and seed (and what `watch` says of probes and alarms). */
export function requestFromRecipe(
  recipe: TrainingRecipe,
  k: number,
  seed: number,
  checkpointEvery: number,
  watch: Pick<TrainRequest, 'probes' | 'probeEvery' | 'stopOnAlarm' | 'ignoreAlarms'> = {},
): TrainRequest {
  return {
    ...watch,
    k,
    steps: recipe.schedule.totalSteps,
    batchSize: recipe.batchSize,
    queryLength: recipe.queryLength,
    documentLength: recipe.documentLength,
    peakLr: recipe.schedule.peakLr,
    optimizer: optimizerName(recipe.optimizer),
    weightDecay: recipe.optimizer.weightDecay,
    warmupRatio: recipe.schedule.warmupRatio,
    flopsRampRatio: recipe.flopsRampRatio,
    temperature: recipe.loss === 'marginmse' ? undefined : recipe.tau,
    ...(recipe.loss ? { loss: recipe.loss } : {}),
    ...(recipe.inferenceFree ? { inferenceFree: true } : {}),
    ...(recipe.inferenceFree?.trained
      ? {
          trainQueryWeights: true,
          queryL1: recipe.inferenceFree.trained.l1,
          queryTableLr: recipe.inferenceFree.trained.lr ?? recipe.schedule.peakLr,
        }
      : {}),
    maxGradNorm: recipe.maxGradNorm ?? 0,
    gradAccum: recipe.gradAccum,
    flopsOver: recipe.flopsOver,
    dropout: recipe.dropout === 'config' ? undefined : (recipe.dropout ?? 0),
    lambdaQueries: recipe.lambdaQueries,
    lambdaDocuments: recipe.lambdaDocuments,
    shuffle: recipe.dataOrder !== 'file',
    seed,
    checkpointEvery,
    resume: true,
  };
}
