// Fused SPLADE head on the GPU (shaders/splade_head.wgsl): pooled = max_t log(1 + ReLU(H·Wᵀ + b)) and its backward.
import type { GpuContext, KernelSpec } from '../gpu/context.ts';
import { rowPartsOf, type RowPart, type RowParted } from '../gpu/row-parts.ts';
import type { DType, Tensor } from '../gpu/tensor.ts';
import source from '../../shaders/splade_head.wgsl?raw';
import { dispatchFlopsBudget } from './dispatch-budget.ts';

/** argmax value of a (b, v) whose pooled value is 0 (no unmasked token with a positive logit). */
export const NO_TOKEN = 0xffffffff;

export interface SpladeHeadDims {
  /** sequences */
  B: number;
  /** tokens per sequence (padded length) */
  T: number;
  /** hidden size; a multiple of 4 */
  d: number;
  /** vocabulary size */
  V: number;
  /** Row ranges of a decoder held in parts (planRowParts), one binding each; default: one, the whole matrix. */
  parts?: readonly { row0: number; rows: number }[];
}

/** Workgroup sizes (WGSL override constants). */
export interface SpladeHeadTuning {
  /** forward invocations per workgroup; each owns 4 vocabulary ids */
  forwardWorkgroup: number;
  /** invocations of the per-sequence bucketing workgroup (its scratch is B x sortWorkgroup x T counters) */
  sortWorkgroup: number;
  /** invocations splitting d in the two gradient gathers */
  backwardWorkgroup: number;
  /**
   * Most FLOPs one forward dispatch may do (2·sequences·T·vocabulary ids·d): past it the forward is split into chunks
   * of sequences and vocabulary ids, each its own dispatch, so that none runs long enough to trip a GPU watchdog.
   */
  maxDispatchFlops: number;
  /**
   * registers: each invocation streams its own rows of W from storage (fast on CPU devices); tiled: the workgroup
   * stages slices of W and H in workgroup memory with coalesced loads (faster on neither a CPU device nor an H200). Default: defaultHeadVariant().
   */
  forwardVariant: SpladeHeadVariant;
}

export type SpladeHeadVariant = 'registers' | 'tiled';

/**
 * Registers on every adapter, as measured: on CPU adapters, and on an NVIDIA H200 too (docs/gpu.md's device check: the
 * fused forward at B32 T128 d768 V30522 took 36 ms with registers against 129 ms tiled).
 */
export function defaultHeadVariant(): SpladeHeadVariant {
  return 'registers';
}

const DEFAULT_TUNING: Omit<SpladeHeadTuning, 'maxDispatchFlops' | 'forwardVariant'> = {
  forwardWorkgroup: 64,
  sortWorkgroup: 64,
  backwardWorkgroup: 64,
};

/** One forward dispatch: its sequences [b0, b0 + b), vocabulary ids [v0, v0 + v) within weight part `part`, its uniform. */
interface ForwardChunk {
  b0: number;
  b: number;
  v0: number;
  v: number;
  part: number;
  uniform: GPUBuffer;
}

export interface SpladeHeadForwardArgs {
  hidden: Tensor; // (B, T, d) f32: hidden states after the MLM head transform
  weight: RowParted; // (V, d) f32: decoder matrix, whole or in the row parts the head was built for
  bias: Tensor; // (V) f32
  mask: Tensor; // (B, T) u32 or f32: a token counts when its 32-bit word is non-zero (1 / 1.0 real, 0 padding)
  pooled: Tensor; // (B, V) f32, overwritten
  argmax: Tensor; // (B, V) u32, overwritten: lowest token index reaching the max, NO_TOKEN where pooled = 0
}

export interface SpladeHeadBackwardArgs {
  hidden: Tensor; // (B, T, d) f32, as in forward
  weight: RowParted; // (V, d) f32, as in forward
  pooled: Tensor; // (B, V) f32 from forward
  argmax: Tensor; // (B, V) u32 from forward
  dpooled: Tensor; // (B, V) f32: d loss / d pooled
  /** (B, T, d) f32, accumulated into (+=); omit to skip the hidden-state gradient (frozen encoder). */
  dhidden?: Tensor;
  /** (V, d) f32 in the weight's row parts, accumulated into (+=); omit when the decoder is frozen. */
  dweight?: RowParted;
  /** (V) f32, accumulated into (+=); omit when the bias is frozen. */
  dbias?: Tensor;
}

const FAMILY = 'splade_head';

/**
 * The fused SPLADE head for one (B, T, d, V), built once: it owns its uniform and scratch buffers.
 *
 * Gradient convention (llm.c style): backward ADDS into dhidden, dweight and dbias, so gradients of several
 * calls (queries, positives, negatives; a tied embedding) sum; zeroing them is the caller's own step
 * (`ctx.clear(encoder, tensor)`). forward overwrites pooled and argmax.
 */
