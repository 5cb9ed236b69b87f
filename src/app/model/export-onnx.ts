// The export-onnx use case: open a model's weights (no GPU needed) and write its SPLADE forward pass, head divided by
// k, as one ONNX file: input_ids and attention_mask in, the (batch, vocabulary) sparse vector out.
import { encodeOnnxModel } from '../../io/onnx-proto.ts';
import { checkK } from '../../contract/limits.ts';
import { parameterCount } from '../../model/layout.ts';
import type { DeviceLimits } from '../../model/load-model.ts';
import { ONNX_OPSETS, checkOnnxOpset, spladeOnnxModel } from '../../model/onnx/splade-graph.ts';
import type { FilesRef, Platform } from '../platform/platform.ts';
import { openWeightsRef } from './open-model.ts';

/** The opset of the default domain a file declares unless asked otherwise (the lowest the writer takes). */
export const ONNX_DEFAULT_OPSET = ONNX_OPSETS.min;

export interface OnnxExportRequest {
  k: number;
  opset: number;
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
const HOST_LIMITS: DeviceLimits = {
  maxStorageBufferBindingSize: Number.MAX_SAFE_INTEGER,
  maxBufferSize: Number.MAX_SAFE_INTEGER,
};

export async function exportOnnx(platform: Platform, ref: FilesRef, request: OnnxExportRequest): Promise<OnnxExportResult> {
  // the request is checked before any weight is read
  checkK(request.k);
  const opset = checkOnnxOpset(request.opset);
  const weights = await openWeightsRef(platform, ref, { limits: HOST_LIMITS });
  const { config } = weights;
  const model = spladeOnnxModel(config, weights.params, {
    k: request.k,
    opset,
    metadata: { 'splade.source': weights.name },
  });
  const notes = [...weights.notes];
  if (weights.queryWeights)
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
