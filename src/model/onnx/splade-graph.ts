// The whole SPLADE model as one ONNX graph: input_ids, attention_mask and token_type_ids (int64, batch x sequence) ->
// either the sparse vector (batch x vocabulary) = max over real tokens of log(1 + ReLU(logits)), or the MLM logits
// themselves (batch x sequence x vocabulary: what Vespa's splade embedder and sentence-transformers' ONNX backend pool),
// the decoder divided by k. The tied vocabulary matrix is one initializer, read by the embedding Gather and, transposed,
// by the decoder Gemm.
import type { HostTensor } from '../../io/host-tensor.ts';
import { type OnnxDim, OnnxDataType, type OnnxModel, type OnnxValueInfo } from '../../io/formats/onnx-proto.ts';
import { InvalidRequestError, checkK } from '../../contract/limits.ts';
import { maxSequenceTokens } from '../../contract/model/max-tokens.ts';
import type { Architecture, ModelConfig } from '../../contract/model/model-config.ts';
import { P, decoderWeightName } from '../layout.ts';
import { parameter } from './blocks-graph.ts';
import { encoderGraph } from './encoder-graph.ts';
import { OnnxGraphBuilder } from './graph-builder.ts';

/** The families the exported graph is checked for (tests/node/model/onnx-export.test.ts): a new family is refused until it is. */
export const ONNX_ARCHITECTURES: readonly Architecture[] = ['bert', 'roberta', 'distilbert', 'modernbert', 'gte', 'albert'];

/** Opsets of the default domain the graph is written for (ReduceMax takes its axes as an input from 18). */
export const ONNX_OPSETS = { min: 17, max: 21 } as const;

/** The graph's names for its inputs and output (a tokenizer's names; the pooled output's own). */
export const ONNX_IO = {
  ids: 'input_ids',
  mask: 'attention_mask',
  tokenTypes: 'token_type_ids',
  output: 'sparse_vector',
} as const;

/** The logits graph's output, as transformers' MaskedLMOutput names it (Vespa's and optimum's default). */
export const ONNX_LOGITS_OUTPUT = 'logits';

export interface OnnxIoNames {
  ids: string;
  mask: string;
  tokenTypes: string;
  output: string;
}

/** What the graph ends in: the pooled SPLADE vector, or the MLM logits a consumer pools itself. */
export type OnnxOutputKind = 'sparse' | 'logits';
export const ONNX_OUTPUT_KINDS: readonly OnnxOutputKind[] = ['sparse', 'logits'];

/**
 * How token_type_ids is declared. 'optional': a graph input with a (1, 1) zeros initializer as its default (IR >= 4),
 * which onnxruntime's C/C++/Python API takes fed or not, while its JavaScript and Java APIs list only the required
 * inputs and cannot feed it. 'required': a plain input every caller feeds (Vespa always does; optimum feeds zeros).
 */
export type TokenTypeInputKind = 'optional' | 'required';
export const TOKEN_TYPE_INPUT_KINDS: readonly TokenTypeInputKind[] = ['optional', 'required'];

export interface SpladeOnnxOptions {
  /** The decoder matrix is divided by k (the paper's correction). */
  k: number;
  opset: number;
  /** Default 'sparse'. */
  output?: OnnxOutputKind;
  /** Default 'optional' for the sparse graph, 'required' for the logits graph. */
  tokenTypeIds?: TokenTypeInputKind;
  /** Other names than ONNX_IO's (the logits graph's output defaults to ONNX_LOGITS_OUTPUT). */
  names?: Partial<OnnxIoNames>;
  /** SpladePooling's activation of the sparse graph: log1p_relu takes one more log(1 + x) of the pooled max. */
  activation?: 'relu' | 'log1p_relu';
  /** Recorded in the file's metadata_props (e.g. the source model's name). */
  metadata?: Record<string, string>;
  producerVersion?: string;
}

/** Refuses an opset the graph is not written for. */
export function checkOnnxOpset(opset: number): number {
  if (!Number.isInteger(opset) || opset < ONNX_OPSETS.min || opset > ONNX_OPSETS.max)
    throw new InvalidRequestError(`opset must be an integer from ${ONNX_OPSETS.min} to ${ONNX_OPSETS.max}, got ${opset}`);
  return opset;
}

