// The training recipe's options, shared by train, calibrate and sweep so that a calibration or a sweep trains with the
// same recipe as the run it prepares: a run's size (k, batch, lengths, lr, lambdas, seed) with the laptop run's
// defaults, and the rest (optimizer, warm-up, clipping, dropout, the loss and its temperature, the FLOPS ramp and
// accumulation); `trainRequestFrom` reads them all.
import type { TrainRequest } from '../../contract/training/training-request.ts';
import {
  CONTRASTIVE_TEMPERATURE,
  KL_TEMPERATURE,
  LAPTOP_RUN,
  PAPER_LAMBDAS,
  QUERY_TABLE_LR,
} from '../../contract/training/recipe.ts';
import type { Args, OptionSpec } from '../command.ts';

/** A default as people write it: 1e-4 and 5e-2 in exponent form (as the paper writes them), whole numbers plain. */
function defaultText(value: number): string {
  return value !== 0 && Math.abs(value) < 0.1 ? value.toExponential() : String(value);
}

/** A run's size, with the laptop run's defaults (LAPTOP_RUN, PAPER_LAMBDAS: each written once, in contract/training/recipe.ts). */
const RUN_SIZE_OPTIONS = {
  k: { value: 'K', help: 'divide the MLM head by k before training', default: '1' },
  batch: {
    value: 'B',
    help: 'triplets per micro-batch: its in-batch candidates and its FLOPS batch',
    default: defaultText(LAPTOP_RUN.batchSize),
  },
  'query-length': { value: 'T', help: 'tokens per query', default: defaultText(LAPTOP_RUN.queryLength) },
  'doc-length': { value: 'T', help: 'tokens per document', default: defaultText(LAPTOP_RUN.documentLength) },
  lr: { value: 'LR', help: 'peak learning rate', default: defaultText(LAPTOP_RUN.peakLr) },
  'lambda-q': { value: 'L', help: 'FLOPS weight of the queries', default: defaultText(PAPER_LAMBDAS.queries) },
  'lambda-d': { value: 'L', help: 'FLOPS weight of the documents', default: defaultText(PAPER_LAMBDAS.documents) },
  seed: { value: 'S', help: 'seed of the data order (32-bit)', default: defaultText(LAPTOP_RUN.seed) },
} satisfies Record<string, OptionSpec>;

/** The size options, each with the help its command gives it (what the option means there); defaults unchanged. */
export function runSizeOptions(help: Partial<Record<keyof typeof RUN_SIZE_OPTIONS, string>> = {}): Record<string, OptionSpec> {
  return Object.fromEntries(
    Object.entries(RUN_SIZE_OPTIONS).map(([name, spec]) => [
      name,
      { ...spec, help: help[name as keyof typeof RUN_SIZE_OPTIONS] ?? spec.help },
    ]),
  );
}

/** --steps of a command that has a default for it (the laptop run's, unless the command's own is given). */
export function stepsOption(help: string, steps: number = LAPTOP_RUN.steps): OptionSpec {
  return { value: 'N', help, default: defaultText(steps) };
}

/** --checkpoint-every, with the laptop run's default. */
export function checkpointOption(help: string): OptionSpec {
  return { value: 'N', help, default: defaultText(LAPTOP_RUN.checkpointEvery) };
}

/**
 * The request of a train, sweep or calibrate command: its size and recipe options (the steps, the epochs and the
 * checkpoints are the command's own); absent recipe options stay undefined, so the application's defaults apply.
 */
export function trainRequestFrom(args: Args): Omit<TrainRequest, 'checkpointEvery'> {
  return {
    k: args.numberOrDefault('k'),
    batchSize: args.numberOrDefault('batch'),
    queryLength: args.numberOrDefault('query-length'),
    documentLength: args.numberOrDefault('doc-length'),
    peakLr: args.numberOrDefault('lr'),
    ...recipeFrom(args),
    lambdaQueries: args.numberOrDefault('lambda-q'),
    lambdaDocuments: args.numberOrDefault('lambda-d'),
    seed: args.numberOrDefault('seed'),
    resume: false,
  };
}

