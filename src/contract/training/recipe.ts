// The paper's training recipe as plain data: the recipe type, its defaults (AdamW, warm-up, FLOPS ramp, lambdas), and
// the run settings around it; the GPU trainer and every adapter read it from here.
import type { AdamWSettings, OptimizerSettings } from './optimizer-settings.ts';
import type { LinearSchedule } from './schedule.ts';

/** What every training objective's recipe holds: the batch, the optimiser, the schedule and how a step is taken. */
export interface StepRecipe {
  /** Rows per micro-batch (triplets for SPLADE, sequences for masked-LM training). */
  batchSize: number;
  optimizer: OptimizerSettings;
  schedule: LinearSchedule;
  /** 'file': rows in file order every epoch; absent (the default): a seeded shuffle per epoch. */
  dataOrder?: 'file';
  /** Micro-batches per step, gradients averaged (N-GPU data parallelism without gathering); absent: 1. */
  gradAccum?: number;
  /** Clip the averaged gradient to this global L2 norm; absent: no clipping (the paper's stack: 1.0). */
  maxGradNorm?: number;
  /** 'config': the backbone's dropout probabilities; a number: every one set to it; absent: none (older runs). */
  dropout?: 'config' | number;
}

/**
 * A SPLADE run's recipe, saved in every checkpoint and compared on resume. Fields added after the first release are
 * optional and absent when they hold their old meaning, so that older checkpoints still resume.
 */
export interface TrainingRecipe extends StepRecipe {
  /** Padded lengths of queries and documents. */
  queryLength: number;
  documentLength: number;
  lambdaQueries: number;
  lambdaDocuments: number;
  /**
   * Temperature of the contrastive loss, or of the KL distillation loss: scores are divided by it (defaultTemperature:
   * the paper's 1 for the contrastive loss, sentence-transformers' 2 for KL; MarginMSE keeps 1 and has none).
   */
  tau: number;
  /** Fraction of the steps over which the FLOPS weights ramp up quadratically; absent: a third; 0: none. */
  flopsRampRatio?: number;
  /** Negatives per row: every one joins the batch's candidates (absent: 1). */
  negatives?: number;
  /**
   * 'step': the FLOPS terms over all of a step's micro-batches (mean |v| over every vector of the step, as one large
   * batch would see); absent: over each micro-batch (as each GPU of a DDP run computes it).
   */
  flopsOver?: 'step';
  /**
   * The ranking loss: absent or 'contrastive' the paper's in-batch contrastive loss; 'marginmse' or 'kl' distillation
   * from the rows' teacher scores over each query's own documents (no in-batch negatives).
   */
  loss?: RankingLossKind;
  /**
   * Inference-free SPLADE: queries are their tokens weighted by a static table, only documents are encoded; the
   * table's source and CRC-32 (of its float32 bytes, as the run started), so that a resume uses the same one. With
   * `trained`, the table is a parameter of the run (special tokens excepted), with an L1 on the query vectors of
   * weight `l1` (ramped as the FLOPS weights); without it, frozen.
   */
  inferenceFree?: { queryWeights: string; crc32: number; trained?: TrainedQueryTable };
}

/** A trained query table's settings (the recipe's inferenceFree.trained). */
export interface TrainedQueryTable {
  /** Weight of the L1 on the query vectors (ramped as the FLOPS weights). */
  l1: number;
  /**
   * The table's own peak learning rate: the run's schedule (warm-up, decay) scaled to it, as sentence-transformers'
   * learning_rate_mapping gives a parameter group its own lr under one scheduler. Absent: the model's peak lr (runs
   * made before --query-table-lr, or one that gave the model's).
   */
  lr?: number;
}

/**
 * The default peak learning rate of a trained query table (`--query-table-lr`): sentence-transformers' inference-free
 * recipe, `learning_rate_mapping={r"SparseStaticEmbedding\.weight": 1e-3}` against 2e-5 for the encoder
 * (docs/sparse_encoder/training_overview.md): IDF weights of 2 to 15 barely move at an encoder's lr, an Adam step
 * being about lr.
 */
export const QUERY_TABLE_LR = 1e-3;

/** A recipe's trained query table's peak learning rate (its own, or the model's), or undefined when it trains none. */
export function queryTableLr(recipe: TrainingRecipe): number | undefined {
  const trained = recipe.inferenceFree?.trained;
  return trained ? (trained.lr ?? recipe.schedule.peakLr) : undefined;
}

/** The ranking losses a SPLADE run can take (`train --loss`). */
export const RANKING_LOSSES = ['contrastive', 'marginmse', 'kl'] as const;
export type RankingLossKind = (typeof RANKING_LOSSES)[number];

