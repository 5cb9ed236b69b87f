// ONNX sub-graphs of the encoder's blocks, as src/model/reference/blocks.ts computes them: linear layers, LayerNorm,
// exact (erf) GELU, gelu_new and GeGLU, multi-head self-attention with an additive mask and optional rotary embeddings.
import type { HostTensor } from '../../io/host-tensor.ts';
import type { ModelConfig } from '../../contract/model/model-config.ts';
import type { Part } from '../layout.ts';
import { float, type OnnxGraphBuilder } from './graph-builder.ts';

/** What every sub-graph needs: the graph, the model's config and its parameters by internal name. */
export interface GraphContext {
  g: OnnxGraphBuilder;
  config: ModelConfig;
  params: Map<string, HostTensor>;
}

/** A parameter as an initializer under its internal name, stored as loaded. */
export function parameter(ctx: GraphContext, name: string): string {
  if (ctx.g.has(name)) return name;
  const tensor = ctx.params.get(name);
  if (!tensor) throw new Error(`ONNX export: parameter ${name} is missing from the model`);
  return ctx.g.floats(name, tensor.shape, tensor.data);
}

/** A linear weight (out, in) stored once, transposed to (in, out) for MatMul, as "<name>.T". */
function transposedWeight(ctx: GraphContext, name: string): string {
  const stored = `${name}.T`;
  if (ctx.g.has(stored)) return stored;
  const tensor = ctx.params.get(name);
  if (!tensor) throw new Error(`ONNX export: parameter ${name} is missing from the model`);
  const [out, inp] = tensor.shape;
  const data = new Float32Array(out * inp);
  for (let o = 0; o < out; o++) for (let i = 0; i < inp; i++) data[i * out + o] = tensor.data[o * inp + i];
  return ctx.g.floats(stored, [inp, out], data);
}

/** y (..., out) = x (..., in) . W^T + b; the bias only where the model has one. */
export function linear(ctx: GraphContext, x: string, name: (part: Part) => string, scope: string): string {
  const y = ctx.g.op('MatMul', [x, transposedWeight(ctx, name('weight'))], scope);
  const bias = name('bias');
  return ctx.params.has(bias) ? ctx.g.op('Add', [y, parameter(ctx, bias)], scope) : y;
}

/** LayerNorm over the last axis with the config's epsilon; the shift only where the model has one. */
export function layerNorm(ctx: GraphContext, x: string, name: (part: Part) => string, scope: string): string {
  const inputs = [x, parameter(ctx, name('weight'))];
  if (ctx.params.has(name('bias'))) inputs.push(parameter(ctx, name('bias')));
  return ctx.g.op('LayerNormalization', inputs, scope, { axis: -1, epsilon: float(ctx.config.normEps) });
}

/** Exact GELU: x * 0.5 * (1 + erf(x / sqrt 2)). */
export function gelu(ctx: GraphContext, x: string, scope: string): string {
  const { g } = ctx;
  const erf = g.op('Erf', [g.op('Div', [x, g.scalar('const.sqrt2', Math.SQRT2)], scope)], scope);
  const half = g.op('Mul', [x, g.scalar('const.half', 0.5)], scope);
  return g.op('Mul', [half, g.op('Add', [erf, g.scalar('const.one', 1)], scope)], scope);
}

/** gelu_new (tanh approximation, ALBERT): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
function geluTanh(ctx: GraphContext, x: string, scope: string): string {
  const { g } = ctx;
  const cube = g.op('Mul', [g.op('Mul', [x, x], scope), x], scope);
  const inner = g.op('Add', [x, g.op('Mul', [cube, g.scalar('const.tanh-cubic', 0.044715)], scope)], scope);
  const t = g.op('Tanh', [g.op('Mul', [inner, g.scalar('const.sqrt-2-over-pi', Math.sqrt(2 / Math.PI))], scope)], scope);
  const half = g.op('Mul', [x, g.scalar('const.half', 0.5)], scope);
  return g.op('Mul', [half, g.op('Add', [t, g.scalar('const.one', 1)], scope)], scope);
}

/** The config's activation of the MLP and the head transform: exact GELU or gelu_new. */
export function activation(ctx: GraphContext, x: string, scope: string): string {
  return ctx.config.activation === 'gelu_new' ? geluTanh(ctx, x, scope) : gelu(ctx, x, scope);
}

