// Float64 sub-blocks shared by every encoder layer: LayerNorm with cache, the attention block and the MLP block.
// Each forward returns the activations its backward needs; each backward accumulates into the gradient views.
import type { ModelParams, Part } from '../layout.ts';
import { gegluBackward, gegluForward, geluBackward, geluForward } from '../../kernels/reference/activations.ts';
import {
  type AttentionMasking,
  type AttentionShape,
  type DropMask,
  type RopeTable,
  attentionBackward,
  attentionForward,
  ropeBackward,
  ropeForward,
} from '../../kernels/reference/attention.ts';
import { layerNormBackward, layerNormForward } from '../../kernels/reference/layernorm.ts';
import { linearBackward, linearForward } from './linear.ts';

/** A weight and an optional bias (a linear layer or a LayerNorm), as views into ModelParams. */
export interface Affine {
  weight: Float64Array;
  bias: Float64Array | null;
}

export function affineOf(params: ModelParams, name: (part: Part) => string): Affine {
  const weight = params[name('weight')];
  if (!weight) throw new Error(`parameter ${name('weight')} is missing`);
  return { weight, bias: params[name('bias')] ?? null };
}

/** x with dropout applied (a copy), or x itself without. */
export function dropped(x: Float64Array, drop: DropMask): Float64Array {
  return drop ? x.map((value, i) => value * drop(i)) : x;
}

// ---------------------------------------------------------------- LayerNorm

export interface NormCache {
  inp: Float64Array; // (N, C)
  out: Float64Array; // (N, C)
  mean: Float64Array; // (N)
  rstd: Float64Array; // (N)
}

export function normForward(inp: Float64Array, norm: Affine, N: number, C: number, eps: number): NormCache {
  const cache = { inp, out: new Float64Array(N * C), mean: new Float64Array(N), rstd: new Float64Array(N) };
  layerNormForward(cache.out, cache.mean, cache.rstd, inp, norm.weight, norm.bias, N, C, eps);
  return cache;
}

export function normBackward(
  dinp: Float64Array,
  dnorm: Affine,
  dout: Float64Array,
  cache: NormCache,
  norm: Affine,
  N: number,
  C: number,
): void {
  layerNormBackward(dinp, dnorm.weight, dnorm.bias, dout, cache.inp, norm.weight, cache.mean, cache.rstd, N, C);
}

// ---------------------------------------------------------------- attention block

export interface AttentionBlock {
  qkv: Affine; // (3d, d), (3d)
  out: Affine; // (d, d), (d)
}

export interface AttentionBlockCache {
  inp: Float64Array; // (N, d)
  qkv: Float64Array; // (N, 3d) projections, after rotary when there is one
  probs: Float64Array; // (B, NH, T, T)
  context: Float64Array; // (N, d) attention output before the output projection
  out: Float64Array; // (N, d), after the output dropout
}

/** Dropout of the attention block: on the probabilities and on the output projection (null: none). */
export interface AttentionDropout {
  probs: DropMask;
  out: DropMask;
}

const NO_ATTENTION_DROPOUT: AttentionDropout = { probs: null, out: null };

/** out = Wo . attention(rope(Wqkv . inp)); rope may be null (BERT family). */
export function attentionBlockForward(
  inp: Float64Array,
  block: AttentionBlock,
  shape: AttentionShape,
  masking: AttentionMasking,
  rope: RopeTable | null,
  drop: AttentionDropout = NO_ATTENTION_DROPOUT,
): AttentionBlockCache {
  const { B, T, NH, hd } = shape;
  const N = B * T;
  const d = NH * hd;
  const projected = new Float64Array(N * 3 * d);
  linearForward(projected, inp, block.qkv.weight, block.qkv.bias, N, d, 3 * d);
  let qkv = projected;
  if (rope) {
    qkv = new Float64Array(projected.length);
    ropeForward(qkv, projected, rope, B, T, NH);
  }
  const probs = new Float64Array(B * NH * T * T);
  const context = new Float64Array(N * d);
  attentionForward(context, probs, qkv, shape, masking, drop.probs);
  const out = new Float64Array(N * d);
  linearForward(out, context, block.out.weight, block.out.bias, N, d, d);
  return { inp, qkv, probs, context, out: dropped(out, drop.out) };
}