/** The paper's temperature of the in-batch contrastive loss (sentence-transformers' scale 1 / tau = 1). */
export const CONTRASTIVE_TEMPERATURE = 1;

/**
 * The default temperature of the KL loss: sentence-transformers' SparseDistillKLDivLoss default (temperature=2.0 in
 * every v5 release and v6; its docstring: a higher temperature helps keep the student from going to zero active
 * dimensions), so that a run compared against sentence-transformers' defaults trains the same loss (the dense
 * DistillKLDivLoss defaults to 1.0).
 */
export const KL_TEMPERATURE = 2;

/** A loss's default temperature: 2 for KL (KL_TEMPERATURE), the paper's 1 otherwise (MarginMSE uses none). */
export function defaultTemperature(loss: RankingLossKind): number {
  return loss === 'kl' ? KL_TEMPERATURE : CONTRASTIVE_TEMPERATURE;
}

/** The distillation a recipe asks for (undefined: the contrastive loss). */
export function distillSettings(recipe: TrainingRecipe): { kind: 'marginmse' | 'kl'; temperature: number } | undefined {
  return recipe.loss === 'marginmse' || recipe.loss === 'kl' ? { kind: recipe.loss, temperature: recipe.tau } : undefined;
}

/**
 * The paper's AdamW settings: transformers' Trainer defaults (PAPER.md), whose weight decay is 0.0 (when set, it skips
 * biases and LayerNorm parameters, as AdamW here does).
 */
export const PAPER_ADAMW: AdamWSettings = { beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0 };

/** What a smaller run (a laptop, a test) changes of the paper's recipe. */
export interface RecipeOverrides {
  queryLength?: number;
  documentLength?: number;
  peakLr?: number;
}

/** The paper's FLOPS weights λ_q and λ_d (quadratic ramp over the first third): written here once. */
export const PAPER_LAMBDAS = { queries: 5e-2, documents: 3e-3 } as const;

/**
 * The paper's run (PAPER.md), each number written here once: 64 triplets per GPU on 8 GPUs (8 accumulated micro-batches
 * here), 256 tokens, AdamW at a peak lr of 1e-4 with 10% warm-up then linear decay, transformers' clipping at 1.0.
 */
export const PAPER_RUN = {
  batchSize: 64,
  gradAccum: 8,
  queryLength: 256,
  documentLength: 256,
  peakLr: 1e-4,
  warmupRatio: 0.1,
  maxGradNorm: 1,
} as const;

/**
 * The paper's recipe at laptop size, the one set of defaults of `splade-lab train`, `sweep` and `calibrate` and of the
 * page's training form and calibrator: 100 steps of 8 triplets, 32 query and 128 document tokens, seed 1, a checkpoint
 * every 50 steps; the optimiser, schedule, clipping and lambdas as the paper's.
 */
export const LAPTOP_RUN = {
  ...PAPER_RUN,
  steps: 100,
  batchSize: 8,
  gradAccum: 1,
  queryLength: 32,
  documentLength: 128,
  seed: 1,
  checkpointEvery: 50,
} as const;

/** The paper's recipe (PAPER.md), for a given number of steps and batch size, with optional smaller lengths or lr. */
export function paperRecipe(
  totalSteps: number,
  batchSize: number = PAPER_RUN.batchSize,
  overrides: RecipeOverrides = {},
): TrainingRecipe {
  return {
    batchSize,
    queryLength: overrides.queryLength ?? PAPER_RUN.queryLength,
    documentLength: overrides.documentLength ?? PAPER_RUN.documentLength,
    optimizer: PAPER_ADAMW,
    schedule: { peakLr: overrides.peakLr ?? PAPER_RUN.peakLr, totalSteps, warmupRatio: PAPER_RUN.warmupRatio },
    lambdaQueries: PAPER_LAMBDAS.queries,
    lambdaDocuments: PAPER_LAMBDAS.documents,
    tau: CONTRASTIVE_TEMPERATURE,
    maxGradNorm: PAPER_RUN.maxGradNorm,
    dropout: 'config',
  };
}

/** Number of batches in `epochs` passes over `triplets` rows (a partial last batch counts as one). */
export function stepsForEpochs(epochs: number, triplets: number, batchSize: number): number {
  return Math.ceil((epochs * triplets) / batchSize);
}

/** A run's settings besides its data and model: the recipe, k, the seed, and how often to checkpoint and report. */
export interface RunSettings {
  recipe: TrainingRecipe;
  k: number;
  seed: number;
  /** Save a checkpoint after every this many steps (and after the last step). */
  checkpointEvery: number;
  /** Report after the first step, every this many steps, and after the last. */
  reportEvery: number;
  /** Continue from the store's newest checkpoint (which must exist); without it, the store must be empty. */
  resume: boolean;
}
