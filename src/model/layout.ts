// The uniform internal parameter layout of every supported encoder: names, shapes and which ones a config has.
// Linear weights keep PyTorch's [out, in] orientation; q, k and v are always fused into one [3d, d] matrix.
import type { ModelConfig } from '../contract/model/model-config.ts';

export interface ParamSpec {
  /** Internal name, e.g. "layers.0.qkv.weight". */
  name: string;
  shape: number[];
  /** What the tensor is, in words (for error messages and docs). */
  role: string;
  kind: ParamKind;
}

export type ParamKind = 'embedding' | 'weight' | 'bias' | 'norm-scale' | 'norm-shift';

/** Internal parameter names. Per-layer names take the layer index. */
export const P = {
  wordEmbeddings: 'embeddings.word.weight',
  positionEmbeddings: 'embeddings.position.weight',
  tokenTypeEmbeddings: 'embeddings.tokenType.weight',
  embeddingNorm: (part: NormPart) => `embeddings.norm.${part}`,
  /** ALBERT's embedding_hidden_mapping_in: embedding size -> hidden size. */
  embeddingProjection: (part: LinearPart) => `embeddings.projection.${part}`,
  /** Pre-norm before attention (ModernBERT, layers > 0). */
  attnNorm: (i: number, part: NormPart) => `layers.${i}.attnNorm.${part}`,
  qkv: (i: number, part: LinearPart) => `layers.${i}.qkv.${part}`,
  attnOut: (i: number, part: LinearPart) => `layers.${i}.attnOut.${part}`,
  /** Post-norm after the attention residual (BERT family). */
  attnOutNorm: (i: number, part: NormPart) => `layers.${i}.attnOutNorm.${part}`,
  /** Pre-norm before the MLP (ModernBERT). */
  mlpNorm: (i: number, part: NormPart) => `layers.${i}.mlpNorm.${part}`,
  mlpIn: (i: number, part: LinearPart) => `layers.${i}.mlpIn.${part}`,
  mlpOut: (i: number, part: LinearPart) => `layers.${i}.mlpOut.${part}`,
  /** Post-norm after the MLP residual (BERT family). */
  mlpOutNorm: (i: number, part: NormPart) => `layers.${i}.mlpOutNorm.${part}`,
  /** Final norm after the last layer (ModernBERT). */
  finalNorm: (part: NormPart) => `finalNorm.${part}`,
  headDense: (part: LinearPart) => `head.dense.${part}`,
  headNorm: (part: NormPart) => `head.norm.${part}`,
  /** Present only when the decoder is not tied to the word embeddings. */
  decoderWeight: 'decoder.weight',
  decoderBias: 'decoder.bias',
} as const;

/** A norm's scale/shift or a linear layer's weight/bias. */
export type Part = 'weight' | 'bias';

type NormPart = Part;

type LinearPart = Part;

/** The parameter that holds the decoder (vocabulary projection) matrix: the word embeddings when tied. */
export function decoderWeightName(config: ModelConfig): string {
  return config.tieWordEmbeddings ? P.wordEmbeddings : P.decoderWeight;
}

/** Does the encoder project its embeddings to the hidden size (ALBERT's embedding_hidden_mapping_in)? */
export function hasEmbeddingProjection(config: ModelConfig): boolean {
  return config.architecture === 'albert';
}

/** The stored layers, by the index their parameter names carry (ALBERT's applications share them). */
export function storedLayers(config: ModelConfig): number[] {
  return [...new Set(config.layerWeights)].sort((a, b) => a - b);
}

/** Does layer i have a pre-attention norm? ModernBERT's first layer uses the identity there. */
export function hasAttnNorm(config: ModelConfig, layer: number): boolean {
  return config.structure === 'pre-norm' && layer > 0;
}

/** Every trainable parameter of the model, in a stable order. */
export function parameterLayout(config: ModelConfig): ParamSpec[] {
  const { hidden: d, vocabSize: V, intermediate: I, embeddingSize: E } = config;
  const specs: ParamSpec[] = [];
  const add = (name: string, shape: number[], role: string, kind: ParamKind) => specs.push({ name, shape, role, kind });
  const norm = (name: (part: NormPart) => string, role: string, width = d) => {
    add(name('weight'), [width], `${role} scale`, 'norm-scale');
    if (config.normBias) add(name('bias'), [width], `${role} shift`, 'norm-shift');
  };
  const linear = (name: (part: LinearPart) => string, out: number, inp: number, bias: boolean, role: string) => {
    add(name('weight'), [out, inp], `${role} weight`, 'weight');
    if (bias) add(name('bias'), [out], `${role} bias`, 'bias');
  };

  add(P.wordEmbeddings, [V, E], 'word embeddings', 'embedding');
  if (config.positions !== 'rotary') add(P.positionEmbeddings, [config.maxPositions, E], 'position embeddings', 'embedding');
  if (config.typeVocabSize > 0) add(P.tokenTypeEmbeddings, [config.typeVocabSize, E], 'token-type embeddings', 'embedding');
  norm(P.embeddingNorm, 'embedding norm', E);
  if (hasEmbeddingProjection(config)) linear(P.embeddingProjection, d, E, true, 'embedding projection');
  for (const i of storedLayers(config)) {
    const at = (f: (i: number, part: Part) => string) => (part: Part) => f(i, part);
    if (hasAttnNorm(config, i)) norm(at(P.attnNorm), `layer ${i} attention pre-norm`);
    linear(at(P.qkv), 3 * d, d, config.attentionBias, `layer ${i} fused q/k/v`);
    linear(at(P.attnOut), d, d, config.attentionBias, `layer ${i} attention output`);
    if (config.structure === 'post-norm') norm(at(P.attnOutNorm), `layer ${i} attention post-norm`);
    if (config.structure === 'pre-norm') norm(at(P.mlpNorm), `layer ${i} MLP pre-norm`);
    const mlpInWidth = config.mlp === 'geglu' ? 2 * I : I;
    linear(at(P.mlpIn), mlpInWidth, d, config.mlpInBias, `layer ${i} MLP input`);
    linear(at(P.mlpOut), d, I, config.mlpOutBias, `layer ${i} MLP output`);
    if (config.structure === 'post-norm') norm(at(P.mlpOutNorm), `layer ${i} MLP post-norm`);
  }
  if (config.structure === 'pre-norm') norm(P.finalNorm, 'final norm');
  linear(P.headDense, E, d, config.headDenseBias, 'MLM head transform');
  norm(P.headNorm, 'MLM head norm', E);
  if (!config.tieWordEmbeddings) add(P.decoderWeight, [V, E], 'decoder (untied)', 'weight');
  if (config.decoderBias) add(P.decoderBias, [V], 'decoder bias', 'bias');
  return specs;
}

/** Parameters as the float64 references use them, keyed by internal name. */
export type ModelParams = Record<string, Float64Array>;

/** Zero-filled buffers for every parameter (gradients, optimiser state). */
export function zerosLike(config: ModelConfig): ModelParams {
  const out: ModelParams = {};
  for (const spec of parameterLayout(config)) out[spec.name] = new Float64Array(spec.shape.reduce((a, b) => a * b, 1));
  return out;
}

export function parameterCount(config: ModelConfig): number {
  return parameterLayout(config).reduce((sum, s) => sum + s.shape.reduce((a, b) => a * b, 1), 0);
}
