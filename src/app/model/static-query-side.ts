// The query side of an inference-free model, made ready for encoding: its table checked against the query tokenizer
// (sized as sentence-transformers sizes it, ids that line up with the document encoder's), widened to the head's
// vocabulary, and the truncation sentence-transformers applies to static queries (the tokenizer's model_max_length).
import { readJsonFile, type FileSource, type ReadOptions } from '../../io/file-source.ts';
import { queryTableFromIdfJson } from '../../io/formats/idf-json.ts';
import type { TextTokenizer } from '../../io/tokenizer/tokenizer.ts';
import { loadTokenizer } from '../../io/tokenizer/tokenizer-load.ts';
import type { SpladeActivation } from '../../io/formats/sparse-encoder-layout.ts';
import { readStaticTable, sparseEncoderView, type StaticQueryTable } from './sparse-encoder-view.ts';

export interface StaticQuerySide {
  /** One weight per id of the head's vocabulary (ids past the table's end weigh 0). */
  weights: Float32Array;
  /** Static queries keep at most this many tokens (no special tokens); null: none cut. */
  maxTokens: number | null;
  /** What the table is, for the encoding line ("an IDF table of 30522 tokens"). */
  description: string;
}

/** "inference-free: queries by an IDF table of N tokens; documents by the MLM with SpladePooling(max, relu)". */
export function describeEncoding(activation: SpladeActivation, query?: { description: string }): string {
  const documents = `the MLM with SpladePooling(max, ${activation})`;
  return query
    ? `inference-free: queries by ${query.description}; documents by ${documents}`
    : `queries and documents by ${documents}`;
}

export function describeTable(table: { weights: Float32Array; frozen: boolean }): string {
  return `${table.frozen ? 'an IDF table' : 'a trained weight table'} of ${table.weights.length} tokens`;
}

async function tokenizerOf(files: FileSource, fallback: TextTokenizer, notes: string[], options?: ReadOptions) {
  try {
    return await loadTokenizer(files, options);
  } catch (error) {
    if (!(error instanceof Error && /^no tokenizer in /.test(error.message))) throw error;
    notes.push(`${files.label} has no tokenizer files: queries are tokenized by the document encoder's tokenizer`);
    return fallback;
  }
}

/** The first id whose token differs between two tokenizers (or their sizes differ): ids must mean the same tokens. */
function firstDifference(a: TextTokenizer, b: TextTokenizer): string | null {
  if (a.vocabSize !== b.vocabSize) return `${a.vocabSize} ids against ${b.vocabSize}`;
  for (let id = 0; id < a.vocabSize; id++)
    if (a.idToToken(id) !== b.idToToken(id)) return `id ${id} is "${a.idToToken(id)}" against "${b.idToToken(id)}"`;
  return null;
}

/** A positive integer model_max_length from tokenizer_config.json, or null (transformers then truncates nothing). */
async function modelMaxLength(files: FileSource, options?: ReadOptions): Promise<number | null> {
  const config = (await readJsonFile(files, 'tokenizer_config.json', options)) as { model_max_length?: unknown } | null;
  const length = config?.model_max_length;
  return typeof length === 'number' && Number.isInteger(length) && length > 0 && length <= 1_000_000 ? length : null;
}

/**
 * Checks `table` against its tokenizer and the document encoder's (`tokenizer`, `vocabSize` rows in the head) and
 * widens it to `vocabSize`: its length is the query tokenizer's size (sentence-transformers) or the head's (older saves).
 */
export async function staticQuerySide(
  table: StaticQueryTable,
  tokenizer: TextTokenizer,
  vocabSize: number,
  notes: string[],
  options?: ReadOptions,
): Promise<StaticQuerySide> {
  const queryTokenizer = await tokenizerOf(table.files, tokenizer, notes, options);
  const difference = firstDifference(queryTokenizer, tokenizer);
  if (difference)
    throw new Error(
      `${table.files.label}: the query tokenizer differs from the document encoder's (${difference}): query and ` +
        'document ids would name different tokens; use a query table made for this model',
    );
  const length = table.weights.length;
  if (length !== queryTokenizer.vocabSize && length !== vocabSize)
    throw new Error(
      `${table.files.label}: the query table has ${length} weights, but its tokenizer has ${queryTokenizer.vocabSize} ` +
        `tokens and the model's head ${vocabSize} rows; the table belongs to another model`,
    );
  const weights = new Float32Array(vocabSize);
  weights.set(table.weights.subarray(0, Math.min(length, vocabSize)));
  return {
    weights,
    maxTokens: await modelMaxLength(table.files, options),
    description: describeTable(table),
  };
}

/**
 * A query side named apart from the model (`--query-model`): an inference-free SparseEncoder's query route, a
 * SparseStaticEmbedding folder, or a tokenizer folder with OpenSearch's idf.json (opensearch-neural-sparse-tokenizer-v1).
 */
export async function readQueryModel(
  files: FileSource,
  tokenizer: TextTokenizer,
  notes: string[],
  options?: ReadOptions,
): Promise<StaticQueryTable> {
  const idf = await readJsonFile(files, 'idf.json', options);
  if (idf !== null) {
    const queryTokenizer = await tokenizerOf(files, tokenizer, notes, options);
    const weights = queryTableFromIdfJson(idf, queryTokenizer, `${files.label}/idf.json`);
    return { weights, files, frozen: true, source: `idf.json of ${files.label}` };
  }
  const view = await sparseEncoderView(files, options);
  if (view.query) return view.query;
  if (view.layout.kind === 'backbone' && (await files.readFile('model.safetensors', options)) !== null) {
    const config = await readJsonFile(files, 'config.json', options);
    // a SparseStaticEmbedding's own folder: config.json is {"frozen": ...}, not a model's
    if (config !== null && typeof config === 'object' && !('model_type' in config))
      return readStaticTable(files, '', notes, options);
  }
  throw new Error(
    `${files.label}: no query table here (neither idf.json beside a tokenizer, nor an inference-free model's query route)`,
  );
}
