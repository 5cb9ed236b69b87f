// ONNX sub-graph of a whole encoder and its MLM head transform, as src/model/reference/encoder.ts computes it:
// ids (B, T) -> embeddings (absolute, RoBERTa or no positions; token types gathered by their ids where the family has
// two or more) -> post- or pre-norm layers (rotary and sliding windows where the family has them) -> headHidden (B, T, E).
import { OnnxDataType } from '../../io/formats/onnx-proto.ts';
import { ropeTable } from '../../kernels/host/rope-table.ts';
import { P, hasAttnNorm, hasEmbeddingProjection, type Part } from '../layout.ts';
import { layerAttentionKind } from '../rotary.ts';
import {
  type GraphContext,
  type RotaryInputs,
  activation,
  attention,
  geglu,
  layerNorm,
  linear,
  parameter,
} from './blocks-graph.ts';

/** What a padded key adds to an attention score: exp of it underflows to exactly 0, and it stays finite. */
const MASKED_SCORE = -1e9;

/** The graph's inputs as the encoder reads them. */
export interface EncoderInputs {
  /** (B, T) int64 token ids. */
  ids: string;
  /** (B, T) float32 attention mask: 1 real token, 0 padding. */
  mask: string;
  /**
   * (B, T) int64 token type (segment) ids, or a (1, 1) default expanded to (B, T); read only where the family has two or
   * more token types (BERT, ALBERT), as transformers gathers them. A family with one row (RoBERTa) adds that row.
   */
  tokenTypes: string;
  /**
   * A scalar the word embeddings are multiplied by (null: none): 1/k when the head is tied, since dividing the tied
   * matrix divides the embeddings too (src/model/rescale.ts).
   */
  wordScale: string | null;
}

/** headHidden (B, T, E): the MLM head transform's output, which the decoder multiplies by W_dec. */
export function encoderGraph(ctx: GraphContext, inputs: EncoderInputs): string {
  const { config } = ctx;
  let x = embeddings(ctx, inputs);
  const keyBias = paddingBias(ctx, inputs.mask);
  const kinds = new Map<string, { bias: string; rotary: RotaryInputs | null }>();
  for (let i = 0; i < config.layers; i++) {
    const kind = layerAttentionKind(config, i);
    if (!kinds.has(kind.kind)) {
      const bias = kind.halfWindow === null ? keyBias : windowBias(ctx, inputs.ids, keyBias, kind.halfWindow, kind.kind);
      kinds.set(kind.kind, { bias, rotary: kind.rope && rotaryInputs(ctx, inputs.ids, kind.rope, kind.kind) });
    }
    const { bias, rotary } = kinds.get(kind.kind)!;
    x = layer(ctx, x, i, bias, rotary);
  }
  if (config.structure === 'pre-norm') x = layerNorm(ctx, x, P.finalNorm, 'finalNorm');
  const dense = linear(ctx, x, P.headDense, 'head');
  return layerNorm(ctx, activation(ctx, dense, 'head'), P.headNorm, 'head');
}

/** Word + position + token-type embeddings, their LayerNorm (and ALBERT's projection): (B, T, d). */
function embeddings(ctx: GraphContext, { ids, wordScale, tokenTypes }: EncoderInputs): string {
  const { g, config } = ctx;
  const scope = 'embeddings';
  const words = g.op('Gather', [parameter(ctx, P.wordEmbeddings), ids], scope);
  let sum = wordScale ? g.op('Mul', [words, wordScale], scope) : words;
  if (config.positions === 'absolute') {
    const T = g.op('Shape', [ids], scope, { start: 1, end: 2 });
    const table = g.op(
      'Slice',
      [parameter(ctx, P.positionEmbeddings), g.indices('const.zero-1d', [0]), T, g.indices('const.axes-0', [0])],
      scope,
    ); // (T, E)
    sum = g.op('Add', [sum, table], scope);
  }
  if (config.positions === 'roberta')
    sum = g.op('Add', [sum, g.op('Gather', [parameter(ctx, P.positionEmbeddings), robertaPositions(ctx, ids)], scope)], scope);
  if (config.typeVocabSize > 1) {
    // a (1, 1) default is expanded to (B, T) first: onnxruntime fuses Add + LayerNormalization into a kernel that
    // does not broadcast its second operand
    const typeIds = g.op('Expand', [tokenTypes, g.op('Shape', [ids], scope)], scope); // (B, T)
    const types = g.op('Gather', [parameter(ctx, P.tokenTypeEmbeddings), typeIds], scope); // (B, T, E)
    sum = g.op('Add', [sum, types], scope);
  } else if (config.typeVocabSize === 1) {
    const typeZero = g.op('Gather', [parameter(ctx, P.tokenTypeEmbeddings), g.indices('const.int.zero', [0], [])], scope); // (E)
    sum = g.op('Add', [sum, typeZero], scope);
  }
  const normed = layerNorm(ctx, sum, P.embeddingNorm, scope);
  // ALBERT: embedding size E -> hidden size d
  return hasEmbeddingProjection(config) ? linear(ctx, normed, P.embeddingProjection, scope) : normed;
}