export function attentionBlockBackward(
  dinp: Float64Array,
  dblock: AttentionBlock,
  dout: Float64Array,
  cache: AttentionBlockCache,
  block: AttentionBlock,
  shape: AttentionShape,
  rope: RopeTable | null,
  drop: AttentionDropout = NO_ATTENTION_DROPOUT,
): void {
  const { B, T, NH, hd } = shape;
  const N = B * T;
  const d = NH * hd;
  const dcontext = new Float64Array(N * d);
  linearBackward(dcontext, dblock.out.weight, dblock.out.bias, dropped(dout, drop.out), cache.context, block.out.weight, N, d, d);
  const dqkv = new Float64Array(N * 3 * d);
  attentionBackward(dqkv, dcontext, cache.probs, cache.qkv, shape, drop.probs);
  let dprojected = dqkv;
  if (rope) {
    dprojected = new Float64Array(dqkv.length);
    ropeBackward(dprojected, dqkv, rope, B, T, NH);
  }
  linearBackward(dinp, dblock.qkv.weight, dblock.qkv.bias, dprojected, cache.inp, block.qkv.weight, N, d, 3 * d);
}

// ---------------------------------------------------------------- MLP block

export interface MlpBlock {
  in: Affine; // (I, d) or (2I, d) for GeGLU
  out: Affine; // (d, I)
}

export interface MlpBlockCache {
  inp: Float64Array; // (N, d)
  pre: Float64Array; // (N, I) or (N, 2I)
  act: Float64Array; // (N, I), after the activation dropout
  out: Float64Array; // (N, d), after the output dropout
}

/** Dropout of the MLP block: on the activation (ModernBERT) or on the output projection (BERT family), null: none. */
export interface MlpDropout {
  act: DropMask;
  out: DropMask;
}

const NO_MLP_DROPOUT: MlpDropout = { act: null, out: null };

/** The MLP's activation: exact GELU, gelu_new (tanh approximation), or GeGLU's gelu(first half) * second half. */
export type MlpKind = 'gelu' | 'gelu_new' | 'geglu';

/** out = Wout . act(Win . inp). */
export function mlpBlockForward(
  inp: Float64Array,
  block: MlpBlock,
  kind: MlpKind,
  N: number,
  d: number,
  I: number,
  drop: MlpDropout = NO_MLP_DROPOUT,
): MlpBlockCache {
  const width = kind === 'geglu' ? 2 * I : I;
  const pre = new Float64Array(N * width);
  linearForward(pre, inp, block.in.weight, block.in.bias, N, d, width);
  const act = new Float64Array(N * I);
  if (kind === 'geglu') gegluForward(act, pre, N, I);
  else geluForward(act, pre, kind === 'gelu_new');
  const kept = dropped(act, drop.act);
  const out = new Float64Array(N * d);
  linearForward(out, kept, block.out.weight, block.out.bias, N, I, d);
  return { inp, pre, act: kept, out: dropped(out, drop.out) };
}

export function mlpBlockBackward(
  dinp: Float64Array,
  dblock: MlpBlock,
  dout: Float64Array,
  cache: MlpBlockCache,
  block: MlpBlock,
  kind: MlpKind,
  N: number,
  d: number,
  I: number,
  drop: MlpDropout = NO_MLP_DROPOUT,
): void {
  const width = kind === 'geglu' ? 2 * I : I;
  const dkept = new Float64Array(N * I);
  linearBackward(dkept, dblock.out.weight, dblock.out.bias, dropped(dout, drop.out), cache.act, block.out.weight, N, I, d);
  const dact = dropped(dkept, drop.act);
  const dpre = new Float64Array(N * width);
  if (kind === 'geglu') gegluBackward(dpre, dact, cache.pre, N, I);
  else geluBackward(dpre, dact, cache.pre, kind === 'gelu_new');
  linearBackward(dinp, dblock.in.weight, dblock.in.bias, dpre, cache.inp, block.in.weight, N, d, width);
}
