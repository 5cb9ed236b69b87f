// Tiny copies of the sentence-transformers SparseEncoder layouts people bring from the Hub, file for file (names and
// JSON keys from the public repositories and ST's source, weights generated here), each with a LAYOUT-SOURCE.md
// beside it that says where its layout comes from and what could not be read here.
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeSafetensors } from '../../src/io/formats/safetensors.ts';
import type { Architecture } from '../../src/contract/model/model-config.ts';
import { TINY_VOCAB, writeTinySpladeModel } from './tiny-splade-model.ts';

export type HubLayout =
  | 'opensearch-doc-v1'
  | 'opensearch-doc-v2-distill'
  | 'opensearch-doc-v3-distill'
  | 'opensearch-doc-v3-gte'
  | 'st-sparse-encoder-v5'
  | 'st-sparse-encoder-v6'
  | 'splade-lab-router';

export const HUB_LAYOUTS: HubLayout[] = [
  'opensearch-doc-v1',
  'opensearch-doc-v2-distill',
  'opensearch-doc-v3-distill',
  'opensearch-doc-v3-gte',
  'st-sparse-encoder-v5',
  'st-sparse-encoder-v6',
  'splade-lab-router',
];

/** What a layout means, for the float64 reference: its backbone, its pooling and (inference-free) its query table. */
export interface LayoutTruth {
  architecture: Architecture;
  /** The document MLM's folder inside the layout ('' is the root). */
  mlmFolder: string;
  activation: 'relu' | 'log1p_relu';
  /** The static query table as stored (tokenizer-sized), or null when queries go through the MLM. */
  queryTable: Float32Array | null;
}

interface Spec {
  architecture: Architecture;
  kind: 'router-root' | 'router-folder' | 'plain-v5' | 'plain-v6';
  queryFolder?: string;
  queryType?: string;
  activation: 'relu' | 'log1p_relu';
  /** Rows of the head past the tokenizer's ids (GTE's config says 30528 for a 30522-token tokenizer). */
  extraRows?: number;
  source: string;
}

const ST5 = (name: string) => `sentence_transformers.sparse_encoder.models.${name}`;

const OPENSEARCH_SOURCE = (repo: string, extra: string) =>
  `Layout of https://huggingface.co/opensearch-project/${repo} (its "sentence_transformers_support" commit): at the root
config.json, model.safetensors, the tokenizer files, idf.json, modules.json (one Router at path ""),
router_config.json, config_sentence_transformers.json, sentence_bert_config.json; beside them the query module's
folder and document_1_SpladePooling/config.json ({"pooling_strategy", "activation_function",
"word_embedding_dimension": null}, 106 bytes for "relu", 112 for "log1p_relu"). There is no document_0 folder: the
MLM is the root's. ${extra}
router_config.json itself could not be read here (no network): its keys ("types", "structure", "parameters" with
default_route and allow_empty_key) are those Router.save writes in sentence-transformers v5.0.0-v6.0.0
(sentence_transformers/models/Router.py, base/modules/router.py), with the MLM's module id as Router.save names it.
Weights are generated (tiny); the vocabulary is splade-lab's test vocabulary.`;

