// A sentence-transformers SparseEncoder folder seen as splade-lab opens models: the document MLM's files, the activation
// its SpladePooling applies, and an inference-free Router's static query table with its own folder (tokenizer inside).
import type { FileSource, ReadOptions } from '../../io/file-source.ts';
import { readJsonFile } from '../../io/file-source.ts';
import { readSafetensors } from '../../io/formats/safetensors.ts';
import {
  readSparseEncoderLayout,
  type SparseEncoderLayout,
  type SpladeActivation,
} from '../../io/formats/sparse-encoder-layout.ts';

/** An inference-free model's query side: a weight per token id, and the folder its tokenizer is read from. */
export interface StaticQueryTable {
  /** One weight per token id, as stored (sentence-transformers sizes it to the tokenizer). */
  weights: Float32Array;
  /** The query module's folder (its tokenizer files and config.json). */
  files: FileSource;
  /** Whether the module says its table is frozen (an IDF table) or was trained. */
  frozen: boolean;
  /** What it is, for notes and cards ("query_0_SparseStaticEmbedding", "idf.json of ..."). */
  source: string;
}

export interface SparseEncoderView {
  /** The document encoder's files (the folder itself for a plain model or a root MLM). */
  files: FileSource;
  layout: SparseEncoderLayout;
  activation: SpladeActivation;
  query?: StaticQueryTable;
  notes: string[];
}

/** `files` seen from inside `folder` ('' is `files` itself). */
export function subFolder(files: FileSource, folder: string): FileSource {
  if (folder === '') return files;
  return {
    label: `${files.label}/${folder}`,
    readFile: (name, options) => files.readFile(`${folder}/${name}`, options),
    readRange: files.readRange
      ? (name, start, length, options) => files.readRange!(`${folder}/${name}`, start, length, options)
      : undefined,
  };
}

/**
 * A static table as sentence-transformers saves it (`weight`, one dimension, in model.safetensors): every weight
 * finite; negative ones are kept (ST uses them as they are; OpenSearch clamps at 0) and said in `notes`.
 */
export function checkStaticTable(weights: Float32Array, where: string, notes: string[]): Float32Array {
  let negative = 0;
  for (let i = 0; i < weights.length; i++) {
    if (!Number.isFinite(weights[i]))
      throw new Error(`${where}: weight ${i} is ${weights[i]}; a query table must be finite (was it saved from a diverged run?)`);
    if (weights[i] < 0) negative++;
  }
  if (negative > 0)
    notes.push(`${where}: ${negative} weights are negative; they are used as they are (as sentence-transformers does)`);
  return weights;
}

/** A SparseStaticEmbedding's table from `folder` of `files` (its model.safetensors and config.json). */
export async function readStaticTable(
  files: FileSource,
  folder: string,
  notes: string[],
  options?: ReadOptions,
): Promise<StaticQueryTable> {
  const module = subFolder(files, folder);
  const where = `${module.label}/model.safetensors`;
  const bytes = await module.readFile('model.safetensors', options);
  if (bytes === null) throw new Error(`${where} is missing: the query route has no table`);
  const weight = readSafetensors(bytes, where).tensors.get('weight');
  if (!weight || weight.shape.length !== 1)
    throw new Error(`${where}: no one-dimensional "weight" tensor (one weight per token), as SparseStaticEmbedding saves it`);
  const config = (await readJsonFile(module, 'config.json', options)) as { frozen?: unknown } | null;
  const weights = checkStaticTable(Float32Array.from(weight.data), where, notes);
  return { weights, files: module, frozen: config?.frozen !== false, source: folder || files.label };
}

/** The folder as its SparseEncoder layout says: the MLM's files, its activation, and an inference-free query table. */
export async function sparseEncoderView(files: FileSource, options?: ReadOptions): Promise<SparseEncoderView> {
  const layout = await readSparseEncoderLayout(files, options);
  const notes = [...layout.notes];
  const query = layout.staticQuery ? await readStaticTable(files, layout.staticQuery.folder, notes, options) : undefined;
  return {
    files: subFolder(files, layout.mlmFolder),
    layout,
    activation: layout.activation,
    ...(query ? { query } : {}),
    notes,
  };
}
