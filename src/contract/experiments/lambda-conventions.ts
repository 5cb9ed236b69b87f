// What lambda_q and lambda_d mean in splade-lab, sentence-transformers, naver/splade and tevatron (each formula as
// their code computes it), and a converter that carries a value from one to another: the same kind of ranking loss
// keeps the value, the FLOPS term's batch changes its size (measured, when a run's batch statistics are given), and
// what cannot be converted (a distillation loss, an L1 query term) is said plainly.
import { flopsAtBatch } from '../training/flops-batch.ts';
import { InvalidRequestError } from '../limits.ts';

export type LambdaConvention = 'splade-lab' | 'sentence-transformers' | 'naver-splade' | 'tevatron';

export const LAMBDA_CONVENTIONS: readonly LambdaConvention[] = [
  'splade-lab',
  'sentence-transformers',
  'naver-splade',
  'tevatron',
];

export interface ConventionFacts {
  name: string;
  /** The total loss, with F(X) = sum_j (mean_i |x_ij|)^2 over the rows of X. */
  loss: string;
  /** Which rows the FLOPS terms average over. */
  flopsRows: string;
  /** Typical values and where they are used. */
  typical: string;
  /** Where the facts were read. */
  source: string;
}

export const CONVENTION_FACTS: Record<LambdaConvention, ConventionFacts> = {
  'splade-lab': {
    name: 'splade-lab',
    loss: 'L = CE(scores of B queries over 2B in-batch documents, tau 1) + lambda_q F(Q) + lambda_d F([P; N])',
    flopsRows: 'one step batch: B queries; B positives and B negatives together (2B rows)',
    typical: "the paper's 5e-2 / 3e-3 with a quadratic ramp over the first third",
    source: 'src/train/splade/splade-objective.ts; PAPER.md',
  },
  'sentence-transformers': {
    name: 'sentence-transformers v5 (SpladeLoss)',
    loss: 'L = SparseMNRL(dot, scale 1) + query_regularizer_weight F(Q) + document_regularizer_weight F(cat(positives, all negatives))',
    flopsRows: 'per device under DDP (no gather): B_dev queries; B_dev x (1 + negatives) documents',
    typical: 'docs and examples: query 5e-5, document 3e-5 (MS MARCO MNRL example 5e-5 / 1e-3; MarginMSE example 0.1 / 0.08)',
    source:
      'sentence_transformers/sparse_encoder/losses/SpladeLoss.py and FlopsLoss.py; docs/sparse_encoder/training_overview.md',
  },
  'naver-splade': {
    name: 'naver/splade (Hydra trainer)',
    loss: 'L = ranking + lambda_q F(Q) + lambda_d (F(P) + F(N)) / 2, ramped as lambda (t/T)^2 with T = 50000 of 150000 iterations',
    flopsRows:
      'the whole batch (DataParallel gathers on one device): B queries; positives and negatives as two batches of B, averaged',
    typical: 'in-batch NLL (config_splade++_max) 3e-4 / 1e-4; MarginMSE distillation (SPLADE++ configs) 0.5 / 0.4',
    source: 'splade/losses/regularization.py (FLOPS, RegWeightScheduler); splade/tasks/transformer_trainer.py; conf/',
  },
  tevatron: {
    name: 'tevatron (SpladeTrainer)',
    loss: 'L = CE(scores / temperature 1) + q_flops_loss_factor F(Q) + p_flops_loss_factor F(passages of every group)',
    flopsRows: 'the global batch (reps gathered across GPUs, the term scaled by world size): B queries; B x group size passages',
    typical: 'defaults 1e-2 / 1e-2 with a quadratic warm-up over 1000 steps',
    source: 'src/tevatron/retriever/splade_trainer.py; modeling/encoder.py; texttron/tevatron PR #36 and #40',
  },
};

/** How a run of one convention is set up, as far as lambdas care. */
export interface ConventionSetup {
  convention: LambdaConvention;
  /** Triplets per device and per step. */
  batchPerDevice: number;
  devices: number;
  /** Negatives per query (splade-lab: 1). */
  negatives: number;
  /** The ranking loss the lambdas were tuned with. */
  ranking: 'contrastive' | 'distillation';
}

/** One batch's statistics for one side (a report's FLOPS and mean squared norm), to carry FLOPS across batch sizes. */
export interface SideStatistics {
  flops: number;
  meanSquaredNorm: number;
  rows: number;
}

export interface ConversionRequest {
  from: ConventionSetup;
  to: ConventionSetup;
  lambdaQueries: number;
  lambdaDocuments: number;
  /** Measured vectors (from a run's report) to size the FLOPS change between the two batch shapes. */
  measured?: { queries: SideStatistics; documents: SideStatistics };
}

export interface Conversion {
  lambdaQueries: number;
  lambdaDocuments: number;
  /** false when no formula carries the value (a distillation loss on one side): use the calibrator then. */
  convertible: boolean;
  /** Each factor applied, and why. */
  steps: string[];
  caveats: string[];
}

