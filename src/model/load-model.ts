// Loads a backbone for use: config (refusing unsupported architectures first), size check against the device's
// limits before any weight is read, weights read within a byte budget derived from the config and mapped to the
// internal layout (unused checkpoint tensors reported), and a tokenizer that fits the head.
import { GpuLimitError } from '../gpu/errors.ts';
import { planRowParts } from '../gpu/row-parts.ts';
import { loadCheckpoint, type Checkpoint } from '../io/formats/model-folder.ts';
import { readJsonFile, type FileSource, type ReadOptions } from '../io/file-source.ts';
import type { HostTensor } from '../io/host-tensor.ts';
import type { TextTokenizer } from '../io/tokenizer/tokenizer.ts';
import { loadTokenizer } from '../io/tokenizer/tokenizer-load.ts';
import { parseModelConfig } from './config.ts';
import { type ModelConfig } from '../contract/model/model-config.ts';
import { P, parameterCount, parameterLayout } from './layout.ts';
import { loadParametersReport } from './weights.ts';

export interface LoadedModel {
  config: ModelConfig;
  /** Internal parameter name -> fp32 host tensor (the tied decoder is the word embeddings). */
  params: Map<string, HostTensor>;
  tokenizer: TextTokenizer;
  checkpoint: Checkpoint;
  /**
   * Checkpoint tensors the model does not use (transformers' "Some weights of the checkpoint were not used");
   * unusedTensorsWarning (weights.ts) turns them into that warning. Known-harmless ones are in ignoredTensors.
   */
  unusedTensors: string[];
  /** Skipped on purpose: tied decoder copies, position_ids/token_type_ids buffers, pooler, next-sentence head. */
  ignoredTensors: { name: string; reason: string }[];
  /** The byte budget the weights were read under (checkpointByteBudget of the config). */
  byteBudget: number;
}

export interface DeviceLimits {
  maxStorageBufferBindingSize: number;
  maxBufferSize: number;
}

export interface LoadModelOptions extends ReadOptions {
  /** When given, a model with a tensor over these limits is refused before its weights are read. */
  limits?: DeviceLimits;
}

/** Margin of the byte budget over the config's fp32 parameters, and the fixed allowance on top (see checkpointByteBudget). */
const BUDGET_MARGIN = 1.25;

const BUDGET_EXTRA_BYTES = 16 * 2 ** 20;

/**
 * What a checkpoint for `config` may cost to read and decode: the config's parameters plus one more vocabulary
 * matrix (an untied copy of a tied decoder), x 4 bytes (fp32), x 1.25, + 16 MiB (buffers such as position_ids, the
 * pooler and small extras). Weight files and decoded storages beyond this are refused (CheckpointBudgetError,
 * FileTooLargeError): a few-KB hostile file cannot make gigabytes resident. fp16/bf16 files fit with room to spare.
 */
export function checkpointByteBudget(config: ModelConfig): number {
  const parameters = parameterCount(config) + config.vocabSize * config.embeddingSize;
  return Math.ceil(4 * parameters * BUDGET_MARGIN) + BUDGET_EXTRA_BYTES;
}

export async function loadModel(source: FileSource, options: LoadModelOptions = {}): Promise<LoadedModel> {
  const json = await readJsonFile(source, 'config.json', options);
  if (json === null) throw new Error(`no config.json in ${source.label}`);
  const config = parseModelConfig(json, { source: `${source.label}/config.json` });
  if (options.limits) checkFitsDevice(config, options.limits, source.label);
  const byteBudget = checkpointByteBudget(config);
  const checkpoint = await loadCheckpoint(source, { ...options, byteBudget });
  const { params, unusedTensors, ignoredTensors } = loadParametersReport(config, checkpoint.tensors, source.label);
  const tokenizer = await loadTokenizer(source, options);
  checkTokenizerFitsHead(tokenizer, config, source.label);
  return { config, params, tokenizer, checkpoint, unusedTensors, ignoredTensors, byteBudget };
}

const MODEL_ADVICE = 'this model cannot be loaded on this device; choose a smaller one.';

/** The first parameter of a config that cannot be one GPU buffer binding, as an error; null when all fit. */
export function deviceFitError(config: ModelConfig, limits: DeviceLimits, label: string): GpuLimitError | null {
  // a vocabulary matrix past one binding is held in row parts (GpuModel): its largest part is what must fit
  const parts = planRowParts(config.vocabSize, config.embeddingSize, limits.maxStorageBufferBindingSize, 1);
  const largestPart = 4 * config.embeddingSize * Math.max(...parts.map((p) => p.rows));
  for (const spec of parameterLayout(config)) {
    const vocabularyMatrix = spec.name === P.wordEmbeddings || spec.name === P.decoderWeight;
    const bytes = vocabularyMatrix ? largestPart : 4 * spec.shape.reduce((a, b) => a * b, 1);
    const what = `${label}: ${spec.role} [${spec.shape.join('x')}]`;
    if (bytes > limits.maxStorageBufferBindingSize) {
      return new GpuLimitError(what, bytes, 'maxStorageBufferBindingSize', limits.maxStorageBufferBindingSize, MODEL_ADVICE);
    }
    if (bytes > limits.maxBufferSize) return new GpuLimitError(what, bytes, 'maxBufferSize', limits.maxBufferSize, MODEL_ADVICE);
  }
  return null;
}

/** Refuses a config whose largest tensor cannot be one GPU buffer binding. */
function checkFitsDevice(config: ModelConfig, limits: DeviceLimits, label: string): void {
  const error = deviceFitError(config, limits, label);
  if (error) throw error;
}

/** The tokenizer may have fewer ids than the head has rows (padding rows), never more. */
export function checkTokenizerFitsHead(tokenizer: TextTokenizer, config: ModelConfig, label: string): void {
  if (tokenizer.vocabSize > config.vocabSize) {
    throw new Error(
      `${label}: the tokenizer has ${tokenizer.vocabSize} token ids but the MLM head has ${config.vocabSize} rows ` +
        `(config.json vocab_size); the tokenizer does not belong to this model`,
    );
  }
}