export class SpladeHead {
  /** Bytes of the GPU buffers this instance allocated (uniform + bucketing scratch), for the benchmark. */
  readonly scratchBytes: number;
  private readonly dimsBuffer: GPUBuffer;
  private readonly offsets: Tensor<'u32'>; // (B, T) bucket ends per sequence
  private readonly order: Tensor<'u32'>; // (B, V) vocabulary ids grouped by argmax token
  private readonly cursor: Tensor<'u32'>; // (B, sortWorkgroup, T) counting-sort counters
  private readonly unused: Tensor<'f32'>; // (4) bound in place of a gradient the caller does not want (never written)
  private readonly tuning: SpladeHeadTuning;
  /** The forward's dispatches (one unless the work budget or the weight's parts split it). */
  private readonly chunks: ForwardChunk[];
  /** The weight's row ranges, and per range the backward's uniform (its rows [w0, v_end)). */
  private readonly parts: readonly { row0: number; rows: number }[];
  private readonly partUniforms: GPUBuffer[];
  /** The whole vocabulary as one range: the bias-only backward, which binds no weight. */
  private readonly wholeUniform: GPUBuffer;

  constructor(
    private readonly ctx: GpuContext,
    readonly dims: SpladeHeadDims,
    tuning: Partial<SpladeHeadTuning> = {},
  ) {
    const { B, T, d, V } = dims;
    for (const [name, n] of Object.entries({ B, T, d, V })) {
      if (!Number.isInteger(n) || n < 1) throw new Error(`${FAMILY}: ${name} must be a positive integer, got ${n}`);
    }
    if (d % 4 !== 0) throw new Error(`${FAMILY}: hidden size d = ${d} must be a multiple of 4 (vec4 loads)`);
    this.tuning = {
      ...DEFAULT_TUNING,
      maxDispatchFlops: dispatchFlopsBudget(ctx),
      forwardVariant: defaultHeadVariant(),
      ...tuning,
    };
    if (this.tuning.forwardVariant === 'tiled') {
      // w_tile (4·FWD_WG rows x 8), h_tile (8 x 8) and one word: shaders/splade_head.wgsl's head_forward_tiled
      const bytes = 4 * (4 * this.tuning.forwardWorkgroup * 8 + 64 + 1);
      if (bytes > ctx.limits.maxComputeWorkgroupStorageSize) {
        throw new Error(
          `${FAMILY}: the tiled forward with ${this.tuning.forwardWorkgroup} invocations needs ${bytes} bytes of workgroup memory, over maxComputeWorkgroupStorageSize ${ctx.limits.maxComputeWorkgroupStorageSize}`,
        );
      }
    }
    const maxGroups = ctx.limits.maxComputeWorkgroupsPerDimension;
    const hiddenGroups = Math.ceil((T * d) / 4 / this.tuning.backwardWorkgroup);
    if (B > maxGroups || hiddenGroups > maxGroups) {
      throw new Error(
        `${FAMILY}: B = ${B} and T·d/4/${this.tuning.backwardWorkgroup} = ${hiddenGroups} must each be at most ` +
          `maxComputeWorkgroupsPerDimension ${maxGroups}; shorten the sequences or raise backwardWorkgroup`,
      );
    }
    if (B * T * d >= 2 ** 32 || V * d >= 2 ** 32 || B * V >= 2 ** 32) {
      throw new Error(`${FAMILY}: ${this.shapes} overflows 32-bit indices`);
    }
    ctx.checkBindingSize(`${FAMILY} hidden [${B}x${T}x${d}]`, B * T * d * 4);
    this.parts = dims.parts ?? [{ row0: 0, rows: V }];
    let next = 0;
    for (const part of this.parts) {
      if (part.row0 !== next || !Number.isInteger(part.rows) || part.rows < 1)
        throw new Error(`${FAMILY}: weight part ${part.row0}+${part.rows} does not continue the rows at ${next}`);
      next += part.rows;
    }
    if (next !== V) throw new Error(`${FAMILY}: weight parts hold ${next} rows, expected V = ${V}`);
    for (const part of this.parts)
      ctx.checkBindingSize(`${FAMILY} weight rows ${part.row0}+${part.rows} [${part.rows}x${d}]`, part.rows * d * 4);
    ctx.checkBindingSize(`${FAMILY} pooled [${B}x${V}]`, B * V * 4);
    this.dimsBuffer = ctx.uniform(`${FAMILY} dims ${this.shapes}`, 4);
    ctx.writeUniform(this.dimsBuffer, [B, T, d, V]);
    this.offsets = ctx.tensor(`${FAMILY} offsets`, [B, T], 'u32');
    this.order = ctx.tensor(`${FAMILY} order`, [B, V], 'u32');
    this.cursor = ctx.tensor(`${FAMILY} cursor`, [B, this.tuning.sortWorkgroup, T], 'u32');
    this.unused = ctx.tensor(`${FAMILY} unused gradient`, [4], 'f32');
    this.chunks = this.planChunks();
    const rangeUniform = (label: string, row0: number, end: number) => {
      const uniform = ctx.uniform(`${FAMILY} ${label}`, 4);
      ctx.writeUniform(uniform, [0, row0, row0, end]);
      return uniform;
    };
    this.partUniforms = this.parts.map((p) => rangeUniform(`weight part ${p.row0}+${p.rows}`, p.row0, p.row0 + p.rows));
    this.wholeUniform = rangeUniform('whole vocabulary', 0, V);
    this.scratchBytes =
      this.dimsBuffer.size +
      this.offsets.byteLength +
      this.order.byteLength +
      this.cursor.byteLength +
      this.unused.byteLength +
      [...this.chunks.map((c) => c.uniform), ...this.partUniforms, this.wholeUniform].reduce((sum, u) => sum + u.size, 0);
  }

