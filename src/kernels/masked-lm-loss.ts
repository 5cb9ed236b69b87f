// Masked-LM cross-entropy and its gradient on the GPU (shaders/masked_lm_loss.wgsl): logits only where a label is set,
// an online log-sum-exp over the vocabulary in its row parts, never B x T x V; gradients added into hidden and decoder.
import { f32Bits, grid1d, type GpuContext } from '../gpu/context.ts';
import { rowPartsOf, type RowParted } from '../gpu/row-parts.ts';
import type { Tensor } from '../gpu/tensor.ts';
import source from '../../shaders/masked_lm_loss.wgsl?raw';
import { dispatchFlopsBudget } from './dispatch-budget.ts';
import { expectTensor } from './shape-check.ts';

const FAMILY = 'masked_lm_loss';
/** Fixed: the shader's per-lane accumulators hold MAX_D / WORKGROUP components. */
const WORKGROUP = 64;
/** Widest decoder row the shader caches (MAX_D). */
export const MASKED_LM_MAX_WIDTH = 1024;
const STATS = 4;

const spec = (entryPoint: string) => ({ family: FAMILY, source, entryPoint, constants: { WORKGROUP } });
const COMPACT = spec('mlm_compact');
const FORWARD = spec('mlm_forward');
const LOSS = spec('mlm_loss');
const DHIDDEN = spec('mlm_dhidden');
const DWEIGHT = spec('mlm_dweight');

export interface MaskedLmLossDims {
  B: number;
  T: number;
  /** Width of the hidden states and decoder rows (ALBERT: its embedding size). */
  d: number;
  V: number;
  /** Row ranges of a decoder held in parts (GpuModel.decoderParts); default: one, the whole matrix. */
  parts?: readonly { row0: number; rows: number }[];
}

export interface MaskedLmLossTuning {
  /**
   * Most FLOPs one dispatch may do (forward 2·rows·d per position, dhidden 4·rows·d per position, dweight 4·B·T·d per
   * row): past it a pass is split into pieces of positions or rows, each bit-identical to the whole. Default:
   * dispatchFlopsBudget(ctx).
   */
  maxDispatchFlops: number;
}

/** One dispatch of a pass over part `part`: its items (predicted positions, or the part's rows) [item0, item0 + items). */
interface Piece {
  part: number;
  item0: number;
  items: number;
  uniform: GPUBuffer;
}

export interface MaskedLmLossArgs {
  hidden: Tensor; // (B, T, d) f32: the MLM head transform's output
  labels: Tensor; // (B, T) i32: the id to predict, -100 where none
  weight: RowParted; // (V, d) f32, whole or in the dims' row parts
  bias: Tensor; // (V) f32
  losses: Tensor; // f32: the mean loss goes in slot `slot`
  /** (B, T, d), accumulated into; omit for a frozen encoder. */
  dhidden?: Tensor;
  /** (V, d) in the weight's parts and (V), accumulated into; omit both for a frozen decoder. */
  dweight?: RowParted;
  dbias?: Tensor;
}

/**
 * The masked-LM loss for one (B, T, d, V) and decoder row parts, built once: it owns its uniforms and scratch (the
 * compacted positions, their running statistics). Gradients are added (zeroing them is the caller's step); the loss
 * slot is overwritten.
 */
export class MaskedLmLoss {
  private readonly parts: readonly { row0: number; rows: number }[];
  /** The compaction and the loss (the whole batch, one workgroup each). */
  private readonly batchParams: GPUBuffer;
  /** The forward, dhidden and dweight passes' dispatches (one per part unless the work budget splits them). */
  private readonly forwardPieces: Piece[];
  private readonly dhiddenPieces: Piece[];
  private readonly dweightPieces: Piece[];
  private readonly targets: Tensor<'u32'>; // (B·T, 2): (position, label) of the labelled positions, in order, first
  /** [0] predicted positions, [1] right predictions (highest logit = label). */
  private readonly counts: Tensor<'u32'>;
  private readonly stats: Tensor<'f32'>; // (B·T, STATS): running max, sum, label logit, best logit per predicted position
  private readonly bestIds: Tensor<'u32'>; // (B·T): id of the best logit per predicted position
  /** [0] mean largest logit over the predicted positions. */
  private readonly measures: Tensor<'f32'>;

