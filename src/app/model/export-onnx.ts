// The export-onnx use case: open a model's weights (no GPU needed) and write its SPLADE forward pass, head divided by
// k, as one ONNX file: input_ids, attention_mask and token_type_ids in, the (batch, vocabulary) sparse vector or the
// (batch, sequence, vocabulary) MLM logits out.
import { encodeOnnxModel } from '../../io/formats/onnx-proto.ts';
import { checkK } from '../../contract/limits.ts';
import { parameterCount } from '../../model/layout.ts';
import type { DeviceLimits } from '../../model/load-model.ts';
import {
  ONNX_OPSETS,
  type OnnxIoNames,
  type OnnxOutputKind,
  type TokenTypeInputKind,
  checkOnnxOpset,
  spladeOnnxModel,
} from '../../model/onnx/splade-graph.ts';
import type { FilesRef, Platform } from '../platform/platform.ts';
import { type OpenedWeights, openWeightsRef } from './open-model.ts';

export {
  ONNX_OUTPUT_KINDS,
  TOKEN_TYPE_INPUT_KINDS,
  type OnnxOutputKind,
  type TokenTypeInputKind,
} from '../../model/onnx/splade-graph.ts';

/** The opset of the default domain a file declares unless asked otherwise (the lowest the writer takes). */
export const ONNX_DEFAULT_OPSET = ONNX_OPSETS.min;

export interface OnnxExportRequest {
  k: number;
  opset: number;
  /** The pooled sparse vector (default) or the MLM logits. */
  output?: OnnxOutputKind;
  /** How token_type_ids is declared (default: optional for the sparse graph, required for the logits graph). */
  tokenTypeIds?: TokenTypeInputKind;
  /** Input and output names other than the tokenizer's (ml-commons' bundle names its inputs input1.*). */
  names?: Partial<OnnxIoNames>;
}

export interface OnnxExportResult {
  /** The .onnx file. */
  bytes: Uint8Array;
  /** How the model is named (folder or Hub id) and its Hugging Face class. */
  name: string;
  hfArchitecture: string;
  vocabSize: number;
  /** The model's parameters as fp32 bytes (a tied matrix once): what the file holds besides the graph. */
  parameterBytes: number;
  nodes: number;
  initializers: number;
  /** What the loader noticed (unused tensors, renamed keys), and what the file leaves out. */
  notes: string[];
}

/** The export reads weights on the host: no GPU binding limit applies. */
export const ONNX_HOST_LIMITS: DeviceLimits = {
  maxStorageBufferBindingSize: Number.MAX_SAFE_INTEGER,
  maxBufferSize: Number.MAX_SAFE_INTEGER,
};

/** Refuses a k or an opset the graph is not written for (before any weight is read). */
export function checkOnnxRequest(request: OnnxExportRequest): void {
  checkK(request.k);
  checkOnnxOpset(request.opset);
}

export async function exportOnnx(platform: Platform, ref: FilesRef, request: OnnxExportRequest): Promise<OnnxExportResult> {
  checkOnnxRequest(request);
  return onnxOfWeights(await openWeightsRef(platform, ref, { limits: ONNX_HOST_LIMITS }), request);
}

/** The ONNX file of weights already open (with ONNX_HOST_LIMITS). */
export function onnxOfWeights(weights: OpenedWeights, request: OnnxExportRequest): OnnxExportResult {
  const opset = checkOnnxOpset(request.opset);
  const { config } = weights;
  const model = spladeOnnxModel(config, weights.params, {
    k: request.k,
    opset,
    ...(request.output ? { output: request.output } : {}),
    ...(request.tokenTypeIds ? { tokenTypeIds: request.tokenTypeIds } : {}),
    ...(request.names ? { names: request.names } : {}),
    activation: weights.activation,
    metadata: { 'splade.source': weights.name },
  });
  const notes = [...weights.notes];
  if (weights.activation === 'log1p_relu' && request.output === 'logits')
    notes.push(
      "the logits graph leaves the pooling to its reader: sentence-transformers applies the folder's SpladePooling " +
        "(log1p_relu), but Vespa's splade-embedder takes one log(1 + relu) only, which is not this model's pooling",
    );
  if (weights.queryTable)
    notes.push('this is an inference-free model: the file encodes documents; its queries are the static weights of their tokens');
  return {
    bytes: encodeOnnxModel(model),
    name: weights.name,
    hfArchitecture: config.hfArchitecture,
    vocabSize: config.vocabSize,
    parameterBytes: 4 * parameterCount(config),
    nodes: model.graph.node.length,
    initializers: model.graph.initializer.length,
    notes,
  };
}
