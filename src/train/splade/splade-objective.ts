// The SPLADE objective on the GPU: fused heads for queries and documents, in-batch scores, the ranking loss
// (contrastive, or distillation from teacher scores), FLOPS on queries and on documents, and every gradient back to the
// decoder and the hidden states.
import type { GpuContext } from '../../gpu/context.ts';
import type { Tensor } from '../../gpu/tensor.ts';
import { ActiveDims } from '../../kernels/active-dims.ts';
import { ContrastiveLoss } from '../../kernels/contrastive-loss.ts';
import { DistillLoss, teacherWidth, type DistillKind } from '../../kernels/distill-loss.ts';
import { FlopsLoss } from '../../kernels/flops-loss.ts';
import { SparseScores } from '../../kernels/sparse-scores.ts';
import { SpladeHead } from '../../kernels/splade-head.ts';
import type { RowParted } from '../../gpu/row-parts.ts';
import type { QueryKind } from './query-side.ts';

export interface SpladeObjectiveDims {
  /** triplets per batch: B queries, B positives, B negatives */
  B: number;
  /** padded query length */
  Tq: number;
  /** padded document length */
  Td: number;
  /** Negatives per query (absent: 1): the batch has N = (1 + negatives)·B documents. */
  negatives?: number;
  d: number;
  V: number;
  /** Row ranges of a decoder held in parts (GpuModel.decoderParts); default: the whole matrix. */
  decoderParts?: readonly { row0: number; rows: number }[];
}

/** Documents of a batch: B positives and B of each negative column. */
export function documentsOf(dims: Pick<SpladeObjectiveDims, 'B' | 'negatives'>): number {
  return dims.B * (1 + (dims.negatives ?? 1));
}

export interface ObjectiveOptions {
  tau?: number;
  distill?: DistillSettings;
  /**
   * Where the queries come from (splade/query-side.ts; absent: encoded). A table's B query vectors (inference-free
   * SPLADE) are put in pooledQueries before the objective: no query head, no query FLOPS, no gradient to hidden states.
   */
  queries?: QueryKind;
}

/** Distillation instead of the contrastive loss: the loss and its temperature (KL only). */
export interface DistillSettings {
  kind: DistillKind;
  temperature: number;
}

/** Slots of the losses tensor (3 floats): values read back for progress. */
export const LOSS_SLOTS = { rank: 0, flopsQueries: 1, flopsDocuments: 2 } as const;
/** The loss parts by slot, as health reports name them. */
export const LOSS_PART_NAMES = ['ranking loss', 'FLOPS of queries', 'FLOPS of documents'];

/** Means over the batch's query rows and document rows. */
export interface BatchStats {
  activeQueries: number;
  activeDocuments: number;
  squaredNormQueries: number;
  squaredNormDocuments: number;
}

export interface ObjectiveInputs {
  /** (B, Tq, d) after the MLM head transform, and its mask (B, Tq): needed when the queries are encoded, unread else. */
  hiddenQueries?: Tensor;
  maskQueries?: Tensor;
  hiddenDocuments: Tensor; // (N, Td, d): positives then each negative column
  maskDocuments: Tensor; // (N, Td)
  weight: RowParted; // (V, d) decoder, whole or in row parts
  bias: Tensor; // (V)
}

/** A step's running sums of its micro-batches' per-dimension means (V each), for FLOPS over the whole step. */
export interface StepMeans {
  queries: Tensor;
  documents: Tensor;
  /** Micro-batches in the step (the sums are divided by it). */
  microBatches: number;
}

export interface ObjectiveGradients {
  dweight: RowParted; // (V, d), accumulated into, in the decoder's parts
  dbias: Tensor; // (V), accumulated into
  dhiddenQueries?: Tensor; // (B, Tq, d), accumulated into; omit for a frozen encoder (unread for a table's queries)
  dhiddenDocuments?: Tensor; // (N, Td, d), accumulated into
}