export function spladeOnnxModel(config: ModelConfig, params: Map<string, HostTensor>, options: SpladeOnnxOptions): OnnxModel {
  if (!ONNX_ARCHITECTURES.includes(config.architecture))
    throw new Error(`ONNX export supports ${ONNX_ARCHITECTURES.join(', ')}; this model is ${config.hfArchitecture}`);
  const opset = checkOnnxOpset(options.opset);
  const k = checkK(options.k);
  const output = options.output ?? 'sparse';
  const tokenTypeIds = options.tokenTypeIds ?? (output === 'logits' ? 'required' : 'optional');
  const io: OnnxIoNames = { ...ONNX_IO, ...(output === 'logits' ? { output: ONNX_LOGITS_OUTPUT } : {}), ...options.names };
  const g = new OnnxGraphBuilder();
  const ctx = { g, config, params };
  const scope = 'splade';
  // an input with an initializer of its name is optional (IR >= 4): unfed, it is this (1, 1) zero, which broadcasts
  if (tokenTypeIds === 'optional') g.int64s(io.tokenTypes, [1, 1], [0]);
  const mask = g.op('Cast', [io.mask], scope, { to: OnnxDataType.FLOAT }); // (B, T)
  // (h / k) W^T = h (W / k)^T: the one stored matrix is divided on the way, never copied; a tied one is the word
  // embeddings too, which the GPU model divides with it (one buffer), so their lookup is divided as well
  const inverseK = g.scalar('head.inverse-k', 1 / k);
  const wordScale = config.tieWordEmbeddings ? inverseK : null;
  const headHidden = encoderGraph(ctx, { ids: io.ids, mask, tokenTypes: io.tokenTypes, wordScale }); // (B, T, E)
  const scaled = g.op('Mul', [headHidden, inverseK], scope);
  const rows = g.op('Reshape', [scaled, g.indices('const.shape.rows', [-1, config.embeddingSize])], scope); // (B*T, E)
  const decoder = [rows, parameter(ctx, decoderWeightName(config))];
  if (config.decoderBias) decoder.push(parameter(ctx, P.decoderBias));
  const flatLogits = g.op('Gemm', decoder, scope, { transB: 1 }); // (B*T, V)
  const logitsShape = g.op('Concat', [g.op('Shape', [io.ids], scope), g.indices('const.vocab', [config.vocabSize])], scope, {
    axis: 0,
  });
  const logits = g.op('Reshape', [flatLogits, logitsShape], scope); // (B, T, V)
  const batch: OnnxDim = { dimParam: 'batch' };
  const sequence: OnnxDim = { dimParam: 'sequence' };
  const vocabulary: OnnxDim = { dimValue: config.vocabSize };
  let outputDims = [batch, sequence, vocabulary];
  if (output === 'logits') g.output(io.output, logits);
  else {
    g.output(io.output, pooledVector(g, logits, mask, opset, options.activation ?? 'relu'));
    outputDims = [batch, vocabulary];
  }
  const dynamic = [batch, sequence];
  return {
    irVersion: 8,
    opsetImport: [{ domain: '', version: opset }],
    producerName: 'splade-lab',
    producerVersion: options.producerVersion ?? '',
    docString: `${output === 'logits' ? 'MLM logits' : 'SPLADE sparse vectors'} of ${config.hfArchitecture}, MLM head divided by k = ${k}`,
    graph: {
      name: 'splade',
      node: g.nodes,
      initializer: g.initializers,
      input: [io.ids, io.mask, io.tokenTypes].map((name) => valueInfo(name, OnnxDataType.INT64, dynamic)),
      output: [valueInfo(io.output, OnnxDataType.FLOAT, outputDims)],
    },
    metadataProps: Object.entries({
      'splade.k': String(k),
      'splade.architecture': config.hfArchitecture,
      'splade.max_sequence_tokens': String(maxSequenceTokens(config)),
      'splade.output':
        output === 'logits'
          ? 'logits (batch, sequence, vocabulary): the MLM head divided by k, unpooled'
          : options.activation === 'log1p_relu'
            ? 'log(1 + max over real tokens of log(1 + relu(logits))): SpladePooling log1p_relu'
            : 'max over real tokens of log(1 + relu(logits))',
      'splade.token_type_ids': tokenTypeIds === 'optional' ? 'optional: a (1, 1) zero when not fed' : 'required',
      ...options.metadata,
    }).map(([key, value]) => ({ key, value })),
  };
}

/**
 * (B, V): max over real tokens of log(1 + ReLU(logits)); every value is >= 0, so a padded position (0) never wins.
 * log1p_relu (OpenSearch's doc-v3) is log(1 + log(1 + ReLU)), taken after the max: log1p rises, so the two commute.
 */
function pooledVector(
  g: OnnxGraphBuilder,
  logits: string,
  mask: string,
  opset: number,
  activation: 'relu' | 'log1p_relu',
): string {
  const scope = 'splade.pooling';
  const one = g.scalar('const.one', 1);
  const saturated = g.op('Log', [g.op('Add', [g.op('Relu', [logits], scope), one], scope)], scope);
  const masked = g.op('Mul', [saturated, g.op('Unsqueeze', [mask, g.indices('const.axes-2', [2])], scope)], scope);
  const pooled =
    opset >= 18
      ? g.op('ReduceMax', [masked, g.indices('const.axes-1', [1])], scope, { keepdims: 0 })
      : g.op('ReduceMax', [masked], scope, { axes: [1], keepdims: 0 });
  return activation === 'log1p_relu' ? g.op('Log', [g.op('Add', [pooled, one], scope)], scope) : pooled;
}

function valueInfo(name: string, elemType: number, dims: OnnxDim[]): OnnxValueInfo {
  return { name, type: { tensorType: { elemType, shape: { dim: dims } } } };
}
