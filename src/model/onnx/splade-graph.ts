// The whole SPLADE model as one ONNX graph: input_ids and attention_mask (int64, batch x sequence) -> the sparse
// vector (batch x vocabulary, float32) = max over real tokens of log(1 + ReLU(logits)), the decoder divided by k.
// The tied vocabulary matrix is one initializer, read by the embedding Gather and, transposed, by the decoder Gemm.
import type { HostTensor } from '../../io/host-tensor.ts';
import { type OnnxDim, OnnxDataType, type OnnxModel, type OnnxValueInfo } from '../../io/onnx-proto.ts';
import { InvalidRequestError, checkK } from '../../contract/limits.ts';
import { maxSequenceTokens } from '../../contract/max-tokens.ts';
import type { Architecture, ModelConfig } from '../../contract/model-config.ts';
import { P, decoderWeightName } from '../layout.ts';
import { parameter } from './blocks-graph.ts';
import { encoderGraph } from './encoder-graph.ts';
import { OnnxGraphBuilder } from './graph-builder.ts';

/** The families the exported graph is checked for (tests/node/model/onnx-export.test.ts): a new family is refused until it is. */
export const ONNX_ARCHITECTURES: readonly Architecture[] = ['bert', 'roberta', 'distilbert', 'modernbert', 'gte', 'albert'];

/** Opsets of the default domain the graph is written for (ReduceMax takes its axes as an input from 18). */
export const ONNX_OPSETS = { min: 17, max: 21 } as const;

/** The graph's names for its inputs and output. */
export const ONNX_IO = { ids: 'input_ids', mask: 'attention_mask', output: 'sparse_vector' } as const;

export interface SpladeOnnxOptions {
  /** The decoder matrix is divided by k (the paper's correction). */
  k: number;
  opset: number;
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
  const g = new OnnxGraphBuilder();
  const ctx = { g, config, params };
  const scope = 'splade';
  const mask = g.op('Cast', [ONNX_IO.mask], scope, { to: OnnxDataType.FLOAT }); // (B, T)
  // (h / k) W^T = h (W / k)^T: the one stored matrix is divided on the way, never copied; a tied one is the word
  // embeddings too, which the GPU model divides with it (one buffer), so their lookup is divided as well
  const inverseK = g.scalar('head.inverse-k', 1 / k);
  const wordScale = config.tieWordEmbeddings ? inverseK : null;
  const headHidden = encoderGraph(ctx, { ids: ONNX_IO.ids, mask, wordScale }); // (B, T, E)
  const scaled = g.op('Mul', [headHidden, inverseK], scope);
  const rows = g.op('Reshape', [scaled, g.indices('const.shape.rows', [-1, config.embeddingSize])], scope); // (B*T, E)
  const decoder = [rows, parameter(ctx, decoderWeightName(config))];
  if (config.decoderBias) decoder.push(parameter(ctx, P.decoderBias));
  const flatLogits = g.op('Gemm', decoder, scope, { transB: 1 }); // (B*T, V)
  const logitsShape = g.op('Concat', [g.op('Shape', [ONNX_IO.ids], scope), g.indices('const.vocab', [config.vocabSize])], scope, {
    axis: 0,
  });
  const logits = g.op('Reshape', [flatLogits, logitsShape], scope); // (B, T, V)
  const saturated = g.op('Log', [g.op('Add', [g.op('Relu', [logits], scope), g.scalar('const.one', 1)], scope)], scope);
  // every value is >= 0, so a padded position (0 after the mask) never wins the max
  const masked = g.op('Mul', [saturated, g.op('Unsqueeze', [mask, g.indices('const.axes-2', [2])], scope)], scope);
  const pooled =
    opset >= 18
      ? g.op('ReduceMax', [masked, g.indices('const.axes-1', [1])], scope, { keepdims: 0 })
      : g.op('ReduceMax', [masked], scope, { axes: [1], keepdims: 0 }); // (B, V)
  g.output(ONNX_IO.output, pooled);
  const dynamic: OnnxDim[] = [{ dimParam: 'batch' }, { dimParam: 'sequence' }];
  return {
    irVersion: 8,
    opsetImport: [{ domain: '', version: opset }],
    producerName: 'splade-lab',
    producerVersion: options.producerVersion ?? '',
    docString: `SPLADE sparse vectors of ${config.hfArchitecture}, MLM head divided by k = ${k}`,
    graph: {
      name: 'splade',
      node: g.nodes,
      initializer: g.initializers,
      input: [valueInfo(ONNX_IO.ids, OnnxDataType.INT64, dynamic), valueInfo(ONNX_IO.mask, OnnxDataType.INT64, dynamic)],
      output: [valueInfo(ONNX_IO.output, OnnxDataType.FLOAT, [{ dimParam: 'batch' }, { dimValue: config.vocabSize }])],
    },
    metadataProps: Object.entries({
      'splade.k': String(k),
      'splade.architecture': config.hfArchitecture,
      'splade.max_sequence_tokens': String(maxSequenceTokens(config)),
      'splade.pooling': 'max over real tokens of log(1 + relu(logits))',
      ...options.metadata,
    }).map(([key, value]) => ({ key, value })),
  };
}

function valueInfo(name: string, elemType: number, dims: OnnxDim[]): OnnxValueInfo {
  return { name, type: { tensorType: { elemType, shape: { dim: dims } } } };
}
