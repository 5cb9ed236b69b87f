// Float64 reference of a whole encoder + MLM head transform for every family: ids -> headHidden (B, T, d), and back.
// Gradient convention: backward passes accumulate into `dparams` (a ModelParams from zerosLike); zeroing is the caller's.
import type { DropoutRates, ModelConfig } from '../../contract/model/model-config.ts';
import { planDropoutSites } from '../dropout-sites.ts';
import { type ModelParams, P, hasEmbeddingProjection } from '../layout.ts';
import { type AttentionShape, type DropMask, ropeTable, type RopeTable } from '../../kernels/reference/attention.ts';
import { dropoutFactor } from '../../kernels/reference/dropout.ts';
import { embeddingBackward, embeddingForward } from '../../kernels/reference/embedding.ts';
import { type Affine, type NormCache, affineOf, dropped, normBackward, normForward } from './blocks.ts';
import { positionIds } from '../position-ids.ts';
import { linearBackward, linearForward } from './linear.ts';
import { layerAttentionKind } from '../rotary.ts';
import {
  type LayerCache,
  type LayerContext,
  type LayerDropoutMasks,
  layerBackward,
  layerForward,
  layerParams,
} from './layers.ts';
import { type HeadCache, decoderBackward, headTransformBackward, headTransformForward } from './mlm-head.ts';

export interface EncoderInput {
  /** (B, T) token ids. */
  ids: Int32Array;
  /** (B, T) attention mask: 1 real token, 0 padding. Every sequence needs at least one real token. */
  mask: ArrayLike<number>;
  B: number;
  T: number;
  /** (B, T) segment ids for models with token-type embeddings; all 0 when absent. */
  tokenTypes?: Int32Array;
  /** Dropout of a training pass: the rates, and the key of each site of planDropoutSites (absent: none). */
  dropout?: { rates: DropoutRates; key: (site: number) => number };
}

export interface EncoderActivations {
  input: EncoderInput;
  /** (B, T) ids into the position table (null for rotary models). */
  positions: Int32Array | null;
  /** (B, T) token-type ids used (null when the model has none). */
  tokenTypes: Int32Array | null;
  embeddingNorm: NormCache;
  /** The dropout after the embeddings' norm (null: none). */
  embeddingDropout: DropMask;
  /** (B, T, E): the embeddings' output, after norm and dropout; hidden[0] itself, or its projection (ALBERT). */
  embedded: Float64Array;
  layers: LayerCache[];
  contexts: LayerContext[];
  /** Hidden states (B, T, d): the layers' input, then each layer's output (L + 1 entries). */
  hidden: Float64Array[];
  /** ModernBERT's final norm over the last layer (null for the BERT family). */
  finalNorm: NormCache | null;
  /** The encoder output the MLM head reads (B, T, d). */
  lastHidden: Float64Array;
  head: HeadCache;
  /** (B, T, E): the MLM head transform's output, which the decoder (or fused SPLADE head) multiplies by W_dec. */
  headHidden: Float64Array;
}

