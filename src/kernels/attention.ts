// Typed wrappers of shaders/attention.wgsl: the masked softmax over scores, the head permutes and rotary positions
// (src/model/gpu/attention.ts composes them with the batched matmuls into multi-head attention).
import source from '../../shaders/attention.wgsl?raw';
import { f32Bits, type GpuContext, type KernelSpec } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { checkDims, checkPowerOfTwo, defaultRowWorkgroup, expectDistinct, expectOperand, grid } from './layer-common.ts';
import { ropeTable } from './host/rope-table.ts';

export const FAMILY = 'attention';

export interface AttentionDims {
  /** sequences */
  B: number;
  /** tokens per sequence (padded length) */
  T: number;
  /** heads */
  NH: number;
  /** head size; d = NH · hd */
  hd: number;
}

/** Shared plumbing: a Params uniform (12 words) written once, dispatches of one entry point. */
abstract class AttentionKernel {
  readonly label: string;
  protected readonly workgroup: number;

  constructor(
    protected readonly ctx: GpuContext,
    readonly dims: AttentionDims,
    label: string,
    workgroup: number,
  ) {
    checkDims(FAMILY, { ...dims });
    checkPowerOfTwo(FAMILY, 'workgroup', workgroup, ctx);
    this.label = label;
    this.workgroup = workgroup;
  }

  /** A uniform holding Params for these dims. */
  protected params(halfWindow: number | null, sections: number, section: number): GPUBuffer {
    const { B, NH, T, hd } = this.dims;
    const buffer = this.ctx.uniform(`${this.label} params`, 12);
    const words = [
      B,
      NH,
      T,
      hd,
      halfWindow ?? 0,
      halfWindow === null ? 0 : 1,
      f32Bits(1 / Math.sqrt(hd)),
      B * NH * T,
      sections,
      section,
      0,
      0,
    ];
    this.ctx.writeUniform(buffer, words);
    return buffer;
  }

  protected spec(entryPoint: string, accumulate = false): KernelSpec {
    return { family: FAMILY, source, entryPoint, constants: { WORKGROUP: this.workgroup, ACCUMULATE: Number(accumulate) } };
  }

  protected get shapes(): string {
    const { B, T, NH, hd } = this.dims;
    return `${this.label}: B=${B} T=${T} NH=${NH} hd=${hd}`;
  }

  protected expect(role: string, tensor: Tensor, shape: number[]): void {
    expectOperand(this.label, role, tensor, shape);
  }
}

/**
 * Scaled, masked softmax over attention scores (B, NH, T, T), in place. Key j is visible from query i of sequence b
 * when mask[b, j] != 0 and, with `halfWindow` (ModernBERT local layers: floor(local_attention / 2)), |i - j| <=
 * halfWindow. A query with no visible key gets an all-zero row (no NaN).
 */
export class AttentionSoftmax extends AttentionKernel {
  private readonly uniform: GPUBuffer;

  /** options.workgroup: invocations per score row (power of two); default defaultRowWorkgroup(ctx). */
  constructor(
    ctx: GpuContext,
    dims: AttentionDims,
    readonly halfWindow: number | null,
    options: { workgroup?: number } = {},
  ) {
    super(
      ctx,
      dims,
      `attention softmax${halfWindow === null ? '' : ` window ±${halfWindow}`}`,
      options.workgroup ?? defaultRowWorkgroup(ctx),
    );
    if (halfWindow !== null && !(Number.isInteger(halfWindow) && halfWindow >= 0)) {
      throw new Error(`${this.label}: halfWindow must be null or a whole number >= 0, got ${halfWindow}`);
    }
    this.uniform = this.params(halfWindow, 1, 0);
  }

  /** scores (B, NH, T, T) of q·kᵀ (unscaled) become probabilities; mask (B, T) u32 or f32 (non-zero word = real). */
  forward(encoder: GPUCommandEncoder, { scores, mask }: { scores: Tensor; mask: Tensor }): void {
    const { B, NH, T } = this.dims;
    this.expect('scores', scores, [B, NH, T, T]);
    expectOperand(this.label, 'mask', mask, [B, T], ['u32', 'f32', 'i32']);
    const bindings = [this.uniform, mask, scores];
    this.ctx.dispatch(encoder, this.spec('softmax_forward'), bindings, grid(this.ctx, B * NH * T, 1), this.shapes);
  }

  /** dscores (B, NH, T, T): holds d loss / d probs on entry and d loss / d (unscaled) scores on return. */
  backward(encoder: GPUCommandEncoder, { dscores, probs }: { dscores: Tensor; probs: Tensor }): void {
    const { B, NH, T } = this.dims;
    this.expect('dscores', dscores, [B, NH, T, T]);
    this.expect('probs', probs, [B, NH, T, T]);
    expectDistinct(this.label, dscores, probs);
    const bindings = [this.uniform, null, null, probs, dscores];
    this.ctx.dispatch(encoder, this.spec('softmax_backward'), bindings, grid(this.ctx, B * NH * T, 1), this.shapes);
  }
}