  constructor(
    private readonly ctx: GpuContext,
    readonly dims: MaskedLmLossDims,
    readonly slot: number,
    tuning: Partial<MaskedLmLossTuning> = {},
  ) {
    const { B, T, d, V } = dims;
    for (const [name, n] of Object.entries({ B, T, d, V })) {
      if (!Number.isInteger(n) || n < 1) throw new Error(`${FAMILY}: ${name} must be a positive integer, got ${n}`);
    }
    if (!Number.isInteger(slot) || slot < 0) throw new Error(`${FAMILY}: slot must be a non-negative integer, got ${slot}`);
    if (d > MASKED_LM_MAX_WIDTH)
      throw new Error(`${FAMILY}: rows of width ${d} are over the ${MASKED_LM_MAX_WIDTH} the kernel caches`);
    if (B * T * d >= 2 ** 32 || V * d >= 2 ** 32)
      throw new Error(`${FAMILY}: B=${B} T=${T} d=${d} V=${V} overflows 32-bit indices`);
    this.parts = dims.parts ?? [{ row0: 0, rows: V }];
    let next = 0;
    for (const part of this.parts) {
      if (part.row0 !== next || !Number.isInteger(part.rows) || part.rows < 1)
        throw new Error(`${FAMILY}: weight part ${part.row0}+${part.rows} does not continue the rows at ${next}`);
      next += part.rows;
    }
    if (next !== V) throw new Error(`${FAMILY}: weight parts hold ${next} rows, expected V = ${V}`);
    ctx.checkBindingSize(`${FAMILY} hidden [${B}x${T}x${d}]`, B * T * d * 4);
    for (const part of this.parts)
      ctx.checkBindingSize(`${FAMILY} weight rows ${part.row0}+${part.rows} [${part.rows}x${d}]`, part.rows * d * 4);
    const N = B * T;
    const budget = tuning.maxDispatchFlops ?? dispatchFlopsBudget(ctx);
    this.batchParams = ctx.uniform(`${FAMILY} B${B} T${T}`, 8);
    this.forwardPieces = this.plan(
      'forward',
      budget,
      () => N,
      (rows) => 2 * rows * d,
    );
    this.dhiddenPieces = this.plan(
      'dhidden',
      budget,
      () => N,
      (rows) => 4 * rows * d,
    );
    this.dweightPieces = this.plan(
      'dweight',
      budget,
      (rows) => rows,
      () => 4 * N * d,
    );
    this.targets = ctx.tensor(`${FAMILY} targets`, [N, 2], 'u32');
    this.counts = ctx.tensor(`${FAMILY} counts`, [2], 'u32');
    this.stats = ctx.tensor(`${FAMILY} statistics`, [N, STATS], 'f32');
    this.bestIds = ctx.tensor(`${FAMILY} best ids`, [N], 'u32');
    this.measures = ctx.tensor(`${FAMILY} measures`, [1], 'f32');
    this.setScale(1);
  }

  /** FLOPs of the largest dispatch (at most the budget unless one position or row alone is over it). */
  get largestDispatchFlops(): number {
    const { T, d } = this.dims;
    const N = this.dims.B * T;
    const rows = (p: Piece) => this.parts[p.part].rows;
    return Math.max(
      ...this.forwardPieces.map((p) => 2 * p.items * rows(p) * d),
      ...this.dhiddenPieces.map((p) => 4 * p.items * rows(p) * d),
      ...this.dweightPieces.map((p) => 4 * p.items * N * d),
    );
  }

  /** Dispatches per forwardBackward with every gradient: compaction, forward pieces, loss, dhidden and dweight pieces. */
  get dispatches(): number {
    return 2 + this.forwardPieces.length + this.dhiddenPieces.length + this.dweightPieces.length;
  }

  /**
   * Pieces of one pass per part, each within `budget`: items (positions, or the part's rows) of `flopsPerItem` each,
   * whole items, at least one per piece.
   */
  private plan(pass: string, budget: number, itemsOf: (rows: number) => number, flopsPerItem: (rows: number) => number): Piece[] {
    const pieces: Piece[] = [];
    this.parts.forEach((p, part) => {
      const items = itemsOf(p.rows);
      const step = Math.max(1, Math.min(items, Math.floor(budget / flopsPerItem(p.rows))));
      for (let item0 = 0; item0 < items; item0 += step) {
        const uniform = this.ctx.uniform(`${FAMILY} ${pass} part ${p.row0}+${p.rows} items ${item0}`, 8);
        pieces.push({ part, item0, items: Math.min(step, items - item0), uniform });
      }
    });
    return pieces;
  }