export function encoderForward(config: ModelConfig, params: ModelParams, input: EncoderInput): EncoderActivations {
  const { B, T } = input;
  const N = B * T;
  const { hidden: d, embeddingSize: E } = config;
  if (input.ids.length !== N || input.mask.length !== N) {
    throw new RangeError(
      `encoderForward: ids (${input.ids.length}) and mask (${input.mask.length}) must both hold B*T = ${N} entries`,
    );
  }
  const positions = config.positions === 'rotary' ? null : positionIds(config, input.ids, B, T);
  const tokenTypes = config.typeVocabSize > 0 ? (input.tokenTypes ?? new Int32Array(N)) : null;
  const sum = new Float64Array(N * E);
  embeddingForward(sum, input.ids, params[P.wordEmbeddings], N, E, false);
  if (positions) embeddingForward(sum, positions, params[P.positionEmbeddings], N, E, true);
  if (tokenTypes) embeddingForward(sum, tokenTypes, params[P.tokenTypeEmbeddings], N, E, true);
  const embeddingNorm = normForward(sum, affineOf(params, P.embeddingNorm), N, E, config.normEps);

  const masks = dropoutMasks(config, input);
  const embeddingDropout = masks?.embeddings ?? null;
  const contexts = layerContexts(config, input).map((context, i) => (masks ? { ...context, dropout: masks.layers[i] } : context));
  const embedded = dropped(embeddingNorm.out, embeddingDropout);
  const hidden = [
    hasEmbeddingProjection(config) ? projected(embedded, affineOf(params, P.embeddingProjection), N, E, d) : embedded,
  ];
  const layers: LayerCache[] = [];
  for (let i = 0; i < config.layers; i++) {
    const cache = layerForward(hidden[i], layerParams(config, params, i), contexts[i]);
    layers.push(cache);
    hidden.push(cache.out);
  }
  const last = hidden[config.layers];
  const finalNorm =
    config.structure === 'pre-norm' ? normForward(last, affineOf(params, P.finalNorm), N, d, config.normEps) : null;
  const lastHidden = finalNorm ? finalNorm.out : last;
  const head = headTransformForward(config, params, lastHidden, N);
  return {
    input,
    positions,
    tokenTypes,
    embeddingNorm,
    embeddingDropout,
    embedded,
    layers,
    contexts,
    hidden,
    finalNorm,
    lastHidden,
    head,
    headHidden: head.norm.out,
  };
}

/** ALBERT's embedding_hidden_mapping_in: (N, E) -> (N, d). */
function projected(embedded: Float64Array, projection: Affine, N: number, E: number, d: number): Float64Array {
  const out = new Float64Array(N * d);
  linearForward(out, embedded, projection.weight, projection.bias, N, E, d);
  return out;
}

export interface DecoderGradients {
  /** d loss / d W_dec (V, d), added to the word embeddings' gradient when tied. */
  ddecoderWeight?: Float64Array;
  /** d loss / d b_dec (V). */
  ddecoderBias?: Float64Array;
}

/**
 * Accumulates into `dparams` the gradient of every parameter given dheadHidden (B, T, d) and, optionally, the
 * decoder gradients a SPLADE head computed. Word-embedding rows looked up with the pad id get no lookup gradient
 * (nn.Embedding padding_idx), as RoBERTa's position rows at the pad index; a sinusoidal (frozen) position table none.
 */
export function encoderBackward(
  config: ModelConfig,
  params: ModelParams,
  acts: EncoderActivations,
  dheadHidden: Float64Array,
  dparams: ModelParams,
  decoder: DecoderGradients = {},
): void {
  const { B, T } = acts.input;
  const N = B * T;
  const { hidden: d, embeddingSize: E } = config;
  addDecoderGradients(config, dparams, decoder);
  let dh = headTransformBackward(config, params, dparams, dheadHidden, acts.head, N);
  if (acts.finalNorm) {
    const dlast = new Float64Array(N * d);
    normBackward(dlast, affineOf(dparams, P.finalNorm), dh, acts.finalNorm, affineOf(params, P.finalNorm), N, d);
    dh = dlast;
  }
  for (let i = config.layers - 1; i >= 0; i--) {
    dh = layerBackward(dh, layerParams(config, dparams, i), acts.layers[i], layerParams(config, params, i), acts.contexts[i]);
  }
  let dembedded = dh;
  if (hasEmbeddingProjection(config)) {
    dembedded = new Float64Array(N * E);
    const projection = affineOf(params, P.embeddingProjection);
    const dprojection = affineOf(dparams, P.embeddingProjection);
    linearBackward(dembedded, dprojection.weight, dprojection.bias, dh, acts.embedded, projection.weight, N, E, d);
  }
  const dsum = new Float64Array(N * E);
  normBackward(
    dsum,
    affineOf(dparams, P.embeddingNorm),
    dropped(dembedded, acts.embeddingDropout),
    acts.embeddingNorm,
    affineOf(params, P.embeddingNorm),
    N,
    E,
  );
  embeddingBackward(dparams[P.wordEmbeddings], dsum, acts.input.ids, N, E, config.embeddingPaddingIdx);
  // DistilBERT's sinusoidal table is frozen in transformers (requires_grad = False): it gets no gradient.
  if (acts.positions && !config.sinusoidalPositions) {
    const paddingIdx = config.positions === 'roberta' ? config.padTokenId : -1;
    embeddingBackward(dparams[P.positionEmbeddings], dsum, acts.positions, N, E, paddingIdx);
  }
  if (acts.tokenTypes) embeddingBackward(dparams[P.tokenTypeEmbeddings], dsum, acts.tokenTypes, N, E, -1);
}