/** Rows the objective encodes itself (the documents; the queries when encoded): their head and FLOPS term. */
interface EncodedRows {
  head: SpladeHead;
  flops: FlopsLoss;
  pooled: Tensor<'f32'>; // (rows, V)
  argmax: Tensor<'u32'>; // (rows, V)
  dpooled: Tensor<'f32'>; // (rows, V)
  /** Their hidden states (rows, T, d) and mask (rows, T) in a batch's inputs, their gradient's place, their step means. */
  hidden(inputs: ObjectiveInputs): Tensor;
  mask(inputs: ObjectiveInputs): Tensor;
  dhidden(grads: ObjectiveGradients): Tensor | undefined;
  means(step: StepMeans): Tensor;
}

export class SpladeObjective {
  readonly pooledQueries: Tensor<'f32'>; // (B, V)
  readonly pooledDocuments: Tensor<'f32'>; // (N, V)
  readonly argmaxQueries: Tensor<'u32'>; // (B, V)
  readonly argmaxDocuments: Tensor<'u32'>; // (N, V)
  readonly scores: Tensor<'f32'>; // (B, N)
  /** (3) rank loss, FLOPS(queries), FLOPS(documents), unweighted. */
  readonly losses: Tensor<'f32'>;
  /** (3B) active dimensions of each query, then each document, counted after every forward. */
  readonly activeCounts: Tensor<'u32'>;
  /** (3B) squared L2 norm of each query, then each document, after every forward. */
  readonly squaredNorms: Tensor<'f32'>;
  private readonly activeQueries: ActiveDims;
  private readonly activeDocuments: ActiveDims;
  private readonly dscores: Tensor<'f32'>;
  /** (B, V) dL/d query vectors of the last record (the ranking loss's, and the query FLOPS's when encoded). */
  readonly dpooledQueries: Tensor<'f32'>;
  private readonly dpooledDocuments: Tensor<'f32'>;
  private readonly scoring: SparseScores;
  private readonly ranking: ContrastiveLoss | DistillLoss;
  /** The batch's teacher labels (B, n or n + 1) when distilling. */
  readonly teacher: Tensor<'f32'> | null;
  private readonly flopsQueries: FlopsLoss;
  private readonly flopsDocuments: FlopsLoss;
  /** What goes through a head and takes FLOPS, in this order: the queries when encoded, then the documents. */
  private readonly encoded: readonly EncodedRows[];

