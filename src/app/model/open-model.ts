// Opening a backbone, for every use case: config.json first (unsupported architectures and models that cannot fit
// the device are refused before any weight is read), then the weights, the tokenizer, and a check that no weight is
// NaN or Inf. Also the memory estimate the page shows before downloading.
import { estimateCheckpointBytes, loadCheckpoint, type HfConfig } from '../../io/formats/model-folder.ts';
import type { HostTensor } from '../../io/host-tensor.ts';
import { readJsonFile, type FileSource, type ReadOptions } from '../../io/file-source.ts';
import type { TextTokenizer } from '../../io/tokenizer/tokenizer.ts';
import { loadTokenizer } from '../../io/tokenizer/tokenizer-load.ts';
import { parseModelConfig } from '../../model/config.ts';
import { type ModelConfig } from '../../contract/model/model-config.ts';
import { parameterCount, parameterLayout } from '../../model/layout.ts';
import { maxSequenceTokens } from '../../contract/model/max-tokens.ts';
import { checkTokenizerFitsHead, checkpointByteBudget, deviceFitError, type DeviceLimits } from '../../model/load-model.ts';
import { loadParametersReport, unusedTensorsWarning } from '../../model/weights.ts';
import type { Backbone } from '../../model/backbone.ts';
import { crc32 } from '../../util/crc32.ts';
import { NonFiniteError, findNonFinite } from '../../util/finite.ts';
import { ModelTooLargeError } from '../../contract/errors.ts';
import { filesRefName, type FilesRef, type Platform } from '../platform/platform.ts';
import { MemoryEstimate, ModelSummary } from '../../contract/model/model-results.ts';
import { checkpointAsModel } from './checkpoint-as-model.ts';
import { sparseEncoderView, type StaticQueryTable } from './sparse-encoder-view.ts';
import { describeEncoding, describeTable, readQueryModel, staticQuerySide } from './static-query-side.ts';
import type { SpladeActivation } from '../../io/formats/sparse-encoder-layout.ts';

/** A model's weights, checked: what inspecting the head needs (no tokenizer). */
export interface OpenedWeights {
  ref: FilesRef;
  /** How messages and captions name it (a Hub id, a folder, "local files"). */
  name: string;
  /** Identifies the weights for run keys: the Hub id and revision, or a CRC-32 of config.json and every parameter. */
  key: string;
  files: FileSource;
  estimate: MemoryEstimate;
  config: ModelConfig;
  /** config.json as read (stored in checkpoints, written with the trained model). */
  hfConfig: HfConfig;
  /** Internal parameter name -> fp32 tensor, as loaded. */
  params: Map<string, HostTensor>;
  /** Things the loader did or found that the user should hear about (renamed keys, unused tensors). */
  notes: string[];
  /** The activation of the folder's SpladePooling (log(1 + relu) unless it says log1p_relu). */
  activation: SpladeActivation;
  /** How queries and documents are encoded, as read from the folder (inspect and the page say it). */
  encoding: string;
  /** An inference-free model (a Router folder): its query route's table as stored (openModel checks and widens it). */
  queryTable?: StaticQueryTable;
}

/** A backbone ready for any use case: its weights, its tokenizer (what training needs: a Backbone). */
export interface OpenedModel extends OpenedWeights, Backbone {
  /** An inference-free model's query weights, one per vocabulary id of the head. */
  queryWeights?: Float32Array;
  /** Static queries keep at most this many tokens (sentence-transformers: the tokenizer's model_max_length). */
  staticQueryTokens?: number | null;
}

async function readModelConfig(files: FileSource, options?: ReadOptions): Promise<ModelConfig> {
  const json = await readJsonFile(files, 'config.json', options);
  if (json === null) throw new Error(`config.json is missing from ${files.label}: is this a Hugging Face model folder?`);
  return parseModelConfig(json, { source: `${files.label}/config.json` });
}

