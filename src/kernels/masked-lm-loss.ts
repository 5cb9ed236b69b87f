// Masked-LM cross-entropy and its gradient on the GPU (shaders/masked_lm_loss.wgsl and the matmul kernels): the
// labelled rows gathered, the vocabulary walked in chunks whose logits only those rows get (an online log-sum-exp
// across chunks and row parts), never B x T x V; gradients added into the hidden states, decoder rows and biases.
import { f32Bits, grid1d, type GpuContext } from '../gpu/context.ts';
import { rowPartsOf, type RowParted } from '../gpu/row-parts.ts';
import { Tensor } from '../gpu/tensor.ts';
import source from '../../shaders/masked_lm_loss.wgsl?raw';
import { dispatchFlopsBudget } from './dispatch-budget.ts';
import { Matmul } from './matmul.ts';
import { expectTensor } from './shape-check.ts';

const FAMILY = 'masked_lm_loss';
const WORKGROUP = 64;
/** Widest decoder row the loss takes (ModernBERT-large's 1024). */
export const MASKED_LM_MAX_WIDTH = 1024;
const STATS = 4;
/** Rows of the gathered block come in multiples of this (one set of matmuls per multiple used). */
const ROW_STEP = 64;
/** Bytes of one chunk's logits (Mb x C) at most, and its columns at most. */
const CHUNK_BYTES = 32 * 2 ** 20;
const MAX_CHUNK_COLUMNS = 8192;

const spec = (entryPoint: string) => ({ family: FAMILY, source, entryPoint, constants: { WORKGROUP } });
const COMPACT = spec('mlm_compact');
const GATHER = spec('mlm_gather');
const SCATTER = spec('mlm_scatter');
const STATS_PASS = spec('mlm_chunk_stats');
const GRADIENT = spec('mlm_chunk_gradient');
const DBIAS = spec('mlm_chunk_dbias');
const LOSS = spec('mlm_loss');

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
  /** Most FLOPs one matmul dispatch may do (the matmuls split past it). Default: dispatchFlopsBudget(ctx). */
  maxDispatchFlops: number;
  /** Columns of a vocabulary chunk at most (default: as many as 32 MiB of logits hold for B·T rows, at most 8192). */
  chunkColumns: number;
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
  /**
   * How many labels the batch has at most, when the caller knows (the host made the labels): the gathered block is
   * sized to it instead of B·T, which saves the matmuls' work on rows that would be zeros. More labels than this is an
   * error the GPU cannot report: give the exact count or omit it.
   */
  predicted?: number;
}

/** One chunk of the vocabulary: ids [v0, v0 + columns) in part `part`, rows [r0, r0 + columns) of it. */
interface Chunk {
  part: number;
  r0: number;
  v0: number;
  columns: number;
}

/** What a block of Mb rows needs: a uniform per chunk, and the matmuls for each chunk width. */
interface RowPlan {
  rows: number;
  /** Views of the scratch at this size: the gathered rows and their gradient, a chunk's logits per width. */
  block: Tensor;
  dblock: Tensor;
  logits: Map<number, Tensor>;
  uniforms: GPUBuffer[];
  batchUniform: GPUBuffer;
  logitsProduct: Map<number, Matmul>;
  dblockProduct: Map<number, Matmul>;
  dweightProduct: Map<number, Matmul>;
}

/** The same buffer seen with another (smaller) shape: what a kernel reads of it. */
function view(tensor: Tensor, shape: number[]): Tensor {
  return new Tensor(tensor.buffer, shape, 'f32', tensor.label);
}