  constructor(
    private readonly ctx: GpuContext,
    readonly dims: SpladeObjectiveDims,
    options: ObjectiveOptions = {},
  ) {
    const { tau = 1, distill, queries = 'encoded' } = options;
    const { B, Tq, Td, d, V, decoderParts: parts } = dims;
    const N = documentsOf(dims);
    const n = dims.negatives ?? 1;
    // the query head and FLOPS are built for a table's queries too, unused (the run's measured memory counts them)
    const headQueries = new SpladeHead(ctx, { B, T: Tq, d, V, parts });
    const headDocuments = new SpladeHead(ctx, { B: N, T: Td, d, V, parts });
    this.scoring = new SparseScores(ctx, B, N, V);
    this.ranking = distill
      ? new DistillLoss(ctx, distill.kind, B, n, distill.temperature, LOSS_SLOTS.rank)
      : new ContrastiveLoss(ctx, B, N, tau, LOSS_SLOTS.rank);
    this.teacher = distill ? ctx.tensor('teacher labels', [B, teacherWidth(distill.kind, n)], 'f32') : null;
    this.flopsQueries = new FlopsLoss(ctx, B, V, LOSS_SLOTS.flopsQueries);
    this.flopsDocuments = new FlopsLoss(ctx, N, V, LOSS_SLOTS.flopsDocuments);
    this.pooledQueries = ctx.tensor('pooled queries', [B, V], 'f32');
    this.pooledDocuments = ctx.tensor('pooled documents', [N, V], 'f32');
    this.argmaxQueries = ctx.tensor('argmax queries', [B, V], 'u32');
    this.argmaxDocuments = ctx.tensor('argmax documents', [N, V], 'u32');
    this.scores = ctx.tensor('scores', [B, N], 'f32');
    this.dscores = ctx.tensor('dscores', [B, N], 'f32');
    this.dpooledQueries = ctx.tensor('dpooled queries', [B, V], 'f32');
    this.dpooledDocuments = ctx.tensor('dpooled documents', [N, V], 'f32');
    this.losses = ctx.tensor('losses', [3], 'f32');
    this.activeCounts = ctx.tensor('active dimensions', [B + N], 'u32');
    this.squaredNorms = ctx.tensor('squared norms', [B + N], 'f32');
    this.activeQueries = new ActiveDims(ctx, B, V, 0);
    this.activeDocuments = new ActiveDims(ctx, N, V, B);
    const documents: EncodedRows = {
      head: headDocuments,
      flops: this.flopsDocuments,
      pooled: this.pooledDocuments,
      argmax: this.argmaxDocuments,
      dpooled: this.dpooledDocuments,
      hidden: (inputs) => inputs.hiddenDocuments,
      mask: (inputs) => inputs.maskDocuments,
      dhidden: (grads) => grads.dhiddenDocuments,
      means: (step) => step.documents,
    };
    switch (queries) {
      case 'encoded':
        this.encoded = [
          {
            head: headQueries,
            flops: this.flopsQueries,
            pooled: this.pooledQueries,
            argmax: this.argmaxQueries,
            dpooled: this.dpooledQueries,
            hidden: (inputs) => required(inputs.hiddenQueries, 'hiddenQueries'),
            mask: (inputs) => required(inputs.maskQueries, 'maskQueries'),
            dhidden: (grads) => grads.dhiddenQueries,
            means: (step) => step.queries,
          },
          documents,
        ];
        break;
      case 'frozen-table':
      case 'trained-table':
        // a table's queries are data in pooledQueries: no head, no FLOPS (its slot stays 0, or holds a trained
        // table's L1), and their gradient stops at dpooledQueries
        this.encoded = [documents];
        break;
    }
  }

  /** The FLOPS weights of this step (after the quadratic ramp). */
  setLambdas(lambdaQueries: number, lambdaDocuments: number): void {
    this.flopsQueries.setLambda(lambdaQueries);
    this.flopsDocuments.setLambda(lambdaDocuments);
  }

  /** Pooled vectors of queries and documents only (evaluation, preview). */
  recordForward(encoder: GPUCommandEncoder, inputs: ObjectiveInputs): void {
    const { weight, bias } = inputs;
    for (const rows of this.encoded)
      rows.head.forward(encoder, {
        hidden: rows.hidden(inputs),
        mask: rows.mask(inputs),
        weight,
        bias,
        pooled: rows.pooled,
        argmax: rows.argmax,
      });
    this.activeQueries.forward(encoder, { vectors: this.pooledQueries, counts: this.activeCounts, squares: this.squaredNorms });
    this.activeDocuments.forward(encoder, {
      vectors: this.pooledDocuments,
      counts: this.activeCounts,
      squares: this.squaredNorms,
    });
  }

  /**
   * A step's first pass when FLOPS is taken over the whole accumulated step: the pooled vectors of this micro-batch,
   * and their per-dimension means added into `sums` (queries when encoded, and documents), nothing backward.
   */
  recordStepMeans(encoder: GPUCommandEncoder, inputs: ObjectiveInputs, sums: StepMeans): void {
    this.recordForward(encoder, inputs);
    for (const rows of this.encoded) {
      rows.flops.forward(encoder, { vectors: rows.pooled, losses: this.losses });
      rows.flops.addMeansInto(encoder, rows.means(sums));
    }
  }

