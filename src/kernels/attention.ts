// Typed wrappers of shaders/attention.wgsl (softmax, head permutes, rotary) and the multi-head attention they compose
// with the batched matmuls of src/kernels/matmul.ts: qkv (B, T, 3d) -> context (B, T, d), forward and backward.
import source from '../../shaders/attention.wgsl?raw';
import { f32Bits, type GpuContext, type KernelSpec } from '../gpu/context.ts';
import type { DropoutSite } from './dropout.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { checkDims, checkPowerOfTwo, defaultRowWorkgroup, expectDistinct, expectOperand, grid } from './layer-common.ts';
import { Matmul } from './matmul.ts';
import { ropeTable } from './reference/attention.ts';

const FAMILY = 'attention';

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

/** Per-layer activations the attention backward needs; allocate one set per layer with Attention.createState. */
export interface AttentionState {
  q: Tensor<'f32'>; // (B, NH, T, hd), after rotary
  k: Tensor<'f32'>; // (B, NH, T, hd), after rotary
  v: Tensor<'f32'>; // (B, NH, T, hd)
  /** (B, NH, T, T); with `recomputeProbs` the instance's one shared buffer, refilled by backward. */
  probs: Tensor<'f32'>;
  context: Tensor<'f32'>; // (B, NH, T, hd)
  /** The mask (B, T) forward ran with (kept so that backward can recompute probs). */
  mask: Tensor | null;
}

export interface AttentionForwardArgs {
  out: Tensor; // (B, T, d), overwritten
  qkv: Tensor; // (B, T, 3d): q | k | v along the last dim
  mask: Tensor; // (B, T) u32 or f32: non-zero word = real token
  state: AttentionState; // this layer's saved activations, overwritten
  /** Dropout on the probabilities (needs recomputeProbs: backward recomputes the undropped ones). */
  dropout?: DropoutSite | null;
}

export interface AttentionBackwardArgs {
  /** (B, T, 3d): overwritten, or added into with `accumulate` */
  dqkv: Tensor;
  dout: Tensor; // (B, T, d)
  state: AttentionState; // forward's
  /** The forward's dropout site, with the forward's key. */
  dropout?: DropoutSite | null;
}

export interface AttentionOptions {
  /** Sliding window: key j visible from query i iff |i - j| <= halfWindow (ModernBERT local layers); null = global. */
  halfWindow: number | null;
  /** Rotary of this layer: a base theta or inverse frequencies (Rotary); null = no rotary (BERT family). */
  rope: number | Float64Array | null;
  /** backward adds into dqkv instead of overwriting it. Default false. */
  accumulate?: boolean;
  /** Invocations per softmax row (power of two); default defaultRowWorkgroup(ctx). */
  softmaxWorkgroup?: number;
  /**
   * Keep no per-layer probabilities: every state shares one (B, NH, T, T) buffer and backward recomputes it from the
   * saved q, k and the mask (one more q·kᵀ and softmax per layer; the same kernels give bit-identical probs). Saves
   * B·NH·T·T floats per layer. Default false.
   */
  recomputeProbs?: boolean;
  label?: string;
}

/**
 * Multi-head self-attention on a fused qkv (B, T, 3d), q | k | v along the last dim as transformers lays out a fused
 * projection, built once per (B, T, NH, hd, window, theta): split heads, rotary on q and k, scores = q·kᵀ (batched
 * matmul), masked scaled softmax, optional dropout on the probabilities, context = probs·v, merge heads. The instance owns the backward's scratch gradients (shared by every layer using it); the per-layer
 * activations live in an AttentionState.
 *
 * forward overwrites out and the state; backward overwrites dqkv (adds into it with `accumulate`). It has no
 * parameters, so there is nothing to accumulate into beyond that.
 */
export class Attention {
  readonly label: string;
  readonly softmax: AttentionSoftmax;
  readonly rotary: Rotary | null;
  private readonly qkvPermute: HeadPermute;
  private readonly contextPermute: HeadPermute;
  private readonly scoresMatmul: Matmul; // (T, hd)·(T, hd)ᵀ per head: scores and dprobs
  private readonly headsMatmul: Matmul; // (T, T)·(T, hd) per head: context and dq
  private readonly transposedMatmul: Matmul; // (T, T)ᵀ·(T, hd) per head: dv and dk
  private readonly scratch: {
    dq: Tensor<'f32'>;
    dk: Tensor<'f32'>;
    dv: Tensor<'f32'>;
    dcontext: Tensor<'f32'>;
    dscores: Tensor<'f32'>;
  };
  private readonly sharedProbs: Tensor<'f32'> | null; // (B, NH, T, T) with recomputeProbs

  constructor(
    private readonly ctx: GpuContext,
    readonly dims: AttentionDims,
    readonly options: AttentionOptions,
  ) {
    const { B, T, NH, hd } = dims;
    checkDims(FAMILY, { ...dims });
    this.label = options.label ?? `attention B${B} T${T} NH${NH} hd${hd}`;
    this.softmax = new AttentionSoftmax(ctx, dims, options.halfWindow, { workgroup: options.softmaxWorkgroup });
    this.rotary = options.rope === null ? null : new Rotary(ctx, dims, options.rope);
    this.qkvPermute = new HeadPermute(ctx, dims, 3);
    this.contextPermute = new HeadPermute(ctx, dims, 1);
    const batch = B * NH;
    this.scoresMatmul = new Matmul(ctx, { M: T, N: T, K: hd, layout: 'nt', batch }, { label: `${this.label} q·kᵀ` });
    this.headsMatmul = new Matmul(ctx, { M: T, N: hd, K: T, layout: 'nn', batch }, { label: `${this.label} p·v` });
    this.transposedMatmul = new Matmul(ctx, { M: T, N: hd, K: T, layout: 'tn', batch }, { label: `${this.label} pᵀ·dout` });
    const heads = (name: string) => ctx.tensor(`${this.label} ${name}`, [B, NH, T, hd], 'f32');
    this.scratch = {
      dq: heads('dq'),
      dk: heads('dk'),
      dv: heads('dv'),
      dcontext: heads('dcontext'),
      dscores: ctx.tensor(`${this.label} dscores`, [B, NH, T, T], 'f32'),
    };
    this.sharedProbs = options.recomputeProbs ? ctx.tensor(`${this.label} shared probs`, [B, NH, T, T], 'f32') : null;
  }