/** What config.json alone tells: parameters, the largest tensor, and whether it fits one binding. */
function configMemory(config: ModelConfig, limits: DeviceLimits): MemoryEstimate {
  const bytesOf = (shape: number[]) => 4 * shape.reduce((a, b) => a * b, 1);
  const largest = Math.max(...parameterLayout(config).map((spec) => bytesOf(spec.shape)));
  const tooLarge = deviceFitError(config, limits, 'the model');
  const parameters = parameterCount(config);
  return {
    downloadBytes: null,
    gpuBytes: 4 * parameters,
    largestTensorBytes: largest,
    parameters,
    maxBufferSize: limits.maxBufferSize,
    maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize,
    problems: tooLarge
      ? [`${tooLarge.message.replace(/^the model: /, 'Its ')} A browser or GPU with higher limits may also do.`]
      : [],
  };
}

/** configMemory, completed from the weight files' headers: fp32 bytes as stored and the download size. */
export async function estimateModel(source: FileSource, limits: DeviceLimits, options?: ReadOptions): Promise<MemoryEstimate> {
  const files = await checkpointAsModel(source, options);
  return estimateFor(files, await readModelConfig(files, options), limits, options);
}

async function estimateFor(
  files: FileSource,
  config: ModelConfig,
  limits: DeviceLimits,
  options?: ReadOptions,
): Promise<MemoryEstimate> {
  const fromConfig = configMemory(config, limits);
  if (fromConfig.problems.length > 0) return fromConfig;
  const checkpoint = await estimateCheckpointBytes(files, { ...options, byteBudget: checkpointByteBudget(config) });
  let downloadBytes: number | null = 0;
  for (const file of checkpoint.files) {
    const probe = files.readRange ? await files.readRange(file, 0, 1, options) : null;
    downloadBytes = probe && downloadBytes !== null ? downloadBytes + probe.fileSize : null;
  }
  return { ...fromConfig, downloadBytes, gpuBytes: Math.max(fromConfig.gpuBytes, checkpoint.bytes) };
}

export interface OpenModelOptions extends ReadOptions {
  limits: DeviceLimits;
  /** Called once the estimate is known, before the weights are read. */
  onEstimate?: (estimate: MemoryEstimate) => void;
  /** A query side named apart (`--query-model`): an idf.json beside a tokenizer, or an inference-free model's table. */
  queryModel?: FileSource;
}

/**
 * What is checked before any weight is read: the folder's layout, config.json, the query route's size and the memory
 * estimate (a model that cannot fit the device is refused here).
 */
async function checkedBeforeWeights(source: FileSource, options: OpenModelOptions) {
  const view = await sparseEncoderView(source, options);
  const files = await checkpointAsModel(view.files, options);
  const config = await readModelConfig(files, options);
  if (view.query && view.query.weights.length > config.vocabSize)
    throw new Error(
      `${source.label}: the query route has ${view.query.weights.length} weights for a vocabulary of ${config.vocabSize}`,
    );
  const estimate = await estimateFor(files, config, options.limits, options);
  if (estimate.problems.length > 0) throw new ModelTooLargeError(estimate.problems.join('\n'));
  return { view, files, config, estimate };
}

/**
 * Checks that `ref` would open, without reading its weights: its layout, config.json, the memory estimate (too large
 * refused) and its tokenizer against the head. A command that uses two models checks the second before it works with
 * the first, so that a bad second model fails at once.
 */
export async function checkModelRef(platform: Platform, ref: FilesRef, options: OpenModelOptions): Promise<MemoryEstimate> {
  const { files, config, estimate } = await checkedBeforeWeights(await platform.files(ref), options);
  checkTokenizerFitsHead(await loadTokenizer(files, options), config, files.label);
  return estimate;
}

/** Opens the weights of `ref` from `files`: refuses what cannot fit before reading them, and weights that are not finite. */
export async function openWeights(ref: FilesRef, source: FileSource, options: OpenModelOptions): Promise<OpenedWeights> {
  const { view, files, config, estimate } = await checkedBeforeWeights(source, options);
  options.onEstimate?.(estimate);
  const checkpoint = await loadCheckpoint(files, { ...options, byteBudget: checkpointByteBudget(config) });
  const { params, unusedTensors } = loadParametersReport(config, checkpoint.tensors, files.label);
  const unused = unusedTensorsWarning(unusedTensors, files.label, config.hfArchitecture);
  const bad = findNonFinite(checkpoint.tensors);
  if (bad) {
    const shape = checkpoint.tensors.get(bad.name)!.shape.join('x');
    throw new NonFiniteError(
      `${files.label}: tensor ${bad.name} [${shape}] holds ${bad.value} at index ${bad.index}; ` +
        'a model with NaN or Inf weights cannot be used (was it saved from a diverged run?)',
    );
  }
  const name = filesRefName(ref);
  return {
    ref,
    name,
    key: ref.kind === 'hub' ? name : `${name} #${weightsFingerprint(checkpoint.config, params).toString(16)}`,
    files,
    estimate,
    config,
    hfConfig: checkpoint.config,
    params,
    notes: [...view.notes, ...checkpoint.notes, ...(unused ? [unused] : []), ...activationNotes(view.activation)],
    activation: view.activation,
    encoding: describeEncoding(view.activation, view.query ? { description: describeTable(view.query) } : undefined),
    ...(view.query ? { queryTable: view.query } : {}),
  };
}