  /**
   * Forward, losses and backward: gradients are added into `grads`. With `step`, the FLOPS terms (value and gradient)
   * are over the whole step, from the means its first pass summed, instead of over this micro-batch.
   */
  record(encoder: GPUCommandEncoder, inputs: ObjectiveInputs, grads: ObjectiveGradients, step?: StepMeans): void {
    this.recordForward(encoder, inputs);
    this.ctx.clear(encoder, this.dpooledQueries);
    this.ctx.clear(encoder, this.dpooledDocuments);
    const [queries, docs] = [this.pooledQueries, this.pooledDocuments];
    const [dqueries, ddocs] = [this.dpooledQueries, this.dpooledDocuments];
    this.scoring.forward(encoder, { queries, docs, scores: this.scores });
    const scoring = { scores: this.scores, dscores: this.dscores, losses: this.losses };
    if (this.ranking instanceof DistillLoss) this.ranking.forwardBackward(encoder, { ...scoring, teacher: this.teacher! });
    else this.ranking.forwardBackward(encoder, scoring);
    this.scoring.backward(encoder, { queries, docs, dscores: this.dscores, dqueries, ddocs });
    for (const { flops, pooled: vectors, dpooled: dvectors, means } of this.encoded) {
      if (step) {
        flops.loadMeans(encoder, means(step), step.microBatches);
        flops.reduce(encoder, this.losses);
      } else {
        flops.forward(encoder, { vectors, losses: this.losses });
      }
      flops.backward(encoder, { vectors, dvectors });
    }
    const { weight } = inputs;
    for (const rows of this.encoded)
      rows.head.backward(encoder, {
        hidden: rows.hidden(inputs),
        weight,
        pooled: rows.pooled,
        argmax: rows.argmax,
        dpooled: rows.dpooled,
        dhidden: rows.dhidden(grads),
        dweight: grads.dweight,
        dbias: grads.dbias,
      });
  }

  /**
   * What a report reads of the last forward: the three loss parts, then each query's and document's active dimensions
   * and squared L2 norm (read with the step's other values in one `ctx.readAll`; `reportFrom` decodes the copies).
   */
  get reportTensors(): readonly Tensor[] {
    return [this.losses, this.activeCounts, this.squaredNorms];
  }

  /** The loss parts and the batch's mean statistics of copies of `reportTensors`, in their order. */
  reportFrom([l, counts, squares]: readonly ArrayLike<number>[]): { losses: LossParts; batch: BatchStats } {
    const { B } = this.dims;
    const mean = (x: ArrayLike<number>, from: number, to: number) => {
      let sum = 0;
      for (let i = from; i < to; i++) sum += x[i];
      return sum / (to - from);
    };
    return {
      losses: {
        rank: l[LOSS_SLOTS.rank],
        flopsQueries: l[LOSS_SLOTS.flopsQueries],
        flopsDocuments: l[LOSS_SLOTS.flopsDocuments],
      },
      batch: {
        activeQueries: mean(counts, 0, B),
        activeDocuments: mean(counts, B, counts.length),
        squaredNormQueries: mean(squares, 0, B),
        squaredNormDocuments: mean(squares, B, squares.length),
      },
    };
  }

  /** Reads the three loss parts (one small readback). */
  async readLosses(): Promise<LossParts> {
    const l = await this.ctx.read(this.losses);
    return { rank: l[LOSS_SLOTS.rank], flopsQueries: l[LOSS_SLOTS.flopsQueries], flopsDocuments: l[LOSS_SLOTS.flopsDocuments] };
  }
}

/** The SPLADE objective's three loss parts, before the FLOPS weights. */
export interface LossParts {
  rank: number;
  flopsQueries: number;
  flopsDocuments: number;
}

function required(tensor: Tensor | undefined, name: string): Tensor {
  if (!tensor) throw new Error(`the SPLADE objective encodes its queries: ${name} is needed`);
  return tensor;
}
