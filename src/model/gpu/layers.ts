// One encoder layer on the GPU, forward and backward, mirroring src/model/reference/layers.ts:
//   post-norm (BERT, RoBERTa, DistilBERT, GTE): h = LN1(x + Attn(x));  y = LN2(h + MLP(h))
//   pre-norm (ModernBERT):                 h = x + Attn(LNa(x));  y = h + GeGLU-MLP(LNm(h)); layer 0 has no LNa
// Each layer owns its saved activations; kernels and backward scratch are shared by all layers of a pass.
import type { DType, Tensor } from '../../gpu/tensor.ts';
import type { Add, Geglu, Gelu } from '../../kernels/activations.ts';
import type { Attention, AttentionState } from './attention.ts';
import type { DropoutSite } from '../../kernels/dropout.ts';
import type { LayerNorm } from '../../kernels/layernorm.ts';
import { P, hasAttnNorm, type Part } from '../layout.ts';
import type { GpuModel } from '../gpu-model.ts';
import type { GpuLinear } from './linear.ts';

/** Allocates one labelled activation tensor (the pass tallies the bytes). */
export type Allocate = <D extends DType = 'f32'>(name: string, shape: number[], dtype?: D) => Tensor<D>;

/** Kernels shared by every layer of one pass (built once per (B, T)). */
export interface LayerKernels {
  qkv: GpuLinear; // (N, d) -> (N, 3d)
  attnOut: GpuLinear; // (N, d) -> (N, d)
  mlpIn: GpuLinear; // (N, d) -> (N, I) or (N, 2I)
  mlpOut: GpuLinear; // (N, I) -> (N, d)
  norm: LayerNorm; // (N, d), backward overwrites dinp
  normAccumulate: LayerNorm; // (N, d), backward adds into dinp (pre-norm residual stream)
  gelu: Gelu; // N·I elements (gelu_new for ALBERT)
  geglu: Geglu | null; // (N, 2I) -> (N, I), ModernBERT and GTE
  add: Add; // N·d elements: residual adds
  /** The attention of a layer (ModernBERT: global or local, each with its rotary theta; GTE: one, rotary). */
  attention: (layer: number) => Attention;
}

/** Gradient scratch shared by every layer's backward (layers run one after another). */
export interface BackwardScratch {
  g0: Tensor; // (N, d): the gradient of the residual stream, in and out of every layer's backward
  g1: Tensor; // (N, d): a second stream buffer
  dqkv: Tensor; // (N, 3d)
  dcontext: Tensor; // (N, d)
  dmlpPre: Tensor; // (N, I) or (N, 2I)
  dmlpAct: Tensor; // (N, I)
  /** (N, d): a residual branch's gradient through its dropout (only when a layer has hidden dropout). */
  ddropped: Tensor | null;
}

/**
 * A layer's dropout sites (null: none there): on the attention probabilities, on the attention output projection
 * before the residual add, on the MLP's activation before its output projection (ModernBERT, GTE), and on the MLP's
 * output projection before the residual add (BERT family, GTE).
 */
export interface LayerDropout {
  probs: DropoutSite | null;
  attnOut: DropoutSite | null;
  mlpActivation: DropoutSite | null;
  mlpOutput: DropoutSite | null;
}

/** A norm's output and the statistics its backward reads. */
export interface NormState {
  out: Tensor; // (N, d)
  mean: Tensor; // (N)
  rstd: Tensor; // (N)
}

/** Records state.out = norm(inp), keeping mean and rstd for the backward. */
export function recordNormForward(
  kernel: LayerNorm,
  encoder: GPUCommandEncoder,
  state: NormState,
  inp: Tensor,
  norm: GpuAffine,
): void {
  kernel.forward(encoder, { out: state.out, mean: state.mean, rstd: state.rstd, inp, weight: norm.weight, bias: norm.bias });
}

/** Records a norm's backward: dinp from dout (= or += as the kernel was made), dnorm's weight and bias added. */
export function recordNormBackward(
  kernel: LayerNorm,
  encoder: GPUCommandEncoder,
  a: { dinp: Tensor; dout: Tensor; inp: Tensor; state: NormState; norm: GpuAffine; dnorm: GpuAffine },
): void {
  kernel.backward(encoder, {
    dinp: a.dinp,
    dweight: a.dnorm.weight,
    dbias: a.dnorm.bias,
    dout: a.dout,
    inp: a.inp,
    weight: a.norm.weight,
    mean: a.state.mean,
    rstd: a.state.rstd,
  });
}

