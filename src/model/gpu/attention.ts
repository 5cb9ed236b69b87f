// Multi-head attention of one encoder layer on the GPU, composed of the attention kernels (softmax, head permutes,
// rotary) and the batched matmuls: qkv (B, T, 3d) -> context (B, T, d), forward and backward.
import type { Tensor } from '../../gpu/tensor.ts';
import type { DropoutSite } from '../../kernels/dropout.ts';
import type { GpuContext } from '../../gpu/context.ts';
import { AttentionSoftmax, Rotary, HeadPermute, AttentionDims, FAMILY } from '../../kernels/attention.ts';
import { checkDims, expectOperand } from '../../kernels/layer-common.ts';
import { Matmul } from '../../kernels/matmul.ts';

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