const SPECS: Record<HubLayout, Spec> = {
  'opensearch-doc-v1': {
    architecture: 'bert',
    kind: 'router-root',
    queryFolder: 'query_0_IDF',
    queryType: ST5('IDF'),
    activation: 'relu',
    source: OPENSEARCH_SOURCE(
      'opensearch-neural-sparse-encoding-doc-v1',
      'The query module is query_0_IDF/ (discussion #5 of that repo lists config.json, model.safetensors, ' +
        'special_tokens_map.json, tokenizer.json, tokenizer_config.json, vocab.txt in it), of the pre-release class ' +
        'IDF that sentence-transformers renamed SparseStaticEmbedding (commit f8f111ea); its old idf.json gave [CLS] 1.0.',
    ),
  },
  'opensearch-doc-v2-distill': {
    architecture: 'distilbert',
    kind: 'router-root',
    queryFolder: 'query_0_SparseStaticEmbedding',
    queryType: ST5('SparseStaticEmbedding'),
    activation: 'relu',
    source: OPENSEARCH_SOURCE('opensearch-neural-sparse-encoding-doc-v2-distill', 'A DistilBERT MLM.'),
  },
  'opensearch-doc-v3-distill': {
    architecture: 'distilbert',
    kind: 'router-root',
    queryFolder: 'query_0_SparseStaticEmbedding',
    queryType: ST5('SparseStaticEmbedding'),
    activation: 'log1p_relu',
    source: OPENSEARCH_SOURCE(
      'opensearch-neural-sparse-encoding-doc-v3-distill',
      'A DistilBERT MLM pooled with activation_function "log1p_relu" (two logs), as the Router docstring of ' +
        'sentence-transformers v5.3.0 builds this model and its 112-byte pooling config says.',
    ),
  },
  'opensearch-doc-v3-gte': {
    architecture: 'gte',
    kind: 'router-root',
    queryFolder: 'query_0_SparseStaticEmbedding',
    queryType: ST5('SparseStaticEmbedding'),
    activation: 'log1p_relu',
    extraRows: 6,
    source: OPENSEARCH_SOURCE(
      'opensearch-neural-sparse-encoding-doc-v3-gte',
      'A GTE MLM (model_type "new") whose config.json vocabulary is 6 rows longer than its tokenizer (30528 against ' +
        "30522), so the query table has the tokenizer's size, as sentence-transformers sizes it. Its pooling " +
        'activation is taken to be log1p_relu like doc-v3-distill (not read here).',
    ),
  },
  'st-sparse-encoder-v5': {
    architecture: 'bert',
    kind: 'plain-v5',
    activation: 'relu',
    source:
      'What SparseEncoder.save writes in sentence-transformers v5.0-v5.3 for an MLMTransformer + SpladePooling ' +
      '(e.g. naver/splade-v3 since its ST support): modules.json with MLMTransformer at "" and SpladePooling at ' +
      '1_SpladePooling, sentence_bert_config.json, config_sentence_transformers.json (base/model.py save, ' +
      'save_in_root of the first module).',
  },
  'st-sparse-encoder-v6': {
    architecture: 'roberta',
    kind: 'plain-v6',
    activation: 'relu',
    source:
      'What sentence-transformers v6.0.0 writes for Transformer(transformer_task="fill-mask") + SpladePooling: the ' +
      'module types under their v6 paths (sentence_transformers.base.modules.transformer.Transformer, ' +
      'sentence_transformers.sparse_encoder.modules.splade_pooling.SpladePooling) and the pooling config key ' +
      '"embedding_dimension" (renamed from word_embedding_dimension in v6).',
  },
  'splade-lab-router': {
    architecture: 'bert',
    kind: 'router-folder',
    queryFolder: 'query_0_SparseStaticEmbedding',
    queryType: ST5('SparseStaticEmbedding'),
    activation: 'relu',
    source:
      'What splade-lab train --inference-free saves, as Router.save writes it in sentence-transformers v5.x and v6.0: ' +
      'every module in its own folder (query_0_SparseStaticEmbedding, document_0_MLMTransformer, ' +
      'document_1_SpladePooling).',
  },
};

const json = (value: unknown) => JSON.stringify(value, null, 2) + '\n';

/** A table as OpenSearch's idf tables look: every token weighted, special tokens too (doc-v1's idf.json gave them 1.0). */
export function layoutQueryTable(size: number): Float32Array {
  return Float32Array.from({ length: size }, (_, id) => 0.25 + ((id * 37) % 23) / 4);
}