export class MaskedLmLoss {
  private readonly parts: readonly { row0: number; rows: number }[];
  private readonly chunks: Chunk[];
  private readonly columns: number;
  private readonly budget: number;
  private readonly plans = new Map<number, RowPlan>();
  private scale = 1;
  private readonly rowsOut: Tensor<'u32'>; // (B·T, 2): (position, label) of the labelled positions, in order, first
  /** [0] predicted positions, [1] right predictions (highest logit = label). */
  private readonly counts: Tensor<'u32'>;
  private readonly stats: Tensor<'f32'>;
  private readonly bestIds: Tensor<'u32'>;
  /** [0] mean largest logit over the predicted positions. */
  private readonly measures: Tensor<'f32'>;
  private readonly block: Tensor<'f32'>; // (B·T, d): the gathered rows
  private readonly dblock: Tensor<'f32'>; // (B·T, d)
  private readonly logits: Tensor<'f32'>; // (B·T, C): a chunk's logits, then their gradient
  private readonly weightChunk: Tensor<'f32'>; // (C, d): the chunk's decoder rows
  private readonly dweightChunk: Tensor<'f32'>; // (C, d)
  /** Views of the chunk rows and their gradient per chunk width. */
  private readonly rowViews = new Map<number, { rows: Tensor; drows: Tensor }>();

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
    if (d > MASKED_LM_MAX_WIDTH) throw new Error(`${FAMILY}: rows of width ${d} are over the ${MASKED_LM_MAX_WIDTH} it takes`);
    if (!Number.isInteger(slot) || slot < 0) throw new Error(`${FAMILY}: slot must be a non-negative integer, got ${slot}`);
    this.parts = dims.parts ?? [{ row0: 0, rows: V }];
    let next = 0;
    for (const part of this.parts) {
      if (part.row0 !== next || !Number.isInteger(part.rows) || part.rows < 1)
        throw new Error(`${FAMILY}: weight part ${part.row0}+${part.rows} does not continue the rows at ${next}`);
      next += part.rows;
    }
    if (next !== V) throw new Error(`${FAMILY}: weight parts hold ${next} rows, expected V = ${V}`);
    const N = B * T;
    if (N * d >= 2 ** 32) throw new Error(`${FAMILY}: B=${B} T=${T} d=${d} overflows 32-bit indices`);
    this.budget = tuning.maxDispatchFlops ?? dispatchFlopsBudget(ctx);
    const binding = Math.min(ctx.limits.maxStorageBufferBindingSize, ctx.limits.maxBufferSize, CHUNK_BYTES);
    this.columns = Math.max(1, Math.min(tuning.chunkColumns ?? MAX_CHUNK_COLUMNS, Math.floor(binding / (4 * N)), V));
    this.chunks = this.parts.flatMap((part, k) => {
      const list: Chunk[] = [];
      for (let r0 = 0; r0 < part.rows; r0 += this.columns)
        list.push({ part: k, r0, v0: part.row0 + r0, columns: Math.min(this.columns, part.rows - r0) });
      return list;
    });
    this.rowsOut = ctx.tensor(`${FAMILY} labelled rows`, [N, 2], 'u32');
    this.counts = ctx.tensor(`${FAMILY} counts`, [2], 'u32');
    this.stats = ctx.tensor(`${FAMILY} statistics`, [N, STATS], 'f32');
    this.bestIds = ctx.tensor(`${FAMILY} best ids`, [N], 'u32');
    this.measures = ctx.tensor(`${FAMILY} measures`, [1], 'f32');
    this.block = ctx.tensor(`${FAMILY} gathered rows`, [N, d], 'f32');
    this.dblock = ctx.tensor(`${FAMILY} gathered gradient`, [N, d], 'f32');
    this.logits = ctx.tensor(`${FAMILY} chunk logits`, [N, this.columns], 'f32');
    this.weightChunk = ctx.tensor(`${FAMILY} chunk rows`, [this.columns, d], 'f32');
    this.dweightChunk = ctx.tensor(`${FAMILY} chunk row gradient`, [this.columns, d], 'f32');
    for (const { columns } of this.chunks)
      this.rowViews.set(columns, { rows: view(this.weightChunk, [columns, d]), drows: view(this.dweightChunk, [columns, d]) });
    this.planFor(N);
  }

  /** Vocabulary chunks a forward walks (over every part). */
  get chunkCount(): number {
    return this.chunks.length;
  }

  /** The weight of this loss in the total: applied to the gradients, not to the reported value. */
  setScale(scale: number): void {
    this.scale = scale;
    for (const plan of this.plans.values()) this.writeUniforms(plan);
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
    if (args.losses.dtype !== 'f32' || args.losses.size <= this.slot)
      throw new Error(`${FAMILY}: losses ${args.losses} has no slot ${this.slot}`);
    if (!args.dweight !== !args.dbias) throw new Error(`${FAMILY}: give dweight and dbias together (the decoder trains or not)`);
    const weights = rowPartsOf(args.weight, V, d, `${FAMILY} weight`);
    const dweights = args.dweight ? rowPartsOf(args.dweight, V, d, `${FAMILY} dweight`) : null;
    const sameParts = (list: readonly { row0: number }[]) =>
      list.length === this.parts.length && list.every((w, k) => w.row0 === this.parts[k].row0);
    if (!sameParts(weights) || (dweights && !sameParts(dweights)))
      throw new Error(`${FAMILY}: the decoder's row parts differ from the ${this.parts.length} this loss was built for`);
    const predicted = args.predicted ?? N;
    if (!Number.isInteger(predicted) || predicted < 0 || predicted > N)
      throw new Error(`${FAMILY}: predicted must be a count from 0 to B·T = ${N}, got ${predicted}`);
    const plan = this.planFor(Math.min(N, Math.max(ROW_STEP, Math.ceil(predicted / ROW_STEP) * ROW_STEP)));
    const Mb = plan.rows;
    const max = this.ctx.limits.maxComputeWorkgroupsPerDimension;
    const { ctx, rowsOut, counts, stats, bestIds } = this;
    const { block, dblock } = plan;
    ctx.dispatch(encoder, COMPACT, [plan.batchUniform, args.labels, rowsOut, counts], [1], shapes);
    ctx.dispatch(
      encoder,
      GATHER,
      [plan.batchUniform, rowsOut, counts, args.hidden, block],
      grid1d(Mb * d, WORKGROUP, max),
      shapes,
    );
    const copyRows = (from: Tensor, fromRow: number, to: Tensor, toRow: number, rows: number) =>
      ctx.copy(encoder, from.buffer, fromRow * d * 4, to.buffer, toRow * d * 4, rows * d * 4);
    const chunkLogits = (chunk: Chunk) => {
      const logits = plan.logits.get(chunk.columns)!;
      const { rows, drows } = this.rowViews.get(chunk.columns)!;
      copyRows(weights[chunk.part].tensor, chunk.r0, rows, 0, chunk.columns);
      plan.logitsProduct.get(chunk.columns)!.record(encoder, { a: block, b: rows, out: logits });
      return { logits, rows, drows };
    };
    this.chunks.forEach((chunk, c) => {
      const { logits } = chunkLogits(chunk);
      const bindings = [plan.uniforms[c], rowsOut, counts, args.bias, stats, bestIds, logits];
      ctx.dispatch(encoder, STATS_PASS, bindings, grid1d(Mb, WORKGROUP, max), shapes);
    });
    const lossBindings = [plan.batchUniform, rowsOut, counts, stats, bestIds, args.losses, this.measures];
    ctx.dispatch(encoder, LOSS, lossBindings, [1], shapes);
    if (!args.dhidden && !dweights) return;
    if (args.dhidden) ctx.clear(encoder, this.dblock);
    this.chunks.forEach((chunk, c) => {
      const { logits, rows, drows } = chunkLogits(chunk);
      const uniform = plan.uniforms[c];
      const gradient = [uniform, rowsOut, counts, args.bias, stats, null, logits];
      ctx.dispatch(encoder, GRADIENT, gradient, grid1d(Mb * chunk.columns, WORKGROUP, max), shapes);
      if (args.dhidden) plan.dblockProduct.get(chunk.columns)!.record(encoder, { a: logits, b: rows, out: dblock });
      if (dweights && args.dbias) {
        ctx.dispatch(encoder, DBIAS, [uniform, counts, logits, args.dbias], grid1d(chunk.columns, WORKGROUP, max), shapes);
        copyRows(dweights[chunk.part].tensor, chunk.r0, drows, 0, chunk.columns);
        plan.dweightProduct.get(chunk.columns)!.record(encoder, { a: logits, b: block, out: drows });
        copyRows(drows, 0, dweights[chunk.part].tensor, chunk.r0, chunk.columns);
      }
    });
    if (args.dhidden) {
      const scatter = [plan.batchUniform, rowsOut, counts, dblock, args.dhidden];
      ctx.dispatch(encoder, SCATTER, scatter, grid1d(Mb * d, WORKGROUP, max), shapes);
    }
  }

  /** Predicted positions, right predictions and the mean largest logit of the last forward. */
  async readCounts(): Promise<{ predicted: number; correct: number; meanLargestLogit: number }> {
    return this.countsFrom(await this.ctx.readAll<'u32' | 'f32'>(this.reportTensors));
  }

  /** The tensors readCounts reads, for a caller that reads them with its own in one readback (`ctx.readAll`). */
  get reportTensors(): readonly Tensor<'u32' | 'f32'>[] {
    return [this.counts, this.measures];
  }

  /** readCounts' values from copies of `reportTensors`, in their order. */
  countsFrom([counts, measures]: readonly ArrayLike<number>[]): { predicted: number; correct: number; meanLargestLogit: number } {
    return { predicted: counts[0], correct: counts[1], meanLargestLogit: measures[0] };
  }

  /** The uniforms and matmuls of a gathered block of `rows` rows (made once per size used). */
  private planFor(rows: number): RowPlan {
    let plan = this.plans.get(rows);
    if (plan) return plan;
    const { d } = this.dims;
    const widths = [...new Set(this.chunks.map((c) => c.columns))];
    const options = { maxDispatchFlops: this.budget };
    const matmuls = (shape: (C: number) => ConstructorParameters<typeof Matmul>[1]) =>
      new Map(widths.map((C) => [C, new Matmul(this.ctx, shape(C), { ...options, label: `${FAMILY} Mb=${rows} C=${C}` })]));
    plan = {
      rows,
      block: view(this.block, [rows, d]),
      dblock: view(this.dblock, [rows, d]),
      logits: new Map(widths.map((C) => [C, view(this.logits, [rows, C])])),
      uniforms: this.chunks.map((c) => this.ctx.uniform(`${FAMILY} Mb=${rows} ids ${c.v0}+${c.columns}`, 8)),
      batchUniform: this.ctx.uniform(`${FAMILY} Mb=${rows}`, 8),
      logitsProduct: matmuls((C) => ({ M: rows, N: C, K: d, layout: 'nt' })),
      dblockProduct: matmuls((C) => ({ M: rows, N: d, K: C, layout: 'nn', accumulate: true })),
      dweightProduct: matmuls((C) => ({ M: C, N: d, K: rows, layout: 'tn', accumulate: true })),
    };
    this.writeUniforms(plan);
    this.plans.set(rows, plan);
    return plan;
  }

  private writeUniforms(plan: RowPlan): void {
    const { B, T, d, V } = this.dims;
    const words = (columns: number, v0: number, first: number) => [
      plan.rows,
      d,
      columns,
      v0,
      first,
      this.slot,
      f32Bits(this.scale),
      B * T,
    ];
    this.chunks.forEach((c, k) => this.ctx.writeUniform(plan.uniforms[k], words(c.columns, c.v0, k === 0 ? 1 : 0)));
    this.ctx.writeUniform(plan.batchUniform, words(V, 0, 1));
  }
}