export const RECIPE_OPTIONS: Record<string, OptionSpec> = {
  'grad-accum': { value: 'N', help: 'micro-batches per step, gradients averaged (as N GPUs of B triplets each)', default: '1' },
  'flops-over': {
    value: 'micro-batch|step',
    help: "the FLOPS terms over each micro-batch (as each GPU of a DDP run) or over all of a step's vectors (as one large batch)",
    default: 'micro-batch',
  },
  optimizer: { value: 'adamw|sgd', help: 'AdamW (0.9, 0.999, 1e-8) or plain SGD without momentum', default: 'adamw' },
  'warmup-ratio': { value: 'R', help: 'fraction of the steps of linear learning-rate warm-up', default: '0.1' },
  'weight-decay': {
    value: 'W',
    help: "weight decay, not on biases and LayerNorms (the Trainer's rule; decoupled for AdamW)",
    default: '0',
  },
  'max-grad-norm': { value: 'N', help: 'clip the averaged gradient to this global L2 norm (0: no clipping)', default: '1' },
  dropout: {
    value: 'P',
    help: "every dropout probability of the backbone set to P while training (default: its config.json's; 0: none)",
  },
  loss: {
    value: 'contrastive|marginmse|kl',
    help:
      "the ranking loss: the paper's in-batch contrastive loss (each query against all (1 + n)B documents of the " +
      'batch); or distillation from the rows\' teacher scores (their "label", or "labels", "score", "scores": ' +
      'one margin score(q, pos) - score(q, neg_i) per negative for marginmse, or the n + 1 scores [pos, neg_1..n], ' +
      "turned into those margins as sentence-transformers does; the n + 1 scores for kl), over each query's own documents",
    default: 'contrastive',
  },
  'inference-free': {
    help:
      'inference-free (document-only) SPLADE: a query is its tokens weighted by a static IDF table (of the training ' +
      "data's documents, or --idf-from where the command has it; a token they never hold weighs 0, as OpenSearch's " +
      'get_idf.py leaves it out; fewer than 1,000 documents are noted as noisy), frozen; only documents are encoded and regularised',
  },
  'train-query-weights': {
    help: "with --inference-free: train the static query table with the model (special tokens stay 0), as sentence-transformers' SparseStaticEmbedding with frozen=False",
  },
  'query-l1': {
    value: 'L',
    help: 'with --train-query-weights: an L1 of this weight on the query vectors (the mean over the batch, ramped as the FLOPS weights; default 0)',
  },
  'query-table-lr': {
    value: 'LR',
    help:
      "with --train-query-weights: the table's own peak learning rate, on the run's schedule (warm-up, decay) scaled to it, " +
      `as sentence-transformers' inference-free recipe (learning_rate_mapping={r"SparseStaticEmbedding\\.weight": 1e-3}); ` +
      `IDF weights of 2 to 15 barely move at an encoder's lr; default ${QUERY_TABLE_LR}`,
  },
  temperature: {
    value: 'T',
    help:
      `temperature of the contrastive or the KL loss (scores divided by T; the KL loss is multiplied by T²). Default: ` +
      `${CONTRASTIVE_TEMPERATURE} for the contrastive loss (the paper's), ${KL_TEMPERATURE} for kl, sentence-transformers' ` +
      `SparseDistillKLDivLoss default (v5 and v6; a softer target that helps keep the student from going to zero ` +
      'active dimensions; the dense DistillKLDivLoss defaults to 1.0), so that a run compares with its defaults',
  },
  'flops-ramp-ratio': {
    value: 'F',
    help: 'fraction of the steps over which the lambdas ramp up quadratically (default a third; 0: full lambdas from the first step)',
  },
};

export type RecipeFields = Pick<
  TrainRequest,
  | 'gradAccum'
  | 'flopsOver'
  | 'optimizer'
  | 'warmupRatio'
  | 'weightDecay'
  | 'maxGradNorm'
  | 'dropout'
  | 'temperature'
  | 'loss'
  | 'inferenceFree'
  | 'trainQueryWeights'
  | 'queryL1'
  | 'queryTableLr'
  | 'flopsRampRatio'
>;

/** The recipe options given; absent ones stay undefined, so the application layer's defaults apply (and are checked there). */
export function recipeFrom(args: Args): RecipeFields {
  return {
    gradAccum: args.number('grad-accum'),
    flopsOver: args.string('flops-over') as TrainRequest['flopsOver'],
    optimizer: args.string('optimizer') as TrainRequest['optimizer'],
    warmupRatio: args.number('warmup-ratio'),
    weightDecay: args.number('weight-decay'),
    maxGradNorm: args.number('max-grad-norm'),
    dropout: args.number('dropout'),
    temperature: args.number('temperature'),
    loss: args.string('loss') as TrainRequest['loss'],
    ...(args.flag('inference-free') ? { inferenceFree: true } : {}),
    ...(args.flag('train-query-weights') ? { trainQueryWeights: true } : {}),
    queryL1: args.number('query-l1'),
    queryTableLr: args.number('query-table-lr'),
    flopsRampRatio: args.number('flops-ramp-ratio'),
  };
}