/** Writes `layout` into `dir` (created) and returns what it means. */
export async function writeHubLayout(dir: string, layout: HubLayout): Promise<LayoutTruth> {
  const spec = SPECS[layout];
  const model = join(dir, '.model');
  await writeTinySpladeModel(model, spec.architecture, { vocabSize: TINY_VOCAB.length + (spec.extraRows ?? 0) });
  const tokenizerConfig = json({ do_lower_case: true, model_max_length: 512 });
  const specialTokens = json({
    cls_token: '[CLS]',
    mask_token: '[MASK]',
    pad_token: '[PAD]',
    sep_token: '[SEP]',
    unk_token: '[UNK]',
  });
  const tokenizerFiles = new Map<string, string>([
    ['vocab.txt', await readFile(join(model, 'vocab.txt'), 'utf8')],
    ['tokenizer_config.json', tokenizerConfig],
    ['special_tokens_map.json', specialTokens],
  ]);
  const put = async (path: string, content: string | Uint8Array) => {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  };
  const mlmFolder = spec.kind === 'router-folder' ? 'document_0_MLMTransformer' : '';
  await mkdir(join(dir, mlmFolder), { recursive: true });
  for (const name of ['config.json', 'model.safetensors']) await rename(join(model, name), join(dir, mlmFolder, name));
  for (const [name, content] of tokenizerFiles) await put(join(mlmFolder, name), content);
  await rm(model, { recursive: true, force: true });
  await put('LAYOUT-SOURCE.md', `# ${layout}\n\n${spec.source}\n`);
  const pooling = { pooling_strategy: 'max', activation_function: spec.activation, word_embedding_dimension: null };
  const stConfig = {
    model_type: 'SparseEncoder',
    __version__: { sentence_transformers: spec.kind === 'plain-v6' ? '6.0.0' : '5.0.0' },
    prompts: { query: '', document: '' },
    default_prompt_name: null,
    similarity_fn_name: 'dot',
  };
  await put('config_sentence_transformers.json', json(stConfig));
  if (spec.kind === 'plain-v5' || spec.kind === 'plain-v6') {
    const v6 = spec.kind === 'plain-v6';
    await put(
      'modules.json',
      json([
        {
          idx: 0,
          name: '0',
          path: '',
          type: v6 ? 'sentence_transformers.base.modules.transformer.Transformer' : ST5('MLMTransformer'),
        },
        {
          idx: 1,
          name: '1',
          path: '1_SpladePooling',
          type: v6 ? 'sentence_transformers.sparse_encoder.modules.splade_pooling.SpladePooling' : ST5('SpladePooling'),
        },
      ]),
    );
    await put(
      'sentence_bert_config.json',
      json({ max_seq_length: 512, do_lower_case: false, ...(v6 ? { transformer_task: 'fill-mask' } : {}) }),
    );
    const { word_embedding_dimension: _, ...rest } = pooling;
    await put('1_SpladePooling/config.json', json(v6 ? { ...rest, embedding_dimension: null } : pooling));
    return { architecture: spec.architecture, mlmFolder, activation: spec.activation, queryTable: null };
  }
  const queryFolder = spec.queryFolder!;
  const table = layoutQueryTable(TINY_VOCAB.length);
  const mlmId = 'document_0_MLMTransformer';
  await put(
    'router_config.json',
    json({
      types: { [queryFolder]: spec.queryType, [mlmId]: ST5('MLMTransformer'), document_1_SpladePooling: ST5('SpladePooling') },
      structure: { query: [queryFolder], document: [mlmId, 'document_1_SpladePooling'] },
      parameters: { default_route: 'document', allow_empty_key: true },
    }),
  );
  await put('modules.json', json([{ idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Router' }]));
  await put('document_1_SpladePooling/config.json', json(pooling));
  await put(`${queryFolder}/config.json`, json({ frozen: true }));
  await put(
    `${queryFolder}/model.safetensors`,
    writeSafetensors([['weight', { shape: [table.length], data: table }]], { format: 'pt' }),
  );
  for (const [name, content] of tokenizerFiles) await put(`${queryFolder}/${name}`, content);
  if (spec.kind === 'router-root') {
    await put('sentence_bert_config.json', json({ max_seq_length: 512, do_lower_case: false }));
    const idf = Object.fromEntries(TINY_VOCAB.map((token, id) => [token, table[id]]));
    await put('idf.json', json(idf));
  }
  return { architecture: spec.architecture, mlmFolder, activation: spec.activation, queryTable: table };
}
