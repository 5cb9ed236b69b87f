// Saves a model as Hugging Face files (config.json, model.safetensors, tokenizer files) plus the sentence-transformers
// SparseEncoder modules (MLMTransformer at the root, SpladePooling with max pooling in 1_SpladePooling); or, for an
// inference-free model, as a Router of a static query embedding and that document encoder.
import type { FileSink, FileSource, ReadOptions } from '../file-source.ts';
import type { HostTensor, TensorMap } from '../host-tensor.ts';
import type { HfConfig } from './model-folder.ts';
import { writeSafetensors } from './safetensors.ts';
import { standaloneTokenizerConfig, type SpecialTokenTexts } from '../tokenizer/tokenizer-class.ts';

/** What a saver needs of a checkpoint: the same shape loadCheckpoint returns. */
export interface SavableModel {
  config: HfConfig;
  tensors: TensorMap;
  /** alias name -> canonical name; aliases are not written (transformers re-ties them on load). */
  aliases: Map<string, string>;
}

export interface SaveOptions {
  /** Tokenizer files copied through unchanged (collectTokenizerFiles gathers them from the source folder). */
  tokenizerFiles?: Map<string, Uint8Array>;
  /** sentence_bert_config.json max_seq_length; null lets sentence-transformers take the model's limit. */
  maxSeqLength?: number | null;
}

/** The files every tokenizer brings along; the vocabulary itself is tokenizer.json or, without it, vocab.txt. */
const TOKENIZER_CONFIG_FILES = ['tokenizer_config.json', 'special_tokens_map.json', 'added_tokens.json'];

/**
 * The tokenizer files a saved model needs, as the loader reads them: tokenizer.json (fast tokenizers, and every
 * tokenizer with BPE merges) or else vocab.txt, plus the tokenizer's config files. Nothing else is copied.
 */
export async function collectTokenizerFiles(source: FileSource, options?: ReadOptions): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  const tokenizerJson = await source.readFile('tokenizer.json', options);
  const vocabulary = tokenizerJson
    ? (['tokenizer.json', tokenizerJson] as const)
    : (['vocab.txt', await source.readFile('vocab.txt', options)] as const);
  if (vocabulary[1]) files.set(vocabulary[0], vocabulary[1]);
  for (const name of TOKENIZER_CONFIG_FILES) {
    const bytes = await source.readFile(name, options);
    if (bytes) files.set(name, bytes);
  }
  return files;
}

function jsonFile(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value, null, 2) + '\n');
}

/** config_sentence_transformers.json of a SparseEncoder (plain or Router): dot-product similarity, no prompts. */
const SPARSE_ENCODER_CONFIG = jsonFile({
  model_type: 'SparseEncoder',
  __version__: { sentence_transformers: '5.0.0' },
  prompts: { query: '', document: '' },
  default_prompt_name: null,
  similarity_fn_name: 'dot',
});

/** Each tensor once: aliases dropped, and any tensor object already kept under another name dropped too. */
function tensorsToWrite(model: SavableModel): [string, HostTensor][] {
  const kept = new Set<HostTensor>();
  const out: [string, HostTensor][] = [];
  for (const [name, tensor] of model.tensors) {
    if (model.aliases.has(name)) continue;
    if (kept.has(tensor)) throw new Error(`"${name}" shares its tensor with another name but is not listed as an alias`);
    kept.add(tensor);
    out.push([name, tensor]);
  }
  return out;
}

/** All files of the saved model, by path relative to the model folder. */
export function buildSavedModelFiles(model: SavableModel, options: SaveOptions = {}): Map<string, Uint8Array> {
  const vocabSize = model.config.vocab_size;
  if (typeof vocabSize !== 'number' || !Number.isInteger(vocabSize) || vocabSize <= 0) {
    throw new Error('config.json has no integer vocab_size; SpladePooling needs it as word_embedding_dimension');
  }
  const files = new Map<string, Uint8Array>();
  files.set('config.json', jsonFile(model.config));
  files.set('model.safetensors', writeSafetensors(tensorsToWrite(model), { format: 'pt' }));
  for (const [name, bytes] of options.tokenizerFiles ?? []) files.set(name, bytes);
  files.set(
    'modules.json',
    jsonFile([
      { idx: 0, name: '0', path: '', type: 'sentence_transformers.sparse_encoder.models.MLMTransformer' },
      { idx: 1, name: '1', path: '1_SpladePooling', type: 'sentence_transformers.sparse_encoder.models.SpladePooling' },
    ]),
  );
  files.set('sentence_bert_config.json', jsonFile({ max_seq_length: options.maxSeqLength ?? null, do_lower_case: false }));
  files.set('config_sentence_transformers.json', SPARSE_ENCODER_CONFIG);
  files.set(
    '1_SpladePooling/config.json',
    jsonFile({ pooling_strategy: 'max', activation_function: 'relu', word_embedding_dimension: vocabSize }),
  );
  return files;
}