  /** Allocates one layer's saved activations (call once per layer, at set-up). */
  createState(label: string): AttentionState {
    const { B, T, NH, hd } = this.dims;
    const heads = (name: string) => this.ctx.tensor(`${label} ${name}`, [B, NH, T, hd], 'f32');
    const probs = this.sharedProbs ?? this.ctx.tensor(`${label} probs`, [B, NH, T, T], 'f32');
    return { q: heads('q'), k: heads('k'), v: heads('v'), probs, context: heads('context'), mask: null };
  }

  /** out (B, T, d) = attention of qkv (B, T, 3d) under mask (B, T) (u32 or f32, non-zero = real token). */
  forward(encoder: GPUCommandEncoder, { out, qkv, mask, state, dropout }: AttentionForwardArgs): void {
    const { B, T, NH, hd } = this.dims;
    expectOperand(this.label, 'out', out, [B, T, NH * hd]);
    expectOperand(this.label, 'qkv', qkv, [B, T, 3 * NH * hd]);
    this.qkvPermute.split(encoder, { heads: state.q, tokens: qkv, section: 0 });
    this.qkvPermute.split(encoder, { heads: state.k, tokens: qkv, section: 1 });
    this.qkvPermute.split(encoder, { heads: state.v, tokens: qkv, section: 2 });
    if (this.rotary) {
      this.rotary.forward(encoder, state.q);
      this.rotary.forward(encoder, state.k);
    }
    this.scoresMatmul.record(encoder, { a: state.q, b: state.k, out: state.probs });
    this.softmax.forward(encoder, { scores: state.probs, mask });
    if (dropout) {
      if (!this.sharedProbs)
        throw new Error(
          `${this.label}: dropout on the probabilities needs recomputeProbs (backward recomputes the undropped ones)`,
        );
      dropout.inPlace(encoder, state.probs);
    }
    this.headsMatmul.record(encoder, { a: state.probs, b: state.v, out: state.context });
    this.contextPermute.merge(encoder, { tokens: out, heads: state.context, section: 0 });
    state.mask = mask;
  }

  /** dqkv (B, T, 3d) = (or += with `accumulate`) the gradient of qkv given dout (B, T, d) and forward's state. */
  backward(encoder: GPUCommandEncoder, { dqkv, dout, state, dropout }: AttentionBackwardArgs): void {
    const { B, T, NH, hd } = this.dims;
    const { dq, dk, dv, dcontext, dscores } = this.scratch;
    expectOperand(this.label, 'dqkv', dqkv, [B, T, 3 * NH * hd]);
    expectOperand(this.label, 'dout', dout, [B, T, NH * hd]);
    if (this.sharedProbs) {
      if (!state.mask) throw new Error(`${this.label}: backward before forward (recomputeProbs needs forward's mask)`);
      this.scoresMatmul.record(encoder, { a: state.q, b: state.k, out: state.probs });
      this.softmax.forward(encoder, { scores: state.probs, mask: state.mask });
    }
    this.contextPermute.split(encoder, { heads: dcontext, tokens: dout, section: 0 });
    this.scoresMatmul.record(encoder, { a: dcontext, b: state.v, out: dscores }); // dprobs = dcontext·vᵀ
    if (dropout) {
      // probs holds the undropped p here (recomputed): d p = dropout(d dropped); the softmax backward reads p; then
      // p becomes the dropped probabilities forward multiplied v by, for dv
      dropout.inPlace(encoder, dscores);
      this.softmax.backward(encoder, { dscores, probs: state.probs });
      dropout.inPlace(encoder, state.probs);
      this.transposedMatmul.record(encoder, { a: state.probs, b: dcontext, out: dv }); // dv = droppedᵀ·dcontext
    } else {
      this.transposedMatmul.record(encoder, { a: state.probs, b: dcontext, out: dv }); // dv = probsᵀ·dcontext
      this.softmax.backward(encoder, { dscores, probs: state.probs });
    }
    this.headsMatmul.record(encoder, { a: dscores, b: state.k, out: dq }); // dq = dscores·k
    this.transposedMatmul.record(encoder, { a: dscores, b: state.q, out: dk }); // dk = dscoresᵀ·q
    if (this.rotary) {
      this.rotary.backward(encoder, dq);
      this.rotary.backward(encoder, dk);
    }
    const accumulate = this.options.accumulate ?? false;
    this.qkvPermute.merge(encoder, { tokens: dqkv, heads: dq, section: 0, accumulate });
    this.qkvPermute.merge(encoder, { tokens: dqkv, heads: dk, section: 1, accumulate });
    this.qkvPermute.merge(encoder, { tokens: dqkv, heads: dv, section: 2, accumulate });
  }
}
