// OpenSearch ml-commons model bundles (`splade-lab export-opensearch`): a zip and the register API's model config.
// Document side, function SPARSE_ENCODING, format ONNX: model.onnx (the pooled graph, inputs named input1.input_ids and
// input1.attention_mask, as SentenceTransformerTranslator names the arrays it feeds and DJL's OrtSymbolBlock matches by
// name; output `output`) + tokenizer.json. Query side of an inference-free model, function SPARSE_TOKENIZE:
// tokenizer.json + idf.json (decoded token text -> weight, as SparseTokenizerModel looks weights up). Followed:
// opensearch-project/ml-commons 3.8 (ModelHelper.verifyModelZipFile, DLModel.loadModel, SparseEncodingTranslator,
// SparseTokenizerModel) and opensearch-py-ml's sparse_encoding_model.py / sparse_tokenize_model.py (zip, config JSON).
import { zipSync, type Zippable } from 'fflate';
import { maxSequenceTokens } from '../../contract/model/max-tokens.ts';
import { decodedTokenTexts } from '../../io/tokenizer/token-texts.ts';
import type { Json } from '../../io/tokenizer/tokenizer-json.ts';
import { readTokenizerJson } from '../../io/tokenizer/tokenizer-load.ts';
import type { FilesRef, Platform } from '../platform/platform.ts';
import { type OnnxExportRequest, ONNX_HOST_LIMITS, checkOnnxRequest, onnxOfWeights } from './export-onnx.ts';
import { type OpenedModel, openModelRef } from './open-model.ts';

/** The names ml-commons' SPARSE_ENCODING translator feeds and reports (SentenceTransformerTranslator.processInput). */
export const ML_COMMONS_ONNX_NAMES = { ids: 'input1.input_ids', mask: 'input1.attention_mask', output: 'output' } as const;

/** The register API's body (POST /_plugins/_ml/models/_register) less `url`, which says where the zip is served. */
export interface MlCommonsModelConfig {
  name: string;
  version: string;
  model_format: 'ONNX' | 'TORCH_SCRIPT';
  function_name: 'SPARSE_ENCODING' | 'SPARSE_TOKENIZE';
  description: string;
  model_content_size_in_bytes: number;
  /** SHA-256 of the zip, lower-case hex (ml-commons' FileUtils.calculateFileHash; checked on register by URL). */
  model_content_hash_value: string;
  model_config?: { model_type: string; all_config: string };
}

export interface OpenSearchBundle {
  zip: Uint8Array;
  config: MlCommonsModelConfig;
  /** The zip's entries, in order. */
  files: string[];
  notes: string[];
}

export interface BundleNaming {
  /** Default: "splade-lab/<model name>". */
  name?: string;
  /** Default "1.0.0". */
  version?: string;
}

/** Entries stored as written at a fixed time, so that one model gives one zip (and one hash). */
const ZIP_OPTIONS = { level: 0, mtime: '1980-01-01T00:00:00' } as const;

