// Masked-LM cross-entropy and its gradient on the GPU (shaders/masked_lm_loss.wgsl): logits only where a label is set,
// an online log-sum-exp over the vocabulary in its row parts, never B x T x V; gradients added into hidden and decoder.
import { f32Bits, grid1d, type GpuContext } from '../gpu/context.ts';
import { rowPartsOf, type RowParted } from '../gpu/row-parts.ts';
import type { Tensor } from '../gpu/tensor.ts';
import source from '../../shaders/masked_lm_loss.wgsl?raw';
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

export class MaskedLmLoss {
  private readonly parts: readonly { row0: number; rows: number }[];
  /** One uniform per part (its rows, whether it starts the running statistics), and one for the whole-batch passes. */
  private readonly partParams: GPUBuffer[];
  private readonly batchParams: GPUBuffer;
  private readonly positions: Tensor<'u32'>;
  /** [0] predicted positions, [1] right predictions (highest logit = label). */
  private readonly counts: Tensor<'u32'>;
  private readonly stats: Tensor<'f32'>;
  private readonly bestIds: Tensor<'u32'>;
  /** [0] mean largest logit over the predicted positions. */
  private readonly measures: Tensor<'f32'>;

  constructor(
    private readonly ctx: GpuContext,
    readonly dims: MaskedLmLossDims,
    readonly slot: number,
  ) {
    const { B, T, d, V } = dims;
    for (const [name, n] of Object.entries({ B, T, d, V })) {
      if (!Number.isInteger(n) || n < 1) throw new Error(`${FAMILY}: ${name} must be a positive integer, got ${n}`);
    }
    if (d > MASKED_LM_MAX_WIDTH)
      throw new Error(`${FAMILY}: rows of width ${d} are over the ${MASKED_LM_MAX_WIDTH} the kernel caches`);
    if (B * T * d >= 2 ** 32 || V * d >= 2 ** 32)
      throw new Error(`${FAMILY}: B=${B} T=${T} d=${d} V=${V} overflows 32-bit indices`);
    this.parts = dims.parts ?? [{ row0: 0, rows: V }];
    const N = B * T;
    this.partParams = this.parts.map((p) => ctx.uniform(`${FAMILY} part ${p.row0}+${p.rows}`, 8));
    this.batchParams = ctx.uniform(`${FAMILY} B${B} T${T}`, 8);
    this.positions = ctx.tensor(`${FAMILY} positions`, [N], 'u32');
    this.counts = ctx.tensor(`${FAMILY} counts`, [2], 'u32');
    this.stats = ctx.tensor(`${FAMILY} statistics`, [N, STATS], 'f32');
    this.bestIds = ctx.tensor(`${FAMILY} best ids`, [N], 'u32');
    this.measures = ctx.tensor(`${FAMILY} measures`, [1], 'f32');
    this.setScale(1);
  }

  /** The weight of this loss in the total: applied to the gradients, not to the reported value. */
  setScale(scale: number): void {
    const { B, T, d, V } = this.dims;
    const words = (row0: number, rows: number, first: number) => [B * T, d, row0, rows, first, this.slot, f32Bits(scale), 0];
    this.parts.forEach((p, k) => this.ctx.writeUniform(this.partParams[k], words(p.row0, p.rows, k === 0 ? 1 : 0)));
    this.ctx.writeUniform(this.batchParams, words(0, V, 1));
  }

  /** losses[slot] = mean cross-entropy over the labelled positions (0 when none); gradients added where given. */
  forwardBackward(encoder: GPUCommandEncoder, args: MaskedLmLossArgs): void {
    const { B, T, d, V } = this.dims;
    const N = B * T;
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
    if (weights.length !== this.parts.length || weights.some((w, k) => w.row0 !== this.parts[k].row0))
      throw new Error(`${FAMILY}: the weight's row parts differ from the ${this.parts.length} this loss was built for`);
    const max = this.ctx.limits.maxComputeWorkgroupsPerDimension;
    const perPosition = grid1d(N, 1, max);
    const { ctx, positions, counts, stats, bestIds } = this;
    ctx.dispatch(encoder, COMPACT, [this.batchParams, args.labels, positions, counts], [1], shapes);
    weights.forEach((part, k) => {
      const bindings = [this.partParams[k], args.hidden, part.tensor, args.bias, args.labels, positions, counts, stats, bestIds];
      ctx.dispatch(encoder, FORWARD, bindings, perPosition, shapes);
    });
    ctx.dispatch(
      encoder,
      LOSS,
      [this.batchParams, args.labels, positions, counts, stats, args.losses, this.measures, bestIds],
      [1],
      shapes,
    );
    weights.forEach((part, k) => {
      const common = [this.partParams[k], args.hidden, part.tensor, args.bias, args.labels, positions, counts, stats];
      if (args.dhidden) ctx.dispatch(encoder, DHIDDEN, [...common, args.dhidden], perPosition, shapes);
      if (dweights && args.dbias) {
        const rows = grid1d(this.parts[k].rows, 1, max);
        ctx.dispatch(encoder, DWEIGHT, [...common, null, dweights[k].tensor, args.dbias], rows, shapes);
      }
    });
  }

  /** Predicted positions, right predictions and the mean largest logit of the last forward (one small readback). */
  async readCounts(): Promise<{ predicted: number; correct: number; meanLargestLogit: number }> {
    const [predicted, correct] = await this.ctx.read(this.counts);
    const [meanLargestLogit] = await this.ctx.read(this.measures);
    return { predicted, correct, meanLargestLogit };
  }
}
