// Typed wrapper of shaders/embedding.wgsl: table lookups (word, position, token type) and their gather backward.
import source from '../../shaders/embedding.wgsl?raw';
import type { GpuContext, KernelSpec } from '../gpu/context.ts';
import { rowPartsOf, type RowPart, type RowParted } from '../gpu/row-parts.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { checkDims, expectDistinct, expectOperand, grid } from './layer-common.ts';

const FAMILY = 'embedding';
const WORKGROUP = 256;
/** Plan entries past the number of distinct rows. */
export const NO_ROW = 0xffffffff;

/** The host-side gather plan of one id array: rows that occur, and the positions of each, in ascending order. */
export interface GatherPlanArrays {
  ids: Uint32Array; // (N)
  rows: Uint32Array; // (N): distinct rows in ascending order, then NO_ROW
  offsets: Uint32Array; // (N + 1): positions of rows[u] are positions[offsets[u] .. offsets[u + 1])
  positions: Uint32Array; // (N): flat positions grouped by row
}

/**
 * Sorts N ids into a gather plan (a counting sort by row, stable, so each row's positions ascend). Positions holding
 * `paddingIdx` are left out, as torch's nn.Embedding(padding_idx) gives that row no gradient; -1 keeps every row.
 * Throws a RangeError naming the position of an id outside [0, tableRows).
 */
export function buildGatherPlan(ids: ArrayLike<number>, tableRows: number, paddingIdx = -1): GatherPlanArrays {
  const N = ids.length;
  const counts = new Uint32Array(tableRows + 1);
  for (let n = 0; n < N; n++) {
    const id = ids[n];
    if (!(Number.isInteger(id) && id >= 0 && id < tableRows)) {
      throw new RangeError(`embedding: id ${id} at flat position ${n} is outside the table of ${tableRows} rows`);
    }
    if (id !== paddingIdx) counts[id + 1]++;
  }
  for (let r = 0; r < tableRows; r++) counts[r + 1] += counts[r]; // counts[r] = first slot of row r
  const positions = new Uint32Array(N);
  const next = counts.slice(0, tableRows);
  for (let n = 0; n < N; n++) if (ids[n] !== paddingIdx) positions[next[ids[n]]++] = n;
  const rows = new Uint32Array(N).fill(NO_ROW);
  const offsets = new Uint32Array(N + 1);
  let u = 0;
  for (let r = 0; r < tableRows; r++) {
    if (counts[r + 1] === counts[r]) continue;
    rows[u] = r;
    offsets[u] = counts[r];
    u++;
  }
  offsets.fill(counts[tableRows], u); // empty ranges for the NO_ROW entries
  return { ids: Uint32Array.from(ids), rows, offsets, positions };
}

/**
 * One id array on the GPU with its gather plan, allocated once per (N, table) input slot (word ids of the queries,
 * of the documents, position ids, ...). `set` uploads new ids at queue time, so every batch recorded into the same
 * command encoder needs its own plan.
 */
export class EmbeddingGatherPlan {
  readonly ids: Tensor<'u32'>; // (N)
  readonly rows: Tensor<'u32'>; // (N)
  readonly offsets: Tensor<'u32'>; // (N + 1)
  readonly positions: Tensor<'u32'>; // (N)

  constructor(
    private readonly ctx: GpuContext,
    readonly N: number,
    readonly tableRows: number,
    readonly paddingIdx = -1,
    label = 'embedding plan',
  ) {
    checkDims(FAMILY, { N, tableRows });
    this.ids = ctx.tensor(`${label} ids`, [N], 'u32');
    this.rows = ctx.tensor(`${label} rows`, [N], 'u32');
    this.offsets = ctx.tensor(`${label} offsets`, [N + 1], 'u32');
    this.positions = ctx.tensor(`${label} positions`, [N], 'u32');
  }

  /** Uploads N ids (flat (B, T)) and their plan; validates every id against the table. */
  set(ids: ArrayLike<number>): void {
    if (ids.length !== this.N) throw new Error(`embedding plan: got ${ids.length} ids, expected ${this.N}`);
    const plan = buildGatherPlan(ids, this.tableRows, this.paddingIdx);
    this.ctx.upload(this.ids, plan.ids);
    this.ctx.upload(this.rows, plan.rows);
    this.ctx.upload(this.offsets, plan.offsets);
    this.ctx.upload(this.positions, plan.positions);
  }
}

export interface EmbeddingDims {
  /** looked-up positions (B·T) */
  N: number;
  /** row width (hidden d) */
  d: number;
  /** table rows (V, max positions or token types) */
  rows: number;
  /** Row ranges of a table held in parts (planRowParts); default: one, the whole table. */
  parts?: readonly { row0: number; rows: number }[];
}

