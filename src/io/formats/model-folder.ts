// Loads a Hugging Face model folder (config.json + safetensors, sharded safetensors or pytorch_model.bin) into fp32
// host tensors, with tied weights detected and kept as one tensor; estimates the fp32 size from headers first.
// An optional byte budget (from config.json) caps the weight bytes read and the bytes decoding allocates.
import { CheckpointFormatError, clip } from '../format-error.ts';
import { checkFileSize, fileLocation, readJsonFile, throwIfAborted, type FileSource, type ReadOptions } from '../file-source.ts';
import type { HostTensor, TensorMap } from '../host-tensor.ts';
import { decodeSafetensors, decodedBytes, parseSafetensorsHeader, safetensorsHeaderLength } from './safetensors.ts';
import { decodeTorchState, indexTorchCheckpoint, torchDecodedBytes, torchResidentBytes } from './torch-pickle.ts';

/** config.json as read; the fields this module looks at are typed, the rest is kept as is. */
export interface HfConfig {
  architectures?: string[];
  model_type?: string;
  vocab_size?: number;
  tie_word_embeddings?: boolean;
  [key: string]: unknown;
}

export type WeightFormat = 'safetensors' | 'safetensors-sharded' | 'pytorch-zip' | 'pytorch-legacy' | 'pytorch-sharded';

export interface Checkpoint {
  config: HfConfig;
  /** Every name the model uses, aliases included (an alias maps to the very same HostTensor object). */
  tensors: TensorMap;
  /** True when the MLM head matrix is the input embedding matrix (one tensor under two names). */
  tied: boolean;
  /** alias name -> canonical name. */
  aliases: Map<string, string>;
  format: WeightFormat;
  files: string[];
  /** Things the loader did that a caller may want to show (renamed keys, differing tied copies). */
  notes: string[];
}

export interface CheckpointEstimate {
  /** fp32 bytes of all distinct tensors once loaded. */
  bytes: number;
  tensorCount: number;
  format: WeightFormat;
  files: string[];
}

export class CheckpointTooLargeError extends Error {
  constructor(
    readonly bytes: number,
    readonly limit: number,
    label: string,
  ) {
    super(
      `the checkpoint in ${label} needs ${(bytes / 2 ** 20).toFixed(1)} MiB as fp32, over the limit of ${(limit / 2 ** 20).toFixed(1)} MiB`,
    );
    this.name = 'CheckpointTooLargeError';
  }
}