/** A weight and its optional bias (a linear layer or a norm), or their gradients. */
export interface GpuAffine {
  weight: Tensor;
  bias: Tensor | null;
}

/** A named weight and its optional bias (a linear layer or a norm) of a model, or their gradients. */
export function modelAffine(model: GpuModel, name: (part: Part) => string, gradient: boolean): GpuAffine {
  const get = (n: string) => (gradient ? model.dparam(n) : model.param(n));
  return { weight: get(name('weight')), bias: model.has(name('bias')) ? get(name('bias')) : null };
}

/** Views of layer i's parameters or gradients (null where the config has no such tensor). */
interface LayerTensors {
  qkv: GpuAffine;
  attnOut: GpuAffine;
  mlpIn: GpuAffine;
  mlpOut: GpuAffine;
  attnNorm: GpuAffine | null;
  attnOutNorm: GpuAffine | null;
  mlpNorm: GpuAffine | null;
  mlpOutNorm: GpuAffine | null;
}

/** Layer application `application`'s tensors: those of its stored layer (config.layerWeights; ALBERT shares them). */
function layerTensors(model: GpuModel, application: number, gradient: boolean): LayerTensors {
  const i = model.config.layerWeights[application];
  const pair = (f: (i: number, part: Part) => string): GpuAffine => modelAffine(model, (part) => f(i, part), gradient);
  const has = (f: (i: number, part: Part) => string) => model.has(f(i, 'weight'));
  return {
    qkv: pair(P.qkv),
    attnOut: pair(P.attnOut),
    mlpIn: pair(P.mlpIn),
    mlpOut: pair(P.mlpOut),
    attnNorm: has(P.attnNorm) ? pair(P.attnNorm) : null,
    attnOutNorm: has(P.attnOutNorm) ? pair(P.attnOutNorm) : null,
    mlpNorm: has(P.mlpNorm) ? pair(P.mlpNorm) : null,
    mlpOutNorm: has(P.mlpOutNorm) ? pair(P.mlpOutNorm) : null,
  };
}

/** One layer: its saved activations and its forward/backward. `x` (N, d) is its input, owned by whoever wrote it. */
export class GpuLayer {
  readonly out: Tensor; // (N, d): the layer's output
  private readonly p: LayerTensors;
  /** The gradients of p, looked up at the first backward (a model uploaded for inference has none). */
  private gradientTensors: LayerTensors | null = null;
  private readonly postNorm: boolean;
  private readonly attnNorm: NormState | null; // pre-norm layers > 0: LNa(x)
  private readonly qkv: Tensor; // (N, 3d) fused projections, before rotary
  private readonly state: AttentionState; // head-major q, k (after rotary), v, probs, context
  private readonly context: Tensor; // (N, d) attention output before the output projection
  private readonly resid1: Tensor; // (N, d): x + Attn(·), the input of LN1 (post) or of LNm (pre)
  private readonly mid: NormState; // post-norm: LN1 -> h; pre-norm: LNm(h)
  private readonly mlpPre: Tensor; // (N, I) or (N, 2I)
  private readonly mlpAct: Tensor; // (N, I)
  private readonly resid2: Tensor | null; // post-norm: (N, d) h + MLP(h), the input of LN2
  private readonly outNorm: NormState | null; // post-norm: LN2