/** The MLM logits' backward on top of encoderBackward: dlogits (B, T, V) -> all parameter gradients. */
export function mlmBackward(
  config: ModelConfig,
  params: ModelParams,
  acts: EncoderActivations,
  dlogits: Float64Array,
  dparams: ModelParams,
): void {
  const N = acts.input.B * acts.input.T;
  const dheadHidden = decoderBackward(config, params, dparams, dlogits, acts.headHidden, N);
  encoderBackward(config, params, acts, dheadHidden, dparams);
}

function addDecoderGradients(config: ModelConfig, dparams: ModelParams, decoder: DecoderGradients): void {
  const addInto = (target: Float64Array, source: Float64Array, what: string) => {
    if (source.length !== target.length) throw new RangeError(`${what}: ${source.length} values, expected ${target.length}`);
    for (let i = 0; i < source.length; i++) target[i] += source[i];
  };
  if (decoder.ddecoderWeight) {
    const name = config.tieWordEmbeddings ? P.wordEmbeddings : P.decoderWeight;
    addInto(dparams[name], decoder.ddecoderWeight, 'ddecoderWeight');
  }
  if (decoder.ddecoderBias) {
    if (!config.decoderBias) throw new Error('ddecoderBias given, but the model has no decoder bias');
    addInto(dparams[P.decoderBias], decoder.ddecoderBias, 'ddecoderBias');
  }
}

/** The pass's dropout masks, numbered as the GPU pass numbers its sites (null: no dropout). */
function dropoutMasks(config: ModelConfig, input: EncoderInput): { embeddings: DropMask; layers: LayerDropoutMasks[] } | null {
  if (!input.dropout) return null;
  const { rates, key } = input.dropout;
  const plan = planDropoutSites(config.layers, rates);
  const mask = (site: number | null, rate: number): DropMask => {
    if (site === null) return null;
    const siteKey = key(site);
    return (i) => dropoutFactor(siteKey, i, rate);
  };
  return {
    embeddings: mask(plan.embeddings, rates.embeddings),
    layers: plan.layers.map((sites) => ({
      probs: mask(sites.probs, rates.attentionProbs),
      attnOut: mask(sites.attnOut, rates.attentionOutput),
      mlpActivation: mask(sites.mlpActivation, rates.mlpActivation),
      mlpOutput: mask(sites.mlpOutput, rates.mlpOutput),
    })),
  };
}

/** Per-layer attention shape, masking and rotary table (layerAttentionKind: ModernBERT's kinds, GTE's scaling). */
function layerContexts(config: ModelConfig, input: EncoderInput): LayerContext[] {
  const shape: AttentionShape = { B: input.B, T: input.T, NH: config.heads, hd: config.headDim };
  const tables = new Map<string, RopeTable | null>();
  return Array.from({ length: config.layers }, (_, i): LayerContext => {
    const { kind, rope, halfWindow } = layerAttentionKind(config, i);
    if (!tables.has(kind)) tables.set(kind, rope && ropeTable(input.T, config.headDim, rope));
    return { config, shape, masking: { mask: input.mask, halfWindow }, rope: tables.get(kind)! };
  });
}