/** The weights cost more than the byte budget allows (a checkpoint that does not match its config, or a hostile one). */
export class CheckpointBudgetError extends Error {
  override name = 'CheckpointBudgetError';
  constructor(
    readonly bytes: number,
    readonly budget: number,
    where: string,
    what: string,
  ) {
    super(
      `${where}: ${what} ${mib(bytes)} MiB, over the budget of ${mib(budget)} MiB that config.json allows; ` +
        'the weights do not match the config, or the file is corrupt or hostile',
    );
  }
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

/** More shard files than this is not a real checkpoint (the largest published encoders have a few dozen). */
const MAX_SHARDS = 1024;

/** Head <- source pairs that transformers ties per architecture (the head entry is left out of saved files). */
const TIED_PARAMETERS: Record<string, { head: string; source: string; byEmbeddingTying: boolean }[]> = {
  BertForMaskedLM: [
    { head: 'cls.predictions.decoder.weight', source: 'bert.embeddings.word_embeddings.weight', byEmbeddingTying: true },
    { head: 'cls.predictions.decoder.bias', source: 'cls.predictions.bias', byEmbeddingTying: false },
  ],
  DistilBertForMaskedLM: [
    { head: 'vocab_projector.weight', source: 'distilbert.embeddings.word_embeddings.weight', byEmbeddingTying: true },
  ],
  RobertaForMaskedLM: [
    { head: 'lm_head.decoder.weight', source: 'roberta.embeddings.word_embeddings.weight', byEmbeddingTying: true },
    { head: 'lm_head.decoder.bias', source: 'lm_head.bias', byEmbeddingTying: false },
  ],
  ModernBertForMaskedLM: [{ head: 'decoder.weight', source: 'model.embeddings.tok_embeddings.weight', byEmbeddingTying: true }],
};

const SAFE_FILE_NAME = /^[\w.-]+$/;

interface WeightFiles {
  format: WeightFormat;
  files: string[];
  /** Sharded checkpoints: tensor name -> shard file. */
  weightMap?: Map<string, string>;
}

async function readShardIndex(source: FileSource, indexName: string, options?: ReadOptions): Promise<Map<string, string> | null> {
  const json = await readJsonFile(source, indexName, options);
  if (json === null) return null;
  const weightMap = (json as { weight_map?: unknown }).weight_map;
  if (typeof weightMap !== 'object' || weightMap === null)
    throw new Error(`${indexName} in ${source.label} has no weight_map object`);
  const map = new Map<string, string>();
  for (const [name, shard] of Object.entries(weightMap)) {
    if (typeof shard !== 'string' || !SAFE_FILE_NAME.test(shard) || shard === '..') {
      throw new Error(
        `${indexName} in ${source.label}: shard ${clip(JSON.stringify(shard) ?? String(shard), 60)} of "${clip(name)}" is not a plain file name`,
      );
    }
    map.set(name, shard);
  }
  const shards = new Set(map.values()).size;
  if (shards > MAX_SHARDS)
    throw new Error(
      `${indexName} in ${source.label} names ${shards} shard files, more than the ${MAX_SHARDS} a checkpoint may have`,
    );
  return map;
}

async function exists(source: FileSource, name: string, options?: ReadOptions): Promise<boolean> {
  if (source.readRange) return (await source.readRange(name, 0, 1, options)) !== null;
  return (await source.readFile(name, options)) !== null;
}

/** Finds the weights in the order transformers prefers: safetensors, its index, pytorch_model.bin, its index. */
async function findWeightFiles(source: FileSource, options?: ReadOptions & { byteBudget?: number }): Promise<WeightFiles> {
  // A source without range reads answers "does it exist" by reading the file: never more than the budget.
  if (options?.byteBudget !== undefined)
    options = { ...options, maxFileBytes: Math.min(options.byteBudget, options.maxFileBytes ?? Infinity) };
  if (await exists(source, 'model.safetensors', options)) return { format: 'safetensors', files: ['model.safetensors'] };
  const safetensorsIndex = await readShardIndex(source, 'model.safetensors.index.json', options);
  if (safetensorsIndex)
    return { format: 'safetensors-sharded', files: [...new Set(safetensorsIndex.values())], weightMap: safetensorsIndex };
  if (await exists(source, 'pytorch_model.bin', options)) return { format: 'pytorch-zip', files: ['pytorch_model.bin'] };
  const torchIndex = await readShardIndex(source, 'pytorch_model.bin.index.json', options);
  if (torchIndex) return { format: 'pytorch-sharded', files: [...new Set(torchIndex.values())], weightMap: torchIndex };
  throw new Error(
    `no weights in ${source.label}: looked for model.safetensors, model.safetensors.index.json, pytorch_model.bin and pytorch_model.bin.index.json`,
  );
}

/** Reads a file that must exist; its size is checked against options.maxFileBytes even if the source did not. */
async function requireFile(source: FileSource, name: string, options?: ReadOptions): Promise<Uint8Array> {
  const bytes = await source.readFile(name, options);
  if (bytes === null) throw new Error(`${name} is missing from ${source.label}`);
  checkFileSize(fileLocation(source, name), bytes.length, options);
  return bytes;
}

async function readConfig(source: FileSource, options?: ReadOptions): Promise<HfConfig> {
  const config = await readJsonFile(source, 'config.json', options);
  if (config === null) throw new Error(`config.json is missing from ${source.label}`);
  if (typeof config !== 'object' || Array.isArray(config)) throw new Error(`config.json in ${source.label} is not a JSON object`);
  return config as HfConfig;
}

/** Reads only the header of a safetensors file when the source can read ranges. */
async function safetensorsHeaderOf(source: FileSource, file: string, options?: ReadOptions) {
  if (!source.readRange) {
    const bytes = await requireFile(source, file, options);
    return parseSafetensorsHeader(bytes, file, bytes.length);
  }
  const prefix = await source.readRange(file, 0, 8, options);
  if (!prefix) throw new Error(`${file} is missing from ${source.label}`);
  const length = safetensorsHeaderLength(prefix.bytes, file, prefix.fileSize);
  const head = await source.readRange(file, 0, 8 + length, options);
  if (!head) throw new Error(`${file} is missing from ${source.label}`);
  return parseSafetensorsHeader(head.bytes, file, head.fileSize);
}

export interface EstimateOptions extends ReadOptions {
  /** As LoadOptions.byteBudget: a pytorch_model.bin larger than this is not downloaded, a checkpoint over it refused. */
  byteBudget?: number;
}

/**
 * fp32 bytes the weights will take, from headers (safetensors) or the pickle (pytorch_model.bin), before loading.
 * With a byte budget, a checkpoint whose weights would exceed it is refused here already (CheckpointBudgetError).
 */
export async function estimateCheckpointBytes(source: FileSource, options?: EstimateOptions): Promise<CheckpointEstimate> {
  const found = await findWeightFiles(source, options);
  const budget = options?.byteBudget;
  let bytes = 0;
  let resident = 0;
  let tensorCount = 0;
  let format = found.format;
  for (const file of found.files) {
    if (found.format.startsWith('safetensors')) {
      const header = await safetensorsHeaderOf(source, file, options);
      bytes += decodedBytes(header);
      resident += decodedBytes(header);
      tensorCount += header.entries.length;
    } else {
      const fileBytes = await requireFile(source, file, {
        ...options,
        maxFileBytes: budget === undefined ? options?.maxFileBytes : budget - resident,
      });
      const index = indexTorchCheckpoint(fileBytes, file, { verifyCrc: false });
      if (found.format === 'pytorch-zip' && index.format === 'legacy') format = 'pytorch-legacy';
      bytes += torchDecodedBytes(index);
      resident += torchResidentBytes(index);
      tensorCount += index.tensors.size;
    }
    if (budget !== undefined && resident > budget)
      throw new CheckpointBudgetError(resident, budget, source.label, 'decoding the weights needs');
  }
  return { bytes, tensorCount, format, files: found.files };
}

/** transformers' own load-time renames of old BERT checkpoints (LayerNorm.gamma/beta -> weight/bias). */
function modernName(name: string): string {
  if (name.endsWith('LayerNorm.gamma')) return name.slice(0, -'gamma'.length) + 'weight';
  if (name.endsWith('LayerNorm.beta')) return name.slice(0, -'beta'.length) + 'bias';
  return name;
}

function sameBits(a: HostTensor, b: HostTensor): boolean {
  if (a.shape.join() !== b.shape.join()) return false;
  const x = new Uint32Array(a.data.buffer, a.data.byteOffset, a.data.length);
  const y = new Uint32Array(b.data.buffer, b.data.byteOffset, b.data.length);
  return x.every((v, i) => v === y[i]);
}

/**
 * Ties head parameters to their sources as transformers does: a missing head entry aliases its source; a present one
 * that equals it bit for bit is merged into it; a differing one is overwritten by it (with a note), as on load.
 */
function tieParameters(config: HfConfig, tensors: TensorMap, aliases: Map<string, string>, notes: string[], label: string): void {
  const architecture = config.architectures?.[0] ?? '';
  for (const { head, source, byEmbeddingTying } of TIED_PARAMETERS[architecture] ?? []) {
    if (byEmbeddingTying && config.tie_word_embeddings === false) {
      if (!tensors.has(head)) throw new Error(`${label}: "${head}" is missing and config.json sets tie_word_embeddings to false`);
      continue;
    }
    const sourceTensor = tensors.get(source);
    const headTensor = tensors.get(head);
    if (!sourceTensor || headTensor === sourceTensor) continue;
    if (headTensor && !sameBits(headTensor, sourceTensor))
      notes.push(`"${head}" differed from "${source}"; tied to it as transformers does on load`);
    tensors.set(head, sourceTensor);
    aliases.set(head, aliases.get(source) ?? source);
  }
}

/** One weight file read and validated (header or pickle parsed, every view checked), not yet decoded. */
interface ParsedWeightFile {
  file: string;
  /** Size of the file read. */
  fileBytes: number;
  /** fp32 bytes of its distinct tensors. */
  bytes: number;
  /** Bytes decoding allocates (each storage once, copies of non-contiguous views). */
  residentBytes: number;
  decode(): { tensors: TensorMap; aliases: Map<string, string> };
  legacy: boolean;
}

async function parseWeightFile(
  source: FileSource,
  file: string,
  format: WeightFormat,
  options?: ReadOptions,
): Promise<ParsedWeightFile> {
  const bytes = await requireFile(source, file, options);
  if (format.startsWith('safetensors')) {
    const header = parseSafetensorsHeader(bytes, file, bytes.length);
    const size = decodedBytes(header);
    return {
      file,
      fileBytes: bytes.length,
      bytes: size,
      residentBytes: size,
      legacy: false,
      decode: () => ({ tensors: decodeSafetensors(bytes, header), aliases: new Map() }),
    };
  }
  const index = indexTorchCheckpoint(bytes, file);
  const residentBytes = torchResidentBytes(index);
  return {
    file,
    fileBytes: bytes.length,
    bytes: torchDecodedBytes(index),
    residentBytes,
    legacy: index.format === 'legacy',
    decode: () => decodeTorchState(index),
  };
}

/**
 * Reads and validates every weight file (each within what is left of the byte budget), checks the fp32 total against
 * maxBytes and the decoding cost against the budget, and only then decodes.
 */
async function loadWeights(source: FileSource, found: WeightFiles, options: LoadOptions | undefined) {
  const parsed: ParsedWeightFile[] = [];
  const budget = options?.byteBudget;
  let read = 0;
  for (const file of found.files) {
    throwIfAborted(options?.signal);
    const left = budget === undefined ? undefined : budget - read;
    const maxFileBytes = left === undefined ? options?.maxFileBytes : Math.min(left, options?.maxFileBytes ?? Infinity);
    const weightFile = await parseWeightFile(source, file, found.format, { ...options, maxFileBytes });
    read += weightFile.fileBytes;
    parsed.push(weightFile);
  }
  const total = parsed.reduce((sum, p) => sum + p.bytes, 0);
  if (options?.maxBytes !== undefined && total > options.maxBytes)
    throw new CheckpointTooLargeError(total, options.maxBytes, source.label);
  const resident = parsed.reduce((sum, p) => sum + p.residentBytes, 0);
  if (budget !== undefined && resident > budget)
    throw new CheckpointBudgetError(resident, budget, source.label, 'decoding the weights needs');
  const tensors: TensorMap = new Map();
  const aliases = new Map<string, string>();
  let renamed = 0;
  for (const weightFile of parsed) {
    const { tensors: fileTensors, aliases: fileAliases } = weightFile.decode();
    fileAliases.forEach((canonical, alias) => aliases.set(modernName(alias), modernName(canonical)));
    for (const [name, tensor] of fileTensors) {
      if (found.weightMap && found.weightMap.get(name) !== weightFile.file) {
        throw new CheckpointFormatError(
          weightFile.file,
          `the index assigns it to ${clip(found.weightMap.get(name) ?? 'no shard')}`,
          name,
        );
      }
      if (modernName(name) !== name) renamed++;
      tensors.set(modernName(name), tensor);
    }
  }
  for (const name of found.weightMap?.keys() ?? []) {
    if (!tensors.has(modernName(name)))
      throw new CheckpointFormatError(found.weightMap!.get(name)!, 'listed in the index but not in the shard', name);
  }
  const format: WeightFormat = found.format === 'pytorch-zip' && parsed[0]?.legacy ? 'pytorch-legacy' : found.format;
  return { tensors, aliases, format, renamed };
}

export interface LoadOptions extends ReadOptions {
  /**
   * Refuse, after reading and validating the files but before decoding any tensor, a checkpoint whose fp32 size
   * exceeds this many bytes. (estimateCheckpointBytes answers the same question before downloading.)
   */
  maxBytes?: number;
  /**
   * Caps what the weights may cost: the weight files read (all together; a file over what is left is refused from
   * its size before or while it is read) and the bytes decoding allocates (refused before decoding). loadModel
   * passes checkpointByteBudget(config) (src/model/load-model.ts). A CheckpointBudgetError or FileTooLargeError says so.
   */
  byteBudget?: number;
}

export async function loadCheckpoint(source: FileSource, options?: LoadOptions): Promise<Checkpoint> {
  const config = await readConfig(source, options);
  const found = await findWeightFiles(source, options);
  const { tensors, aliases, format, renamed } = await loadWeights(source, found, options);
  const notes: string[] = [];
  if (renamed > 0) notes.push(`renamed ${renamed} LayerNorm gamma/beta tensors to weight/bias, as transformers does`);
  tieParameters(config, tensors, aliases, notes, source.label);
  const embeddingPairs = TIED_PARAMETERS[config.architectures?.[0] ?? '']?.filter((p) => p.byEmbeddingTying) ?? [];
  const tied =
    embeddingPairs.length > 0
      ? embeddingPairs.every((p) => tensors.get(p.head) !== undefined && tensors.get(p.head) === tensors.get(p.source))
      : aliases.size > 0;
  return { config, tensors, tied, aliases, format, files: found.files, notes };
}