  /** The weight of this loss in the total: applied to the gradients, not to the reported value. */
  setScale(scale: number): void {
    const { B, T, d, V } = this.dims;
    const words = (row0: number, rows: number, first: number, item0: number) => [
      B * T,
      d,
      row0,
      rows,
      first,
      this.slot,
      f32Bits(scale),
      item0,
    ];
    for (const piece of [...this.forwardPieces, ...this.dhiddenPieces, ...this.dweightPieces]) {
      const { row0, rows } = this.parts[piece.part];
      this.ctx.writeUniform(piece.uniform, words(row0, rows, piece.part === 0 ? 1 : 0, piece.item0));
    }
    this.ctx.writeUniform(this.batchParams, words(0, V, 1, 0));
  }

  /** losses[slot] = mean cross-entropy over the labelled positions (0 when none); gradients added where given. */
  forwardBackward(encoder: GPUCommandEncoder, args: MaskedLmLossArgs): void {
    const { B, T, d, V } = this.dims;
    const shapes = `B=${B} T=${T} d=${d} V=${V}`;
    expectTensor(FAMILY, 'hidden', args.hidden, [B, T, d]);
    expectTensor(FAMILY, 'labels', args.labels, [B, T], 'i32');
    expectTensor(FAMILY, 'bias', args.bias, [V]);
    if (args.dhidden) expectTensor(FAMILY, 'dhidden', args.dhidden, [B, T, d]);
    if (args.dbias) expectTensor(FAMILY, 'dbias', args.dbias, [V]);
    if (args.losses.size <= this.slot) throw new Error(`${FAMILY}: losses ${args.losses} has no slot ${this.slot}`);
    if (!args.dweight !== !args.dbias) throw new Error(`${FAMILY}: give dweight and dbias together (the decoder trains or not)`);
    const weights = rowPartsOf(args.weight, V, d, `${FAMILY} weight`);
    const dweights = args.dweight ? rowPartsOf(args.dweight, V, d, `${FAMILY} dweight`) : null;
    for (const parted of dweights ? [weights, dweights] : [weights]) {
      if (parted.length !== this.parts.length || parted.some((w, k) => w.row0 !== this.parts[k].row0))
        throw new Error(`${FAMILY}: the decoder's row parts differ from the ${this.parts.length} this loss was built for`);
    }
    const max = this.ctx.limits.maxComputeWorkgroupsPerDimension;
    const { ctx, targets, counts, stats, bestIds } = this;
    const common = (p: Piece) => [p.uniform, args.hidden, weights[p.part].tensor, args.bias, targets, counts, stats];
    ctx.dispatch(encoder, COMPACT, [this.batchParams, args.labels, targets, counts], [1], shapes);
    for (const p of this.forwardPieces) ctx.dispatch(encoder, FORWARD, [...common(p), bestIds], grid1d(p.items, 1, max), shapes);
    const totals = [this.batchParams, targets, counts, stats, args.losses, this.measures, bestIds];
    ctx.dispatch(encoder, LOSS, totals, [1], shapes);
    if (args.dhidden) {
      for (const p of this.dhiddenPieces)
        ctx.dispatch(encoder, DHIDDEN, [...common(p), args.dhidden], grid1d(p.items, 1, max), shapes);
    }
    if (dweights && args.dbias) {
      for (const p of this.dweightPieces) {
        const bindings = [...common(p), dweights[p.part].tensor, args.dbias];
        ctx.dispatch(encoder, DWEIGHT, bindings, grid1d(p.items, 1, max), shapes);
      }
    }
  }

  /** Predicted positions, right predictions and the mean largest logit of the last forward (one small readback). */
  async readCounts(): Promise<{ predicted: number; correct: number; meanLargestLogit: number }> {
    const [predicted, correct] = await this.ctx.read(this.counts);
    const [meanLargestLogit] = await this.ctx.read(this.measures);
    return { predicted, correct, meanLargestLogit };
  }
}