/** GeGLU: gelu(first half) * second half of the last axis (ModernBERT's Wi output, width 2I). */
export function geglu(ctx: GraphContext, x: string, scope: string): string {
  const I = ctx.config.intermediate;
  const [input, gate] = ctx.g.opMulti('Split', [x, ctx.g.indices(`const.split.${I}x2`, [I, I])], scope, 2, { axis: -1 });
  return ctx.g.op('Mul', [gelu(ctx, input, scope), gate], scope);
}

/** Rotary cos and sin of positions 0..T-1 for one layer kind: (T, hd) each, sliced from the stored (maxPositions, hd/2). */
export interface RotaryInputs {
  cos: string;
  sin: string;
}

/**
 * Self-attention of x (B, T, d) -> (B, T, d) before the output projection's residual: fused q/k/v, heads, optional
 * rotary embeddings on q and k, scores + maskBias (B, 1, 1 or T, T), softmax, values, output projection.
 */
export function attention(
  ctx: GraphContext,
  x: string,
  names: { qkv: (part: Part) => string; out: (part: Part) => string },
  maskBias: string,
  rotary: RotaryInputs | null,
  scope: string,
): string {
  const { g, config } = ctx;
  const { heads: NH, headDim: hd, hidden: d } = config;
  const qkv = linear(ctx, x, names.qkv, scope); // (B, T, 3d)
  const parts = g.opMulti('Split', [qkv, g.indices(`const.split.${d}x3`, [d, d, d])], scope, 3, { axis: -1 });
  const headsShape = g.indices(`const.shape.heads`, [0, 0, NH, hd]);
  const [q, k, v] = parts.map((part) =>
    g.op('Transpose', [g.op('Reshape', [part, headsShape], scope)], scope, { perm: [0, 2, 1, 3] }),
  ); // (B, NH, T, hd)
  const [qr, kr] = rotary ? [rotate(ctx, q, rotary, scope), rotate(ctx, k, rotary, scope)] : [q, k];
  const kt = g.op('Transpose', [kr], scope, { perm: [0, 1, 3, 2] }); // (B, NH, hd, T)
  const scores = g.op(
    'Mul',
    [g.op('MatMul', [qr, kt], scope), g.scalar(`const.attention-scale.${hd}`, 1 / Math.sqrt(hd))],
    scope,
  );
  const probs = g.op('Softmax', [g.op('Add', [scores, maskBias], scope)], scope, { axis: -1 }); // (B, NH, T, T)
  const context = g.op('Transpose', [g.op('MatMul', [probs, v], scope)], scope, { perm: [0, 2, 1, 3] }); // (B, T, NH, hd)
  const merged = g.op('Reshape', [context, g.indices('const.shape.merge-heads', [0, 0, d])], scope); // (B, T, d)
  return linear(ctx, merged, names.out, scope);
}

/** x cos + rotate_half(x) sin, rotate_half(x) = [-x2, x1] over the halves of the head axis (x: B, NH, T, hd). */
function rotate(ctx: GraphContext, x: string, rotary: RotaryInputs, scope: string): string {
  const { g } = ctx;
  const half = ctx.config.headDim / 2;
  const [x1, x2] = g.opMulti('Split', [x, g.indices(`const.split.${half}x2`, [half, half])], scope, 2, { axis: -1 });
  const rotated = g.op('Concat', [g.op('Neg', [x2], scope), x1], scope, { axis: -1 });
  return g.op('Add', [g.op('Mul', [x, rotary.cos], scope), g.op('Mul', [rotated, rotary.sin], scope)], scope);
}