  /** The forward's variant (registers or tiled). */
  get variant(): SpladeHeadVariant {
    return this.tuning.forwardVariant;
  }

  /** FLOPs of the largest forward dispatch (the bench reports it against the whole forward's). */
  get largestDispatchFlops(): number {
    const { T, d } = this.dims;
    return this.chunks.reduce((most, c) => Math.max(most, 2 * c.b * T * c.v * d), 0);
  }

  /** Forward dispatches per call. */
  get forwardDispatches(): number {
    return this.chunks.length;
  }

  /**
   * Splits the forward under the work budget: whole rows of vocabulary ids in multiples of a workgroup's 4·FWD_WG,
   * and, when one such slice of every sequence is still over it, fewer sequences per dispatch; a chunk never
   * straddles two weight parts.
   */
  private planChunks(): ForwardChunk[] {
    const { B, T, d, V } = this.dims;
    const slice = 4 * this.tuning.forwardWorkgroup;
    const flopsPer = (b: number, v: number) => 2 * b * T * v * d;
    const budget = this.tuning.maxDispatchFlops;
    let vStep = V;
    let bStep = B;
    if (flopsPer(B, V) > budget) {
      vStep = Math.max(slice, Math.floor(budget / flopsPer(B, slice)) * slice);
      if (flopsPer(B, vStep) > budget) bStep = Math.max(1, Math.floor(budget / flopsPer(1, slice)));
    }
    const chunks: ForwardChunk[] = [];
    this.parts.forEach((part, k) => {
      const end = part.row0 + part.rows;
      for (let b0 = 0; b0 < B; b0 += bStep) {
        for (let v0 = part.row0; v0 < end; v0 += vStep) {
          const uniform = this.ctx.uniform(`${FAMILY} forward chunk b${b0} v${v0}`, 4);
          this.ctx.writeUniform(uniform, [b0, v0, part.row0, end]);
          chunks.push({ b0, b: Math.min(bStep, B - b0), v0, v: Math.min(vStep, end - v0), part: k, uniform });
        }
      }
    });
    return chunks;
  }

  get shapes(): string {
    const { B, T, d, V } = this.dims;
    return `B=${B} T=${T} d=${d} V=${V}`;
  }

  /** pooled (B, V) = max over unmasked t of log1p(relu(hidden[b, t]·weight[v] + bias[v])); argmax (B, V) its token. */
  forward(encoder: GPUCommandEncoder, args: SpladeHeadForwardArgs): void {
    const { B, T, d, V } = this.dims;
    this.expect('hidden', args.hidden, [B, T, d]);
    const weight = this.weightParts(args.weight, 'weight');
    this.expect('bias', args.bias, [V]);
    this.expect('mask', args.mask, [B, T], ['u32', 'f32']);
    this.expect('pooled', args.pooled, [B, V]);
    this.expect('argmax', args.argmax, [B, V], ['u32']);
    const wg = this.tuning.forwardWorkgroup;
    const spec = this.spec(this.tuning.forwardVariant === 'tiled' ? 'head_forward_tiled' : 'head_forward', { FWD_WG: wg });
    for (const c of this.chunks) {
      this.ctx.dispatch(
        encoder,
        spec,
        [this.dimsBuffer, args.hidden, weight[c.part].tensor, args.bias, args.mask, args.pooled, args.argmax, c.uniform],
        [Math.ceil(c.v / (4 * wg)), c.b],
        this.chunks.length > 1 ? `${this.shapes} chunk b ${c.b0}+${c.b} v ${c.v0}+${c.v}` : this.shapes,
      );
    }
  }