/** transformers' create_position_ids_from_input_ids: cumsum(ids != pad) * (ids != pad) + pad, (B, T) int64. */
function robertaPositions(ctx: GraphContext, ids: string): string {
  const { g, config } = ctx;
  const scope = 'embeddings.positions';
  const pad = g.indices('const.pad-id', [config.padTokenId], []);
  const real = g.op('Cast', [g.op('Not', [g.op('Equal', [ids, pad], scope)], scope)], scope, { to: OnnxDataType.INT64 });
  const counted = g.op('CumSum', [real, g.indices('const.int.one', [1], [])], scope);
  return g.op('Add', [g.op('Mul', [counted, real], scope), pad], scope);
}

/** (B, 1, 1, T): 0 on real keys, MASKED_SCORE on padding. */
function paddingBias(ctx: GraphContext, mask: string): string {
  const { g } = ctx;
  const scope = 'attention-mask';
  const padding = g.op('Sub', [g.scalar('const.one', 1), mask], scope);
  const bias = g.op('Mul', [padding, g.scalar('const.masked-score', MASKED_SCORE)], scope);
  return g.op('Unsqueeze', [bias, g.indices('const.axes-1-2', [1, 2])], scope);
}

/** (B, 1, T, T): the padding bias plus MASKED_SCORE where |i - j| > halfWindow (a local layer's sliding window). */
function windowBias(ctx: GraphContext, ids: string, keyBias: string, halfWindow: number, kind: string): string {
  const { g } = ctx;
  const scope = `attention-mask.${kind}`;
  const T = g.op('Squeeze', [g.op('Shape', [ids], scope, { start: 1, end: 2 })], scope);
  const index = g.op('Range', [g.indices('const.int.zero', [0], []), T, g.indices('const.int.one', [1], [])], scope);
  const rows = g.op('Unsqueeze', [index, g.indices('const.axes-1', [1])], scope);
  const distance = g.op('Abs', [g.op('Sub', [rows, index], scope)], scope); // (T, T)
  const far = g.op(
    'Cast',
    [g.op('Greater', [distance, g.indices(`const.half-window.${halfWindow}`, [halfWindow], [])], scope)],
    scope,
    { to: OnnxDataType.FLOAT },
  );
  return g.op('Add', [keyBias, g.op('Mul', [far, g.scalar('const.masked-score', MASKED_SCORE)], scope)], scope);
}

/** cos and sin (T, hd) of one layer kind's frequencies, from tables of every position computed in float64. */
function rotaryInputs(ctx: GraphContext, ids: string, frequencies: Float64Array, kind: string): RotaryInputs {
  const { g, config } = ctx;
  const scope = `rotary.${kind}`;
  const table = ropeTable(config.maxPositions, config.headDim, frequencies);
  const T = g.op('Shape', [ids], scope, { start: 1, end: 2 });
  const rows = (name: string, values: Float64Array) => {
    const stored = g.floats(`${scope}.${name}`, [config.maxPositions, table.half], Float32Array.from(values));
    const sliced = g.op('Slice', [stored, g.indices('const.zero-1d', [0]), T, g.indices('const.axes-0', [0])], scope);
    return g.op('Concat', [sliced, sliced], scope, { axis: -1 }); // (T, hd): both halves rotate by the same angle
  };
  return { cos: rows('cos', table.cos), sin: rows('sin', table.sin) };
}

/** One encoder layer: post-norm (BERT family) or pre-norm (ModernBERT), as src/model/reference/layers.ts. */
function layer(ctx: GraphContext, x: string, application: number, bias: string, rotary: RotaryInputs | null): string {
  const { g, config } = ctx;
  const i = config.layerWeights[application];
  const at = (f: (i: number, part: Part) => string) => (part: Part) => f(i, part);
  const scope = `layers.${application}`;
  const names = { qkv: at(P.qkv), out: at(P.attnOut) };
  const mlp = (h: string) => {
    const pre = linear(ctx, h, at(P.mlpIn), `${scope}.mlp`);
    const act = config.mlp === 'geglu' ? geglu(ctx, pre, `${scope}.mlp`) : activation(ctx, pre, `${scope}.mlp`);
    return linear(ctx, act, at(P.mlpOut), `${scope}.mlp`);
  };
  if (config.structure === 'post-norm') {
    const attended = attention(ctx, x, names, bias, rotary, `${scope}.attention`);
    const h = layerNorm(ctx, g.op('Add', [attended, x], scope), at(P.attnOutNorm), scope);
    return layerNorm(ctx, g.op('Add', [mlp(h), h], scope), at(P.mlpOutNorm), scope);
  }
  const normed = hasAttnNorm(config, i) ? layerNorm(ctx, x, at(P.attnNorm), scope) : x;
  const h = g.op('Add', [x, attention(ctx, normed, names, bias, rotary, `${scope}.attention`)], scope);
  return g.op('Add', [h, mlp(layerNorm(ctx, h, at(P.mlpNorm), scope))], scope);
}
