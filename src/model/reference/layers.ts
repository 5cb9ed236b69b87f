// Float64 encoder layers: the BERT-family post-norm layer and ModernBERT's pre-norm layer, forward and backward.
//   post-norm (BERT, RoBERTa, DistilBERT, GTE): h = LN1(x + Attn(x));  y = LN2(h + MLP(h))
//   pre-norm (ModernBERT):                 h = x + Attn(LNa(x));  y = h + GeGLU-MLP(LNm(h)); layer 0 has no LNa
import type { ModelConfig } from '../../contract/model/model-config.ts';
import { type ModelParams, type Part, P, hasAttnNorm } from '../layout.ts';
import type { AttentionMasking, AttentionShape, DropMask, RopeTable } from '../../kernels/reference/attention.ts';
import {
  type Affine,
  type AttentionBlock,
  type AttentionBlockCache,
  type AttentionDropout,
  type MlpBlock,
  type MlpBlockCache,
  type MlpDropout,
  type MlpKind,
  type NormCache,
  affineOf,
  attentionBlockBackward,
  attentionBlockForward,
  mlpBlockBackward,
  mlpBlockForward,
  normBackward,
  normForward,
} from './blocks.ts';

/** What one layer needs besides its parameters. */
export interface LayerContext {
  config: ModelConfig;
  shape: AttentionShape;
  masking: AttentionMasking;
  /** Rotary table of this layer's kind (ModernBERT: global or local theta; GTE: one); null for the BERT family. */
  rope: RopeTable | null;
  /** Dropout masks of a training pass (absent: none). */
  dropout?: LayerDropoutMasks;
}

/** A layer's dropout: on the attention probabilities, the attention output, the MLP's activation and output. */
export interface LayerDropoutMasks {
  probs: DropMask;
  attnOut: DropMask;
  mlpActivation: DropMask;
  mlpOutput: DropMask;
}

function attentionDropout(ctx: LayerContext): AttentionDropout | undefined {
  return ctx.dropout && { probs: ctx.dropout.probs, out: ctx.dropout.attnOut };
}

/** The MLP's dropout: on its activation (ModernBERT, GTE) and on its output projection (BERT family, GTE). */
function mlpDropout(ctx: LayerContext): MlpDropout | undefined {
  return ctx.dropout && { act: ctx.dropout.mlpActivation, out: ctx.dropout.mlpOutput };
}

/** Views of layer i's parameters (or gradients: same names, same shapes). */
export interface LayerParams {
  attnNorm: Affine | null;
  attention: AttentionBlock;
  attnOutNorm: Affine | null;
  mlpNorm: Affine | null;
  mlp: MlpBlock;
  mlpOutNorm: Affine | null;
}

/** Layer application i's parameters: the stored layer config.layerWeights[i] (ALBERT's are shared). */
export function layerParams(config: ModelConfig, params: ModelParams, application: number): LayerParams {
  const i = config.layerWeights[application];
  const at = (f: (i: number, part: Part) => string) => (part: Part) => f(i, part);
  const post = config.structure === 'post-norm';
  return {
    attnNorm: hasAttnNorm(config, i) ? affineOf(params, at(P.attnNorm)) : null,
    attention: { qkv: affineOf(params, at(P.qkv)), out: affineOf(params, at(P.attnOut)) },
    attnOutNorm: post ? affineOf(params, at(P.attnOutNorm)) : null,
    mlpNorm: post ? null : affineOf(params, at(P.mlpNorm)),
    mlp: { in: affineOf(params, at(P.mlpIn)), out: affineOf(params, at(P.mlpOut)) },
    mlpOutNorm: post ? affineOf(params, at(P.mlpOutNorm)) : null,
  };
}

export interface LayerCache {
  attnNorm: NormCache | null;
  attention: AttentionBlockCache;
  /** Post-norm: LN1 of the attention residual. Pre-norm: LN of h before the MLP. */
  midNorm: NormCache;
  mlp: MlpBlockCache;
  /** Post-norm only: LN2 of the MLP residual. */
  outNorm: NormCache | null;
  out: Float64Array; // (N, d)
}

