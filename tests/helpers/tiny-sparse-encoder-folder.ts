// A saved sentence-transformers SparseEncoder folder around a tiny model folder (config.json, model.safetensors,
// vocab.txt): plain (modules.json: MLMTransformer at the root, 1_SpladePooling), a v5 Router as its save() lays it out
// (query_0_SparseStaticEmbedding with a weight per token, document_0_MLMTransformer/, document_1_SpladePooling/), or a
// Router with the MLM's files at the root, as OpenSearch's doc-v2/v3 repositories keep them.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeSafetensors } from '../../src/io/formats/safetensors.ts';
import { TINY_VOCAB, writeTinySpladeModel } from './tiny-splade-model.ts';

export type SparseEncoderLayout = 'plain' | 'router' | 'router-root';

const MLM = 'sentence_transformers.sparse_encoder.models.MLMTransformer';
const POOLING = 'sentence_transformers.sparse_encoder.models.SpladePooling';
const STATIC = 'sentence_transformers.sparse_encoder.models.SparseStaticEmbedding';
const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value, null, 2));

/** Writes the folder `dir` from the tiny model `source`; a Router's query table is `queryWeights` (default all 1). */
export async function writeSparseEncoderFolder(
  dir: string,
  source: string,
  layout: SparseEncoderLayout,
  queryWeights?: Float32Array,
): Promise<void> {
  const model = new Map<string, Uint8Array>();
  for (const file of ['config.json', 'model.safetensors', 'vocab.txt']) model.set(file, await readFile(join(source, file)));
  const pooling = json({ pooling_strategy: 'max', activation_function: 'relu' });
  const files = new Map<string, Uint8Array>();
  if (layout === 'plain') {
    for (const [file, bytes] of model) files.set(file, bytes);
    files.set(
      'modules.json',
      json([
        { idx: 0, name: '0', path: '', type: MLM },
        { idx: 1, name: '1', path: '1_SpladePooling', type: POOLING },
      ]),
    );
    files.set('1_SpladePooling/config.json', pooling);
  } else {
    const document = layout === 'router' ? 'document_0_MLMTransformer/' : '';
    for (const [file, bytes] of model) files.set(`${document}${file}`, bytes);
    const V = (JSON.parse(new TextDecoder().decode(model.get('config.json'))) as { vocab_size: number }).vocab_size;
    const weight = { shape: [V], data: queryWeights ?? new Float32Array(V).fill(1) };
    files.set('query_0_SparseStaticEmbedding/config.json', json({ frozen: true }));
    files.set('query_0_SparseStaticEmbedding/model.safetensors', writeSafetensors([['weight', weight]], { format: 'pt' }));
    files.set('query_0_SparseStaticEmbedding/vocab.txt', model.get('vocab.txt')!);
    files.set('query_0_SparseStaticEmbedding/tokenizer_config.json', json({ tokenizer_class: 'BertTokenizer' }));
    files.set('document_1_SpladePooling/config.json', pooling);
    files.set(
      'router_config.json',
      json({
        types: { query_0_SparseStaticEmbedding: STATIC, document_0_MLMTransformer: MLM, document_1_SpladePooling: POOLING },
        structure: {
          query: ['query_0_SparseStaticEmbedding'],
          document: ['document_0_MLMTransformer', 'document_1_SpladePooling'],
        },
        parameters: { default_route: 'document', allow_empty_key: true },
      }),
    );
    files.set('modules.json', json([{ idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Router' }]));
  }
  for (const [file, bytes] of files) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), bytes);
  }
}

/**
 * The publish tests' two models under `root`: `plain`, the tiny BERT MLM (64 positions; not inference-free), and
 * `router`, the same as a Router whose static query table weighs the special ids 0 and the others 1 to 3.
 */
export async function writeTinyPublishModels(root: string): Promise<{ plain: string; router: string }> {
  const plain = join(root, 'plain');
  const router = join(root, 'router');
  await writeTinySpladeModel(plain, 'bert', { maxPositions: 64 });
  const table = Float32Array.from(TINY_VOCAB, (_, id) => (id < 5 ? 0 : 1 + (id % 7) / 3));
  await writeSparseEncoderFolder(router, plain, 'router', table);
  return { plain, router };
}