/** The folders of an inference-free model's Router (sentence-transformers v5), each module's files inside its own. */
export const ROUTER_PATHS = {
  query: 'query_0_SparseStaticEmbedding',
  document: 'document_0_MLMTransformer',
  pooling: 'document_1_SpladePooling',
} as const;

/** What the query module's tokenizer files need of the model: its type and its tokenizer's size and special tokens. */
export interface QueryTokenizerInfo {
  /** config.json's model_type (picks tokenizer_class when the source's tokenizer_config.json names none). */
  modelType: string;
  /** The tokenizer's number of ids: sentence-transformers sizes a SparseStaticEmbedding's table to it. */
  vocabSize: number;
  specials: SpecialTokenTexts;
}

/**
 * An inference-free SparseEncoder (sentence-transformers' Router): the query route a SparseStaticEmbedding (one weight
 * per token of the tokenizer, `weight` in its model.safetensors, frozen unless it was trained, with the tokenizer files
 * and a tokenizer_config.json that names its tokenizer_class), the document route the MLMTransformer and SpladePooling
 * of `encoderFiles` (what buildSavedModelFiles made), each in its own folder as Router.save writes them in ST 5.x and
 * 6.x; module types under their 5.x names, which 6.x still resolves (its deprecated-import aliases) and 5.0-5.3 need.
 */
export function buildRouterFiles(
  encoderFiles: Map<string, Uint8Array>,
  queryWeights: Float32Array,
  tokenizerFiles: Map<string, Uint8Array>,
  tokenizer: QueryTokenizerInfo,
  options: { frozen: boolean } = { frozen: true },
): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  const P = ROUTER_PATHS;
  for (const [name, bytes] of encoderFiles) {
    if (name === 'modules.json' || name === 'config_sentence_transformers.json') continue;
    if (name === '1_SpladePooling/config.json') files.set(`${P.pooling}/config.json`, bytes);
    else if (name === 'README.md') files.set(name, bytes);
    else files.set(`${P.document}/${name}`, bytes);
  }
  if (tokenizer.vocabSize > queryWeights.length)
    throw new Error(`the tokenizer has ${tokenizer.vocabSize} ids but the query table only ${queryWeights.length} weights`);
  files.set(`${P.query}/config.json`, jsonFile({ frozen: options.frozen }));
  const table = queryWeights.slice(0, tokenizer.vocabSize);
  const weight: HostTensor = { shape: [table.length], data: table };
  files.set(`${P.query}/model.safetensors`, writeSafetensors([['weight', weight]], { format: 'pt' }));
  for (const [name, bytes] of tokenizerFiles) files.set(`${P.query}/${name}`, bytes);
  files.set(
    `${P.query}/tokenizer_config.json`,
    standaloneTokenizerConfig(tokenizerFiles.get('tokenizer_config.json'), tokenizer.modelType, tokenizer.specials),
  );
  const module = (name: string) => `sentence_transformers.sparse_encoder.models.${name}`;
  files.set(
    'router_config.json',
    jsonFile({
      types: {
        [P.query]: module('SparseStaticEmbedding'),
        [P.document]: module('MLMTransformer'),
        [P.pooling]: module('SpladePooling'),
      },
      structure: { query: [P.query], document: [P.document, P.pooling] },
      parameters: { default_route: 'document', allow_empty_key: true },
    }),
  );
  files.set('modules.json', jsonFile([{ idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Router' }]));
  files.set('config_sentence_transformers.json', SPARSE_ENCODER_CONFIG);
  return files;
}

/** Writes the saved model's files to a sink; returns their names. */
export async function saveSparseEncoder(sink: FileSink, model: SavableModel, options: SaveOptions = {}): Promise<string[]> {
  const files = buildSavedModelFiles(model, options);
  for (const [name, bytes] of files) await sink.writeFile(name, bytes);
  return [...files.keys()];
}