  /**
   * With dlogit[b,v] = dpooled·exp(-pooled) where pooled > 0 (else 0), and argmax/pooled from this forward:
   * dhidden[b,t] += Σ_{v: argmax[b,v]=t} dlogit[b,v]·weight[v]  (bucketed by token, then gathered per (b, t)),
   * dweight[v] += Σ_b dlogit[b,v]·hidden[b, argmax[b,v]],  dbias[v] += Σ_b dlogit[b,v].
   */
  backward(encoder: GPUCommandEncoder, args: SpladeHeadBackwardArgs): void {
    const { B, T, d, V } = this.dims;
    this.expect('hidden', args.hidden, [B, T, d]);
    const weight = this.weightParts(args.weight, 'weight');
    this.expect('pooled', args.pooled, [B, V]);
    this.expect('argmax', args.argmax, [B, V], ['u32']);
    this.expect('dpooled', args.dpooled, [B, V]);
    const { dhidden, dweight, dbias } = args;
    if (!dhidden && !dweight && !dbias) throw new Error(`${FAMILY}.backward: pass at least one of dhidden, dweight, dbias`);
    const bw = this.tuning.backwardWorkgroup;
    if (dhidden) {
      this.expect('dhidden', dhidden, [B, T, d]);
      const sw = this.tuning.sortWorkgroup;
      this.ctx.dispatch(
        encoder,
        this.spec('head_bucket', { SORT_WG: sw }),
        [this.dimsBuffer, args.argmax, this.offsets, this.order, this.cursor],
        [B],
        this.shapes,
      );
      // one gather per weight part, each adding the rows it holds
      weight.forEach((part, k) => {
        this.ctx.dispatch(
          encoder,
          this.spec('head_backward_hidden', { BWD_WG: bw }),
          [this.dimsBuffer, args.dpooled, args.pooled, this.offsets, this.order, part.tensor, dhidden, this.partUniforms[k]],
          [Math.ceil((T * d) / 4 / bw), B],
          this.shapes,
        );
      });
    }
    if (dweight || dbias) {
      // one kernel owns both; a gradient not asked for is switched off (HAS_DWEIGHT / HAS_DBIAS) and bound to `unused`
      if (dbias) this.expect('dbias', dbias, [V]);
      const spec = this.spec('head_backward_weight', { BWD_WG: bw, HAS_DWEIGHT: Number(!!dweight), HAS_DBIAS: Number(!!dbias) });
      const ranges = dweight
        ? this.weightParts(dweight, 'dweight').map((part, k) => ({
            rows: this.parts[k].rows,
            target: part.tensor,
            uniform: this.partUniforms[k],
          }))
        : [{ rows: V, target: this.unused, uniform: this.wholeUniform }];
      for (const { rows, target, uniform } of ranges) {
        const groups = Math.ceil((rows * d) / 4 / bw);
        const gx = Math.min(groups, this.ctx.limits.maxComputeWorkgroupsPerDimension);
        this.ctx.dispatch(
          encoder,
          spec,
          [this.dimsBuffer, args.dpooled, args.pooled, args.argmax, args.hidden, target, dbias ?? this.unused, uniform],
          [gx, Math.ceil(groups / gx)],
          this.shapes,
        );
      }
    }
  }

  /** A weight (or its gradient) as the row parts this head was built for. */
  private weightParts(matrix: RowParted, role: string): readonly RowPart[] {
    const { V, d } = this.dims;
    const parts = rowPartsOf(matrix, V, d, `${FAMILY} (${this.shapes}): ${role}`);
    if (parts.length !== this.parts.length || parts.some((p, k) => p.row0 !== this.parts[k].row0)) {
      const planned = this.parts.map((p) => `${p.row0}+${p.rows}`).join(', ');
      throw new Error(
        `${FAMILY} (${this.shapes}): ${role} comes in ${parts.length} row parts, but the head was built for [${planned}]`,
      );
    }
    return parts;
  }

  private spec(entryPoint: string, constants: Record<string, number>): KernelSpec {
    return { family: FAMILY, source, entryPoint, constants };
  }

  private expect(role: string, tensor: Tensor, shape: readonly number[], dtypes: readonly DType[] = ['f32']): void {
    const same = tensor.shape.length === shape.length && tensor.shape.every((n, i) => n === shape[i]);
    if (!same || !dtypes.includes(tensor.dtype)) {
      throw new Error(`${FAMILY} (${this.shapes}): ${role} must be [${shape.join('x')}]:${dtypes.join('|')}, got ${tensor}`);
    }
  }
}
