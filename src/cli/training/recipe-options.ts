// The training recipe's options beyond batch, lengths and lr (optimizer, warm-up, clipping, dropout, the loss and its
// temperature, the FLOPS ramp and accumulation), shared by train, calibrate and sweep so that a calibration or a sweep trains with the
// same recipe as the run it prepares.
import type { TrainRequest } from '../../contract/training-request.ts';
import { CONTRASTIVE_TEMPERATURE, KL_TEMPERATURE, QUERY_TABLE_LR } from '../../contract/recipe.ts';
import type { Args, OptionSpec } from '../command.ts';

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