/** What a user should hear of a pooling that differs from the paper's log(1 + relu). */
function activationNotes(activation: SpladeActivation): string[] {
  return activation === 'log1p_relu'
    ? [
        "documents are pooled as its SpladePooling says, max of log(1 + log(1 + relu)) (OpenSearch's doc-v3); " +
          "fine-tuning trains and saves the paper's log(1 + relu)",
      ]
    : [];
}

/** openWeights, and the tokenizer that goes with them (it must not have more ids than the head has rows). */
export async function openModel(ref: FilesRef, source: FileSource, options: OpenModelOptions): Promise<OpenedModel> {
  const weights = await openWeights(ref, source, options);
  const files = weights.files; // a checkpoint folder is read through its model view
  const tokenizer = await loadTokenizer(files, options);
  checkTokenizerFitsHead(tokenizer, weights.config, files.label);
  const notes = [...weights.notes, ...sourceWarnings(files)];
  let table = weights.queryTable;
  if (options.queryModel) {
    table = await readQueryModel(options.queryModel, tokenizer, notes, options);
    if (weights.queryTable) notes.push(`its own query table is replaced by ${table.source}`);
  }
  if (!table) return { ...weights, tokenizer, notes };
  const side = await staticQuerySide(table, tokenizer, weights.config.vocabSize, notes, options);
  return {
    ...weights,
    tokenizer,
    notes,
    queryTable: table,
    queryWeights: side.weights,
    staticQueryTokens: side.maxTokens,
    encoding: describeEncoding(weights.activation, side),
  };
}

/** openModel of `ref`, with its files from the platform (a folder or Hub id in Node; the demo, Hub or picked files in the page). */
export async function openModelRef(platform: Platform, ref: FilesRef, options: OpenModelOptions): Promise<OpenedModel> {
  return openModel(ref, await platform.files(ref), options);
}

/** openWeights of `ref`, with its files from the platform. */
export async function openWeightsRef(platform: Platform, ref: FilesRef, options: OpenModelOptions): Promise<OpenedWeights> {
  return openWeights(ref, await platform.files(ref), options);
}

/** What a source noted while reading (a Hub download that could not be cached still loads, and says so). */
function sourceWarnings(files: FileSource): string[] {
  const warnings = (files as FileSource & { warnings?: unknown }).warnings;
  return Array.isArray(warnings) ? warnings.filter((w): w is string => typeof w === 'string') : [];
}

/** Only the tokenizer of a model (or of a tokenizer folder). */
export async function openTokenizer(platform: Platform, ref: FilesRef, options?: ReadOptions): Promise<TextTokenizer> {
  return loadTokenizer(await platform.files(ref), options);
}

/** CRC-32 of config.json and of every parameter's bytes, in layout order: two models with one config differ here. */
export function weightsFingerprint(config: object, params: Map<string, { data: Float32Array }>): number {
  let crc = crc32(new TextEncoder().encode(JSON.stringify(config)));
  for (const name of [...params.keys()].sort()) {
    const data = params.get(name)!.data;
    crc = crc32(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), crc);
  }
  return crc;
}

export function summarizeModel(model: OpenedWeights): ModelSummary {
  const { config } = model;
  return {
    name: model.name,
    hfArchitecture: config.hfArchitecture,
    vocabSize: config.vocabSize,
    hidden: config.hidden,
    layers: config.layers,
    parameters: model.estimate.parameters,
    tiedHead: config.tieWordEmbeddings,
    maxTokens: maxSequenceTokens(config),
    estimate: model.estimate,
    encoding: model.encoding,
    notes: model.notes,
  };
}