export function layerForward(x: Float64Array, p: LayerParams, ctx: LayerContext): LayerCache {
  const { config, shape, masking, rope } = ctx;
  const N = shape.B * shape.T;
  const { hidden: d, intermediate: I, normEps: eps } = config;
  const kind = mlpKind(config);
  if (config.structure === 'post-norm') {
    const attention = attentionBlockForward(x, p.attention, shape, masking, rope, attentionDropout(ctx));
    const midNorm = normForward(add(attention.out, x), p.attnOutNorm!, N, d, eps);
    const mlp = mlpBlockForward(midNorm.out, p.mlp, kind, N, d, I, mlpDropout(ctx));
    const outNorm = normForward(add(mlp.out, midNorm.out), p.mlpOutNorm!, N, d, eps);
    return { attnNorm: null, attention, midNorm, mlp, outNorm, out: outNorm.out };
  }
  const attnNorm = p.attnNorm ? normForward(x, p.attnNorm, N, d, eps) : null;
  const attention = attentionBlockForward(attnNorm ? attnNorm.out : x, p.attention, shape, masking, rope, attentionDropout(ctx));
  const h = add(x, attention.out);
  const midNorm = normForward(h, p.mlpNorm!, N, d, eps);
  const mlp = mlpBlockForward(midNorm.out, p.mlp, kind, N, d, I, mlpDropout(ctx));
  return { attnNorm, attention, midNorm, mlp, outNorm: null, out: add(h, mlp.out) };
}

/** Accumulates parameter gradients into g and returns d(layer input) given dy = d(layer output). */
export function layerBackward(
  dy: Float64Array,
  g: LayerParams,
  cache: LayerCache,
  p: LayerParams,
  ctx: LayerContext,
): Float64Array {
  const { config, shape, rope } = ctx;
  const N = shape.B * shape.T;
  const { hidden: d, intermediate: I } = config;
  const kind = mlpKind(config);
  if (config.structure === 'post-norm') {
    const dr2 = new Float64Array(N * d);
    normBackward(dr2, g.mlpOutNorm!, dy, cache.outNorm!, p.mlpOutNorm!, N, d);
    const dh = Float64Array.from(dr2); // residual branch
    mlpBlockBackward(dh, g.mlp, dr2, cache.mlp, p.mlp, kind, N, d, I, mlpDropout(ctx));
    const dr1 = new Float64Array(N * d);
    normBackward(dr1, g.attnOutNorm!, dh, cache.midNorm, p.attnOutNorm!, N, d);
    const dx = Float64Array.from(dr1);
    attentionBlockBackward(dx, g.attention, dr1, cache.attention, p.attention, shape, rope, attentionDropout(ctx));
    return dx;
  }
  const dmid = new Float64Array(N * d);
  mlpBlockBackward(dmid, g.mlp, dy, cache.mlp, p.mlp, kind, N, d, I, mlpDropout(ctx));
  const dh = Float64Array.from(dy);
  normBackward(dh, g.mlpNorm!, dmid, cache.midNorm, p.mlpNorm!, N, d);
  const dx = Float64Array.from(dh);
  if (!cache.attnNorm) {
    attentionBlockBackward(dx, g.attention, dh, cache.attention, p.attention, shape, rope, attentionDropout(ctx));
    return dx;
  }
  const dnormed = new Float64Array(N * d);
  attentionBlockBackward(dnormed, g.attention, dh, cache.attention, p.attention, shape, rope, attentionDropout(ctx));
  normBackward(dx, g.attnNorm!, dnormed, cache.attnNorm, p.attnNorm!, N, d);
  return dx;
}

function mlpKind(config: ModelConfig): MlpKind {
  return config.mlp === 'geglu' ? 'geglu' : config.activation;
}

function add(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] + b[i];
  return out;
}