/** Lower-case hex SHA-256 (Web Crypto: the page and Node alike). */
export async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The model's tokenizer.json as ml-commons reads it: DJL takes truncation from the file, so a file without any gets
 * the length splade-lab encodes at (as opensearch-py-ml's _fill_null_truncation_field does).
 */
async function bundleTokenizer(model: OpenedModel, maxLength: number, notes: string[]): Promise<Json> {
  const { json, file } = await readTokenizerJson(model.files);
  if (file === 'vocab.txt') notes.push('the model has only vocab.txt: the zip holds the tokenizer.json it makes');
  if (json.truncation == null) {
    json.truncation = { direction: 'Right', max_length: maxLength, strategy: 'LongestFirst', stride: 0 };
    notes.push(`tokenizer.json had no truncation: set to ${maxLength} tokens (longest first), as splade-lab encodes`);
  }
  return json;
}

const encodeJson = (value: unknown) => new TextEncoder().encode(JSON.stringify(value, null, 2) + '\n');

async function finish(
  files: Zippable,
  config: Omit<MlCommonsModelConfig, 'model_content_size_in_bytes' | 'model_content_hash_value'>,
  notes: string[],
): Promise<OpenSearchBundle> {
  const zip = zipSync(files, ZIP_OPTIONS);
  const { model_config: modelConfig, ...head } = config;
  return {
    zip,
    config: {
      ...head,
      model_content_size_in_bytes: zip.length,
      model_content_hash_value: await sha256Hex(zip),
      ...(modelConfig ? { model_config: modelConfig } : {}),
    },
    files: Object.keys(files),
    notes,
  };
}

/** A document model as ml-commons' SPARSE_ENCODING ONNX bundle: the pooled graph, head divided by k, and its tokenizer. */
export async function openSearchDocumentBundle(
  platform: Platform,
  ref: FilesRef,
  request: Pick<OnnxExportRequest, 'k' | 'opset'> & BundleNaming,
): Promise<OpenSearchBundle> {
  const onnxRequest: OnnxExportRequest = {
    k: request.k,
    opset: request.opset,
    output: 'sparse',
    // not listed by onnxruntime's Java API, so DJL sees the two inputs the translator feeds
    tokenTypeIds: 'optional',
    names: ML_COMMONS_ONNX_NAMES,
  };
  checkOnnxRequest(onnxRequest);
  const model = await openModelRef(platform, ref, { limits: ONNX_HOST_LIMITS });
  const onnx = onnxOfWeights(model, onnxRequest);
  const notes = [...onnx.notes];
  const tokenizer = await bundleTokenizer(model, maxSequenceTokens(model.config), notes);
  return finish(
    { 'model.onnx': onnx.bytes, 'tokenizer.json': encodeJson(tokenizer) },
    {
      name: request.name ?? `splade-lab/${model.name}`,
      version: request.version ?? '1.0.0',
      model_format: 'ONNX',
      function_name: 'SPARSE_ENCODING',
      description:
        `SPLADE document encoder (${model.config.hfArchitecture}, MLM head divided by k = ${request.k}) exported by ` +
        'splade-lab: max over tokens of log(1 + relu(logits))',
      model_config: {
        model_type: String(model.hfConfig.model_type ?? model.config.architecture),
        all_config: JSON.stringify(model.hfConfig),
      },
    },
    notes,
  );
}

/**
 * idf.json as SparseTokenizerModel reads it: every token's weight under the text it decodes to (a token left out
 * would weigh 1.0 there, so zeros are written too); special tokens, which decode to "", are left out. Tokens that
 * decode to one text (byte-level BPE's partial bytes) share one entry: the largest weight, counted in `merged`.
 */
export function mlCommonsIdf(weights: Float32Array, texts: string[]): { idf: Record<string, number>; merged: number } {
  const idf: Record<string, number> = Object.create(null);
  let merged = 0;
  const n = Math.min(weights.length, texts.length);
  for (let id = 0; id < n; id++) {
    const text = texts[id];
    if (text === '') continue;
    if (Object.hasOwn(idf, text)) {
      if (idf[text] !== weights[id]) merged++;
      idf[text] = Math.max(idf[text], weights[id]);
    } else idf[text] = weights[id];
  }
  return { idf: { ...idf }, merged };
}

/** An inference-free model's query side as ml-commons' SPARSE_TOKENIZE bundle: tokenizer.json and idf.json. */
export async function openSearchQueryBundle(platform: Platform, ref: FilesRef, request: BundleNaming): Promise<OpenSearchBundle> {
  const model = await openModelRef(platform, ref, { limits: ONNX_HOST_LIMITS });
  if (!model.queryWeights)
    throw new Error(
      `${model.name} has no static query table: --side query takes an inference-free model (a Router folder saved by ` +
        'train --inference-free, or an OpenSearch doc-v2/v3 model); a model that encodes queries exports --side document',
    );
  const notes = [...model.notes];
  // static queries keep model_max_length tokens in sentence-transformers (openModel's staticQueryTokens)
  const tokenizer = await bundleTokenizer(model, model.staticQueryTokens ?? maxSequenceTokens(model.config), notes);
  const { idf, merged } = mlCommonsIdf(model.queryWeights, decodedTokenTexts(tokenizer));
  if (merged > 0)
    notes.push(
      `${merged} tokens decode to the text of another token (ml-commons keys idf.json by decoded text): each such text ` +
        'keeps the largest of their weights',
    );
  return finish(
    { 'tokenizer.json': encodeJson(tokenizer), 'idf.json': encodeJson(idf) },
    {
      name: request.name ?? `splade-lab/${model.name}-tokenizer`,
      version: request.version ?? '1.0.0',
      // what opensearch-py-ml writes for the tokenizer bundle; ml-commons asks for no model file with SPARSE_TOKENIZE
      model_format: 'TORCH_SCRIPT',
      function_name: 'SPARSE_TOKENIZE',
      description: `Inference-free SPLADE queries of ${model.name}: each token weighs its static (IDF) weight; exported by splade-lab`,
    },
    notes,
  );
}