/** Rows each FLOPS term averages over in a setup. */
export function flopsRows(setup: ConventionSetup): { queries: number; documents: number } {
  const perDevice = setup.batchPerDevice;
  const global = perDevice * setup.devices;
  switch (setup.convention) {
    case 'splade-lab':
    case 'sentence-transformers':
      return { queries: perDevice, documents: perDevice * (1 + setup.negatives) };
    case 'naver-splade':
      return { queries: global, documents: global };
    case 'tevatron':
      return { queries: global, documents: global * (1 + setup.negatives) };
  }
}

function checkSetup(setup: ConventionSetup, which: string): void {
  if (!LAMBDA_CONVENTIONS.includes(setup.convention))
    throw new InvalidRequestError(`Unknown convention "${setup.convention}" (${which}); use ${LAMBDA_CONVENTIONS.join(', ')}`);
  for (const [field, value] of [
    ['batch per device', setup.batchPerDevice],
    ['devices', setup.devices],
  ] as const) {
    if (!Number.isInteger(value) || value < 1)
      throw new InvalidRequestError(`The ${which} ${field} must be a whole number of at least 1, got ${value}`);
  }
  if (!Number.isInteger(setup.negatives) || setup.negatives < 1)
    throw new InvalidRequestError(`The ${which} negatives must be a whole number of at least 1, got ${setup.negatives}`);
  if (setup.convention === 'splade-lab' && (setup.devices !== 1 || setup.negatives !== 1)) {
    throw new InvalidRequestError('splade-lab trains one triplet (one negative) per row on one device');
  }
}

export function convertLambdas(request: ConversionRequest): Conversion {
  const { from, to } = request;
  checkSetup(from, 'source');
  checkSetup(to, 'target');
  for (const [name, value] of [
    ['lambda_q', request.lambdaQueries],
    ['lambda_d', request.lambdaDocuments],
  ] as const) {
    if (!Number.isFinite(value) || value < 0)
      throw new InvalidRequestError(`${name} must be a number of at least 0, got ${value}`);
  }
  const steps: string[] = [];
  const caveats: string[] = [];
  let convertible = true;
  if (from.ranking !== to.ranking) {
    convertible = false;
    caveats.push(
      `The source tuned its lambdas against a ${from.ranking} loss and the target uses a ${to.ranking} one: their scales differ ` +
        '(a margin MSE of squared score margins against a cross-entropy in nats), so no formula carries the value. Run the ' +
        'calibrator with the active dimensions the source reached.',
    );
  } else {
    steps.push(
      `Ranking losses of the same kind (${from.ranking}${from.ranking === 'contrastive' ? ': cross-entropies over dot products, no scale' : ''}): the lambdas keep their values.`,
    );
  }
  const rowsFrom = flopsRows(from);
  const rowsTo = flopsRows(to);
  const factor = (side: 'queries' | 'documents'): number => {
    if (rowsFrom[side] === rowsTo[side]) {
      steps.push(`FLOPS of the ${side} over ${rowsFrom[side]} rows on both sides: no change.`);
      return 1;
    }
    const m = request.measured?.[side];
    if (!m) {
      caveats.push(
        `FLOPS of the ${side} averages ${rowsFrom[side]} rows in the source and ${rowsTo[side]} in the target. It squares a batch mean, ` +
          `so it is larger over fewer rows and the same lambda gives ${rowsTo[side] < rowsFrom[side] ? 'sparser' : 'denser'} vectors; ` +
          "give a run's measured FLOPS and squared norms to size it, or calibrate.",
      );
      return 1;
    }
    const fFrom = flopsAtBatch(m.flops, m.meanSquaredNorm, m.rows, rowsFrom[side]);
    const fTo = flopsAtBatch(m.flops, m.meanSquaredNorm, m.rows, rowsTo[side]);
    const f = fFrom / fTo;
    if (!Number.isFinite(f)) {
      caveats.push(`The measured ${side} cannot size the change (one row, or empty vectors); the value is kept.`);
      return 1;
    }
    steps.push(
      `FLOPS of the ${side}: ${fFrom.toPrecision(4)} over ${rowsFrom[side]} rows, ${fTo.toPrecision(4)} over ${rowsTo[side]} (estimated from the measured batch): ` +
        `x ${f.toPrecision(4)} keeps lambda x FLOPS the same.`,
    );
    return f;
  };
  const fq = factor('queries');
  const fd = factor('documents');
  if (from.convention === 'naver-splade' || to.convention === 'naver-splade') {
    caveats.push(
      "naver/splade's HF trainer path puts an L1 term on queries (not FLOPS) and adds an anti-zero term; this converts its Hydra configs only.",
    );
  }
  return {
    lambdaQueries: request.lambdaQueries * fq,
    lambdaDocuments: request.lambdaDocuments * fd,
    convertible,
    steps,
    caveats,
  };
}