export interface EmbeddingForwardArgs {
  /** (N, d): overwritten, or added into with `accumulate` (a position or token-type table after the word table) */
  out: Tensor;
  table: RowParted; // (rows, d), whole or in row parts
  ids: Tensor; // (N) u32 or i32
  accumulate?: boolean;
}

export interface EmbeddingBackwardArgs {
  dtable: RowParted; // (rows, d), accumulated into; whole or in row parts
  dout: Tensor; // (N, d)
  plan: EmbeddingGatherPlan; // the ids forward looked up, sorted by row
}

/**
 * Lookups into one (rows, d) table for N positions. forward overwrites out, or adds into it (`accumulate`: a position
 * or token-type table after the word table). backward ADDS into dtable, so the word-embedding gradient can also
 * collect the tied decoder's; zeroing it is the caller's step. No dropout.
 */
export class Embedding {
  readonly label: string;
  /** One uniform per row part (key: its first row): sizes, first row, row count. */
  private readonly partParams = new Map<number, GPUBuffer>();

  constructor(
    private readonly ctx: GpuContext,
    readonly dims: EmbeddingDims,
    label?: string,
  ) {
    const { N, d, rows } = dims;
    checkDims(FAMILY, { N, d, rows });
    this.label = label ?? `embedding N${N} d${d} rows${rows}`;
    for (const part of dims.parts ?? [{ row0: 0, rows }]) {
      const buffer = ctx.uniform(`${this.label} params rows ${part.row0}+${part.rows}`, 8);
      ctx.writeUniform(buffer, [N, d, rows, part.row0, part.rows, 0, 0, 0]);
      this.partParams.set(part.row0, buffer);
    }
  }

  /**
   * out (N, d) (+)= table (rows, d)[ids (N)]; ids u32 or i32, validated on the host (EmbeddingGatherPlan.set). A
   * table in row parts is read one part per dispatch, the first overwriting `out` unless `accumulate`.
   */
  forward(encoder: GPUCommandEncoder, { out, table, ids, accumulate = false }: EmbeddingForwardArgs): void {
    const { N, d, rows } = this.dims;
    expectOperand(this.label, 'out', out, [N, d]);
    expectOperand(this.label, 'ids', ids, [N], ['u32', 'i32']);
    rowPartsOf(table, rows, d, `${this.label} table`).forEach((part, k) => {
      expectDistinct(this.label, out, part.tensor);
      const bindings = [this.params(part), ids, part.tensor, out];
      this.ctx.dispatch(
        encoder,
        this.spec('embedding_forward', accumulate || k > 0),
        bindings,
        grid(this.ctx, N * d, WORKGROUP),
        this.label,
      );
    });
  }

  /** dtable (rows, d) += Σ over the positions of each row of dout (N, d), gathered by `plan` in a fixed order. */
  backward(encoder: GPUCommandEncoder, { dtable, dout, plan }: EmbeddingBackwardArgs): void {
    const { N, d, rows } = this.dims;
    expectOperand(this.label, 'dout', dout, [N, d]);
    if (plan.N !== N || plan.tableRows !== rows) {
      throw new Error(`${this.label}: plan is for N=${plan.N} rows=${plan.tableRows}, expected N=${N} rows=${rows}`);
    }
    for (const part of rowPartsOf(dtable, rows, d, `${this.label} dtable`)) {
      expectDistinct(this.label, part.tensor, dout);
      const bindings = [this.params(part), null, null, null, plan.rows, plan.offsets, plan.positions, dout, part.tensor];
      this.ctx.dispatch(encoder, this.spec('embedding_backward'), bindings, grid(this.ctx, N * d, WORKGROUP), this.label);
    }
  }

  /** The uniform of a part, which must be one of the row ranges this kernel was built for. */
  private params(part: RowPart): GPUBuffer {
    const buffer = this.partParams.get(part.row0);
    const planned = (this.dims.parts ?? [{ row0: 0, rows: this.dims.rows }]).find((p) => p.row0 === part.row0);
    if (!buffer || planned?.rows !== part.tensor.shape[0]) {
      throw new Error(
        `${this.label}: a part of ${part.tensor.shape[0]} rows at row ${part.row0} is not one this kernel was built for`,
      );
    }
    return buffer;
  }

  private spec(entryPoint: string, accumulate = false): KernelSpec {
    return { family: FAMILY, source, entryPoint, constants: { WORKGROUP, ACCUMULATE: Number(accumulate) } };
  }
}