  constructor(
    private readonly model: GpuModel,
    readonly index: number,
    private readonly x: Tensor,
    private readonly mask: Tensor,
    private readonly k: LayerKernels,
    alloc: Allocate,
    private readonly dropout: LayerDropout | null = null,
  ) {
    const { config } = model;
    const { hidden: d, intermediate: I } = config;
    const N = x.size / d;
    const name = (s: string) => `layer ${index} ${s}`;
    const norm = (s: string): NormState => ({
      out: alloc(name(`${s} out`), [N, d]), // (N, d)
      mean: alloc(name(`${s} mean`), [N]), // (N)
      rstd: alloc(name(`${s} rstd`), [N]), // (N)
    });
    this.postNorm = config.structure === 'post-norm';
    this.p = layerTensors(model, index, false);
    this.attnNorm = hasAttnNorm(config, index) ? norm('attnNorm') : null;
    this.qkv = alloc(name('qkv'), [N, 3 * d]); // (N, 3d)
    this.state = k.attention(index).createState(name('attention'));
    this.context = alloc(name('context'), [N, d]); // (N, d)
    this.resid1 = alloc(name('attention residual'), [N, d]); // (N, d)
    this.mid = norm(this.postNorm ? 'attnOutNorm' : 'mlpNorm');
    this.mlpPre = alloc(name('mlp pre'), [N, config.mlp === 'geglu' ? 2 * I : I]); // (N, I) or (N, 2I)
    this.mlpAct = alloc(name('mlp act'), [N, I]); // (N, I)
    if (this.postNorm) {
      this.resid2 = alloc(name('mlp residual'), [N, d]); // (N, d)
      this.outNorm = norm('mlpOutNorm');
      this.out = this.outNorm.out;
    } else {
      this.resid2 = null;
      this.outNorm = null;
      this.out = alloc(name('out'), [N, d]); // (N, d)
    }
  }

  /** The attention state's tensors (allocated by the attention kernel, not through `alloc`; probs may be shared). */
  get attentionTensors(): Tensor[] {
    const s = this.state;
    return [s.q, s.k, s.v, s.probs, s.context];
  }

  private get d(): LayerTensors {
    return (this.gradientTensors ??= layerTensors(this.model, this.index, true));
  }

  forward(encoder: GPUCommandEncoder): void {
    const { k, p, x } = this;
    let attnIn = x;
    if (this.attnNorm) {
      recordNormForward(this.k.norm, encoder, this.attnNorm, x, p.attnNorm!);
      attnIn = this.attnNorm.out;
    }
    k.qkv.forward(encoder, { out: this.qkv, inp: attnIn, ...p.qkv });
    const drop = this.dropout;
    k.attention(this.index).forward(encoder, {
      out: this.context,
      qkv: this.qkv,
      mask: this.mask,
      state: this.state,
      dropout: drop?.probs,
    });
    k.attnOut.forward(encoder, { out: this.resid1, inp: this.context, ...p.attnOut });
    drop?.attnOut?.inPlace(encoder, this.resid1);
    k.add.accumulate(encoder, { out: this.resid1, a: x });
    recordNormForward(this.k.norm, encoder, this.mid, this.resid1, this.postNorm ? p.attnOutNorm! : p.mlpNorm!);
    k.mlpIn.forward(encoder, { out: this.mlpPre, inp: this.mid.out, ...p.mlpIn });
    (k.geglu ?? k.gelu).forward(encoder, { out: this.mlpAct, inp: this.mlpPre });
    drop?.mlpActivation?.inPlace(encoder, this.mlpAct);
    const mlpOut = this.postNorm ? this.resid2! : this.out;
    k.mlpOut.forward(encoder, { out: mlpOut, inp: this.mlpAct, ...p.mlpOut });
    drop?.mlpOutput?.inPlace(encoder, mlpOut);
    k.add.accumulate(encoder, { out: mlpOut, a: this.postNorm ? this.mid.out : this.resid1 });
    if (this.postNorm) recordNormForward(this.k.norm, encoder, this.outNorm!, this.resid2!, p.mlpOutNorm!);
  }

  /** s.g0 holds d(layer output) on entry and d(layer input) on return; parameter gradients are added into. */
  backward(encoder: GPUCommandEncoder, s: BackwardScratch): void {
    if (this.postNorm) this.backwardPostNorm(encoder, s);
    else this.backwardPreNorm(encoder, s);
  }

  private backwardPostNorm(encoder: GPUCommandEncoder, s: BackwardScratch): void {
    const { k, p, d } = this;
    const o = this.outNorm!;
    recordNormBackward(k.norm, encoder, {
      dinp: s.g1,
      dout: s.g0,
      inp: this.resid2!,
      state: o,
      norm: p.mlpOutNorm!,
      dnorm: d.mlpOutNorm!,
    }); // g1 = dresid2
    this.mlpBackward(encoder, s, s.g1, s.g1, true); // g1 = dh = dresid2 + MLP backward
    recordNormBackward(k.norm, encoder, {
      dinp: s.g0,
      dout: s.g1,
      inp: this.resid1,
      state: this.mid,
      norm: p.attnOutNorm!,
      dnorm: d.attnOutNorm!,
    }); // g0 = dresid1
    this.attentionBackward(encoder, s, s.g0, this.x, s.g0, true); // g0 = dx = dresid1 + attention backward
  }