/** Operands of a head permute; `accumulate` adds into the destination (default: overwrite). */
export interface HeadPermuteArgs {
  heads: Tensor; // (B, NH, T, hd)
  tokens: Tensor; // (B, T, S·NH·hd)
  /** which of the S sections of `tokens` */
  section: number;
  accumulate?: boolean;
}

/**
 * Head permutes between token-major (B, T, S, NH·hd) with S sections (3 for a fused qkv, 1 for a context) and
 * head-major (B, NH, T, hd). With `accumulate` the destination is added into instead of overwritten.
 */
export class HeadPermute extends AttentionKernel {
  private readonly uniforms: GPUBuffer[];

  constructor(
    ctx: GpuContext,
    dims: AttentionDims,
    readonly sections: number,
    options: { workgroup?: number } = {},
  ) {
    super(ctx, dims, `head permute S${sections}`, options.workgroup ?? 256);
    checkDims(this.label, { sections });
    this.uniforms = Array.from({ length: sections }, (_, s) => this.params(null, sections, s));
  }

  /** heads (B, NH, T, hd) (+)= section `section` of tokens (B, T, S·NH·hd). */
  split(encoder: GPUCommandEncoder, { heads, tokens, section, accumulate = false }: HeadPermuteArgs): void {
    this.record(encoder, 'split_heads', heads, tokens, section, accumulate);
  }

  /** section `section` of tokens (B, T, S·NH·hd) (+)= heads (B, NH, T, hd). */
  merge(encoder: GPUCommandEncoder, { tokens, heads, section, accumulate = false }: HeadPermuteArgs): void {
    this.record(encoder, 'merge_heads', tokens, heads, section, accumulate);
  }

  private record(
    encoder: GPUCommandEncoder,
    entryPoint: string,
    dst: Tensor,
    src: Tensor,
    section: number,
    accumulate: boolean,
  ): void {
    const { B, T, NH, hd } = this.dims;
    if (!(Number.isInteger(section) && section >= 0 && section < this.sections)) {
      throw new Error(`${this.label}: section must be 0..${this.sections - 1}, got ${section}`);
    }
    const [heads, tokens] = entryPoint === 'split_heads' ? [dst, src] : [src, dst];
    this.expect('heads', heads, [B, NH, T, hd]);
    this.expect('tokens', tokens, [B, T, this.sections * NH * hd]);
    expectDistinct(this.label, dst, src);
    const bindings = [this.uniforms[section], null, null, null, null, src, dst];
    this.ctx.dispatch(
      encoder,
      this.spec(entryPoint, accumulate),
      bindings,
      grid(this.ctx, B * NH * T * hd, this.workgroup),
      this.shapes,
    );
  }
}

/**
 * Rotary position embeddings (rotate_half convention, as transformers' ModernBERT) applied in place to head-major
 * q or k (B, NH, T, hd) at positions 0..T-1. The cos/sin tables (T, hd/2) of angle t · theta^(-2j/hd) are computed
 * once in float64 on the host and uploaded. backward applies the inverse rotation in place to a gradient.
 */
export class Rotary extends AttentionKernel {
  readonly cos: Tensor<'f32'>; // (T, hd/2)
  readonly sin: Tensor<'f32'>; // (T, hd/2)
  private readonly uniform: GPUBuffer;

  /** `rope`: a base theta (plain frequencies) or the inverse frequencies (hd/2) themselves (ropeInverseFrequencies). */
  constructor(ctx: GpuContext, dims: AttentionDims, rope: number | Float64Array, options: { workgroup?: number } = {}) {
    super(ctx, dims, typeof rope === 'number' ? `rotary theta ${rope}` : 'rotary', options.workgroup ?? 256);
    const { T, hd } = dims;
    if (hd % 2 !== 0) throw new Error(`${this.label}: the head size must be even, got ${hd}`);
    if (typeof rope === 'number' && !(rope > 0)) throw new Error(`${this.label}: theta must be positive, got ${rope}`);
    const half = hd / 2;
    const { cos, sin } = ropeTable(T, hd, rope);
    this.cos = ctx.tensor(`${this.label} cos`, [T, half], 'f32', cos);
    this.sin = ctx.tensor(`${this.label} sin`, [T, half], 'f32', sin);
    this.uniform = this.params(null, 1, 0);
  }

  /** x (B, NH, T, hd) rotated in place by each position's angles. */
  forward(encoder: GPUCommandEncoder, x: Tensor): void {
    this.record(encoder, 'rotary_forward', x);
  }

  /** dx (B, NH, T, hd): the gradient after the rotation becomes the gradient before it, in place. */
  backward(encoder: GPUCommandEncoder, dx: Tensor): void {
    this.record(encoder, 'rotary_backward', dx);
  }

  private record(encoder: GPUCommandEncoder, entryPoint: string, x: Tensor): void {
    const { B, NH, T, hd } = this.dims;
    this.expect('x', x, [B, NH, T, hd]);
    const bindings = [this.uniform, null, null, null, null, null, null, x, this.cos, this.sin];
    this.ctx.dispatch(
      encoder,
      this.spec(entryPoint),
      bindings,
      grid(this.ctx, (B * NH * T * hd) / 2, this.workgroup),
      this.shapes,
    );
  }
}
