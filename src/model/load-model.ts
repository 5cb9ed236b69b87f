// Loads a backbone for use: config (refusing unsupported architectures first), size check against the device's
// limits before any weight is read, weights mapped to the internal layout, and a tokenizer that fits the head.
import { GpuLimitError } from '../gpu/errors.ts';
import { loadCheckpoint, type Checkpoint } from '../io/checkpoint.ts';
import { readJsonFile, type FileSource, type ReadOptions } from '../io/file-source.ts';
import type { HostTensor } from '../io/host-tensor.ts';
import type { TextTokenizer } from '../io/tokenizer.ts';
import { loadTokenizer } from '../io/tokenizer-load.ts';
import { parseModelConfig, type ModelConfig } from './config.ts';
import { parameterLayout } from './layout.ts';
import { loadParameters } from './weights.ts';

export interface LoadedModel {
  config: ModelConfig;
  /** Internal parameter name -> fp32 host tensor (the tied decoder is the word embeddings). */
  params: Map<string, HostTensor>;
  tokenizer: TextTokenizer;
  checkpoint: Checkpoint;
}

export interface DeviceLimits {
  maxStorageBufferBindingSize: number;
  maxBufferSize: number;
}

export interface LoadModelOptions extends ReadOptions {
  /** When given, a model with a tensor over these limits is refused before its weights are read. */
  limits?: DeviceLimits;
}

export async function loadModel(source: FileSource, options: LoadModelOptions = {}): Promise<LoadedModel> {
  const json = await readJsonFile(source, 'config.json', options);
  if (json === null) throw new Error(`no config.json in ${source.label}`);
  const config = parseModelConfig(json, { source: `${source.label}/config.json` });
  if (options.limits) checkFitsDevice(config, options.limits, source.label);
  const checkpoint = await loadCheckpoint(source, options);
  const params = loadParameters(config, checkpoint.tensors, source.label);
  const tokenizer = await loadTokenizer(source, options);
  checkTokenizerFitsHead(tokenizer, config, source.label);
  return { config, params, tokenizer, checkpoint };
}

const MODEL_ADVICE = 'this model cannot be loaded on this device; choose a smaller one.';

/** The first parameter of a config that cannot be one GPU buffer binding, as an error; null when all fit. */
export function deviceFitError(config: ModelConfig, limits: DeviceLimits, label: string): GpuLimitError | null {
  for (const spec of parameterLayout(config)) {
    const bytes = 4 * spec.shape.reduce((a, b) => a * b, 1);
    const what = `${label}: ${spec.role} [${spec.shape.join('x')}]`;
    if (bytes > limits.maxStorageBufferBindingSize) {
      return new GpuLimitError(what, bytes, 'maxStorageBufferBindingSize', limits.maxStorageBufferBindingSize, MODEL_ADVICE);
    }
    if (bytes > limits.maxBufferSize) return new GpuLimitError(what, bytes, 'maxBufferSize', limits.maxBufferSize, MODEL_ADVICE);
  }
  return null;
}

/** Refuses a config whose largest tensor cannot be one GPU buffer binding. */
export function checkFitsDevice(config: ModelConfig, limits: DeviceLimits, label: string): void {
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