  private backwardPreNorm(encoder: GPUCommandEncoder, s: BackwardScratch): void {
    const { k, p, d } = this;
    this.mlpBackward(encoder, s, s.g0, s.g1, false); // g1 = d LNm(h)
    recordNormBackward(k.normAccumulate, encoder, {
      dinp: s.g0,
      dout: s.g1,
      inp: this.resid1,
      state: this.mid,
      norm: p.mlpNorm!,
      dnorm: d.mlpNorm!,
    }); // g0 = dh
    if (!this.attnNorm) {
      this.attentionBackward(encoder, s, s.g0, this.x, s.g0, true); // g0 = dx = dh + attention backward
      return;
    }
    const a = this.attnNorm;
    this.attentionBackward(encoder, s, s.g0, a.out, s.g1, false); // g1 = d LNa(x)
    recordNormBackward(k.normAccumulate, encoder, {
      dinp: s.g0,
      dout: s.g1,
      inp: this.x,
      state: a,
      norm: p.attnNorm!,
      dnorm: d.attnNorm!,
    }); // g0 = dx
  }

  /** MLP backward from dout (N, d): parameter gradients added, dinp (N, d) = or += d(MLP input). */
  private mlpBackward(encoder: GPUCommandEncoder, s: BackwardScratch, dout: Tensor, dinp: Tensor, accumulate: boolean): void {
    const { k, p, d } = this;
    const branch = this.throughDropout(encoder, this.dropout?.mlpOutput ?? null, dout, s);
    k.mlpOut.backward(encoder, {
      dinp: s.dmlpAct,
      dweight: d.mlpOut.weight,
      dbias: d.mlpOut.bias,
      dout: branch,
      inp: this.mlpAct,
      weight: p.mlpOut.weight,
      accumulateInput: false,
    });
    this.dropout?.mlpActivation?.inPlace(encoder, s.dmlpAct);
    (k.geglu ?? k.gelu).backward(encoder, { dinp: s.dmlpPre, dout: s.dmlpAct, inp: this.mlpPre });
    k.mlpIn.backward(encoder, {
      dinp,
      dweight: d.mlpIn.weight,
      dbias: d.mlpIn.bias,
      dout: s.dmlpPre,
      inp: this.mid.out,
      weight: p.mlpIn.weight,
      accumulateInput: accumulate,
    });
  }

  /** Attention block backward from dout (N, d) with input `inp`: parameter gradients added, dinp = or += d inp. */
  private attentionBackward(
    encoder: GPUCommandEncoder,
    s: BackwardScratch,
    dout: Tensor,
    inp: Tensor,
    dinp: Tensor,
    accumulate: boolean,
  ): void {
    const { k, p, d } = this;
    const branch = this.throughDropout(encoder, this.dropout?.attnOut ?? null, dout, s);
    k.attnOut.backward(encoder, {
      dinp: s.dcontext,
      dweight: d.attnOut.weight,
      dbias: d.attnOut.bias,
      dout: branch,
      inp: this.context,
      weight: p.attnOut.weight,
      accumulateInput: false,
    });
    k.attention(this.index).backward(encoder, {
      dqkv: s.dqkv,
      dout: s.dcontext,
      state: this.state,
      dropout: this.dropout?.probs,
    });
    k.qkv.backward(encoder, {
      dinp,
      dweight: d.qkv.weight,
      dbias: d.qkv.bias,
      dout: s.dqkv,
      inp,
      weight: p.qkv.weight,
      accumulateInput: accumulate,
    });
  }

  /**
   * The gradient a residual branch's projection sees: `dout` itself, or through the branch's dropout (into
   * s.ddropped: dout also flows on, unchanged, along the residual).
   */
  private throughDropout(encoder: GPUCommandEncoder, site: DropoutSite | null, dout: Tensor, s: BackwardScratch): Tensor {
    if (!site) return dout;
    if (!s.ddropped) throw new Error(`layer ${this.index}: hidden dropout needs the backward scratch's ddropped buffer`);
    site.copy(encoder, dout, s.ddropped);
    return s.ddropped;
  }
}
