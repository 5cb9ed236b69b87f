// Bad SparseEncoder folders are refused with a message naming the file and what to do, before any weight is read: a
// Router naming an unknown module type, a route leaving the folder, a missing query folder, an unsupported pooling,
// an idf.json with bad weights or tokens its tokenizer lacks, and a query table holding NaN.
import { describe, expect, it } from 'vitest';
import { createMemorySource } from '../../../src/io/file-source.ts';
import { queryTableFromIdfJson } from '../../../src/io/formats/idf-json.ts';
import { writeSafetensors } from '../../../src/io/formats/safetensors.ts';
import { readSparseEncoderLayout } from '../../../src/io/formats/sparse-encoder-layout.ts';
import { createWordPieceTokenizer } from '../../../src/io/tokenizer/wordpiece.ts';
import { sparseEncoderView } from '../../../src/app/model/sparse-encoder-view.ts';
import { TINY_VOCAB } from '../../helpers/tiny-splade-model.ts';

const text = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const ST = (name: string) => `sentence_transformers.sparse_encoder.models.${name}`;
const table = (values: number[]) => writeSafetensors([['weight', { shape: [values.length], data: Float32Array.from(values) }]]);

/** An OpenSearch-style Router (MLM at the root) with `change` applied to its router_config.json. */
function router(change: (config: Record<string, unknown>) => void = () => {}, extra: [string, Uint8Array][] = []) {
  const config: Record<string, unknown> = {
    types: {
      query_0_SparseStaticEmbedding: ST('SparseStaticEmbedding'),
      document_0_MLMTransformer: ST('MLMTransformer'),
      document_1_SpladePooling: ST('SpladePooling'),
    },
    structure: { query: ['query_0_SparseStaticEmbedding'], document: ['document_0_MLMTransformer', 'document_1_SpladePooling'] },
    parameters: { default_route: 'document', allow_empty_key: true },
  };
  change(config);
  return createMemorySource(
    new Map<string, Uint8Array>([
      ['modules.json', text([{ idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Router' }])],
      ['router_config.json', text(config)],
      ['config.json', text({ model_type: 'bert' })],
      ['query_0_SparseStaticEmbedding/model.safetensors', table([1, 2, 3])],
      ['query_0_SparseStaticEmbedding/config.json', text({ frozen: true })],
      ['document_1_SpladePooling/config.json', text({ pooling_strategy: 'max', activation_function: 'relu' })],
      ...extra,
    ]),
    'folder m',
  );
}

describe('reading a SparseEncoder layout', () => {
  it('finds the root MLM of an OpenSearch Router, its pooling and its query folder', async () => {
    const layout = await readSparseEncoderLayout(router());
    expect(layout).toMatchObject({
      kind: 'router',
      mlmFolder: '',
      activation: 'relu',
      staticQuery: { folder: 'query_0_SparseStaticEmbedding', type: ST('SparseStaticEmbedding') },
    });
    expect(layout.notes.join('\n')).toMatch(/read from the folder's root/);
  });

  it.each([
    [
      'an unknown module type',
      (c: Record<string, unknown>) => ((c.types as Record<string, string>).document_1_SpladePooling = ST('CSRSparsity')),
      /router_config\.json: module type "sentence_transformers\.sparse_encoder\.models\.CSRSparsity" is not one splade-lab reads/,
    ],
    [
      'a custom module class',
      (c: Record<string, unknown>) => ((c.types as Record<string, string>).document_1_SpladePooling = 'my_code.Pool'),
      /custom class: splade-lab runs no remote code/,
    ],
    [
      'a route with ".."',
      (c: Record<string, unknown>) => ((c.structure as Record<string, string[]>).query = ['../elsewhere']),
      /module folder "\.\.\/elsewhere" is not a plain folder inside the model/,
    ],
    [
      'an absolute route',
      (c: Record<string, unknown>) => ((c.structure as Record<string, string[]>).query = ['/etc']),
      /module folder "\/etc" is not a plain folder inside the model/,
    ],
    [
      'a query route that is an MLM',
      (c: Record<string, unknown>) => ((c.types as Record<string, string>).query_0_SparseStaticEmbedding = ST('MLMTransformer')),
      /two-encoder SPLADE/,
    ],
    [
      'a third route',
      (c: Record<string, unknown>) => ((c.structure as Record<string, string[]>).image = ['x']),
      /route "image" is not one splade-lab reads/,
    ],
  ])('refuses %s, naming router_config.json', async (_, change, message) => {
    await expect(readSparseEncoderLayout(router(change))).rejects.toThrow(message);
    await expect(readSparseEncoderLayout(router(change))).rejects.toThrow(/folder m\/router_config\.json/);
  });

  it('refuses a missing query folder and sum pooling, saying what to do', async () => {
    await expect(
      readSparseEncoderLayout(
        router((c) => {
          (c.types as Record<string, string>).query_9_SparseStaticEmbedding = ST('SparseStaticEmbedding');
          (c.structure as Record<string, string[]>).query = ['query_9_SparseStaticEmbedding'];
        }),
      ),
    ).rejects.toThrow(/folder m\/query_9_SparseStaticEmbedding\/model\.safetensors is missing.*copy the whole model folder/);
    const sum = router(() => {}, [['document_1_SpladePooling/config.json', text({ pooling_strategy: 'sum' })]]);
    await expect(readSparseEncoderLayout(sum)).rejects.toThrow(
      /document_1_SpladePooling\/config\.json: pooling_strategy "sum".*not supported/,
    );
    const odd = router(() => {}, [['document_1_SpladePooling/config.json', text({ activation_function: 'gelu' })]]);
    await expect(readSparseEncoderLayout(odd)).rejects.toThrow(/activation_function must be "relu".*got "gelu"/);
  });

  it('refuses a query table holding NaN, naming its file', async () => {
    const nan = router(() => {}, [['query_0_SparseStaticEmbedding/model.safetensors', table([1, NaN, 3])]]);
    await expect(sparseEncoderView(nan)).rejects.toThrow(/query_0_SparseStaticEmbedding\/model\.safetensors: weight 1 is NaN/);
  });

  it('reads a folder without modules.json, or a dense sentence-transformers model, as a backbone', async () => {
    const plain = createMemorySource(new Map([['config.json', text({ model_type: 'bert' })]]));
    expect((await readSparseEncoderLayout(plain)).kind).toBe('backbone');
    const dense = createMemorySource(
      new Map([
        ['config.json', text({ model_type: 'bert' })],
        [
          'modules.json',
          text([
            { idx: 0, path: '', type: 'sentence_transformers.models.Transformer' },
            { idx: 1, path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
          ]),
        ],
      ]),
    );
    expect((await readSparseEncoderLayout(dense)).kind).toBe('backbone');
  });
});

describe("OpenSearch's idf.json as a query table", () => {
  const tokenizer = createWordPieceTokenizer(TINY_VOCAB.join('\n'));

  it('puts each weight at its token id', () => {
    const weights = queryTableFromIdfJson({ cat: 2.5, dog: 1.25 }, tokenizer, 'idf.json');
    expect(weights[TINY_VOCAB.indexOf('cat')]).toBe(2.5);
    expect(weights[TINY_VOCAB.indexOf('dog')]).toBe(1.25);
    expect(weights.reduce((a, b) => a + b, 0)).toBe(3.75);
  });

  it.each([
    ['NaN', { cat: 'NaN' }, /the weight of "cat" is "NaN"; every weight must be a finite number ≥ 0/],
    ['a negative weight', { cat: -1 }, /the weight of "cat" is -1/],
    ['a non-numeric weight', { cat: [1] }, /the weight of "cat" is/],
    [
      'tokens the tokenizer lacks',
      { cat: 1, zebra: 2 },
      /1 tokens are not in the tokenizer \("zebra"\): the file was made for another tokenizer/,
    ],
    ['a list', [1, 2], /must be a JSON object of token -> weight/],
  ])('refuses %s, naming the file', (_, json, message) => {
    expect(() => queryTableFromIdfJson(json, tokenizer, 'folder t/idf.json')).toThrow(message);
    expect(() => queryTableFromIdfJson(json, tokenizer, 'folder t/idf.json')).toThrow(/^folder t\/idf\.json: /);
  });
});
