// Model folders: every weight format loads to the same fp32 tensors with the head tied to the embeddings, sizes are
// estimated from headers, oversized models are refused before decoding, and load-save-load is bit-exact.
import { afterAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CheckpointTooLargeError,
  estimateCheckpointBytes,
  loadCheckpoint,
  type Checkpoint,
} from '../../../src/io/formats/model-folder.ts';
import { createFolderSink, createFolderSource } from '../../../src/io/file-source-node.ts';
import { createMemorySource } from '../../../src/io/file-source.ts';
import { parseSafetensorsHeader } from '../../../src/io/formats/safetensors.ts';
import { collectTokenizerFiles, saveSparseEncoder } from '../../../src/io/formats/save.ts';
import type { TensorMap } from '../../../src/io/host-tensor.ts';
import {
  TINY_BERT_CONFIG,
  encodeSafetensors,
  makeTempDir,
  removeTempDirs,
  tinyBertSafetensorsTensors,
  writeFolder,
  writeTinyBert,
  type TinyFormat,
} from '../../helpers/checkpoint-fixtures.ts';

const FORMATS: TinyFormat[] = ['safetensors', 'safetensors-sharded', 'pytorch-zip', 'pytorch-legacy'];

const HEAD = 'cls.predictions.decoder.weight';

const EMBEDDING = 'bert.embeddings.word_embeddings.weight';

function bits(tensors: TensorMap): Record<string, { shape: number[]; bits: number[] }> {
  const out: Record<string, { shape: number[]; bits: number[] }> = {};
  for (const [name, t] of tensors)
    out[name] = { shape: t.shape, bits: Array.from(new Uint32Array(t.data.buffer, t.data.byteOffset, t.data.length)) };
  return out;
}

async function tinyFolder(format: TinyFormat): Promise<{ dir: string; expected: TensorMap }> {
  const dir = await makeTempDir();
  return { dir, expected: await writeTinyBert(dir, format) };
}

describe.each(FORMATS)('loading a %s model folder', (format) => {
  it('gives the expected fp32 tensors under every name, config included', async () => {
    const { dir, expected } = await tinyFolder(format);
    const checkpoint = await loadCheckpoint(createFolderSource(dir));
    expect(checkpoint.format).toBe(format);
    expect(checkpoint.config).toEqual(TINY_BERT_CONFIG);
    expect(bits(checkpoint.tensors)).toEqual(bits(expected));
  });

  it('ties the MLM head to the word embeddings (one tensor) and says so', async () => {
    const { dir } = await tinyFolder(format);
    const checkpoint = await loadCheckpoint(createFolderSource(dir));
    expect(checkpoint.tied).toBe(true);
    expect(checkpoint.tensors.get(HEAD)).toBe(checkpoint.tensors.get(EMBEDDING));
    expect(checkpoint.aliases.get(HEAD)).toBe(EMBEDDING);
    expect(checkpoint.aliases.get('cls.predictions.decoder.bias')).toBe('cls.predictions.bias');
  });

  it('estimates the fp32 bytes of the distinct tensors before loading', async () => {
    const { dir, expected } = await tinyFolder(format);
    const distinct = new Set(expected.values());
    const estimate = await estimateCheckpointBytes(createFolderSource(dir));
    expect(estimate.bytes).toBe(4 * [...distinct].reduce((n, t) => n + t.data.length, 0));
  });

  it('refuses a model over maxBytes with an error naming the limit', async () => {
    const { dir } = await tinyFolder(format);
    const load = loadCheckpoint(createFolderSource(dir), { maxBytes: 100 });
    await expect(load).rejects.toBeInstanceOf(CheckpointTooLargeError);
    await expect(loadCheckpoint(createFolderSource(dir), { maxBytes: 100 })).rejects.toThrow(/over the limit of 0\.0 MiB/);
  });

  it('round-trips load, save, load bit for bit, saving the tied head once', async () => {
    const { dir } = await tinyFolder(format);
    const first = await loadCheckpoint(createFolderSource(dir));
    const out = await makeTempDir();
    await saveSparseEncoder(createFolderSink(out), first);
    const second = await loadCheckpoint(createFolderSource(out));
    expect(bits(second.tensors)).toEqual(bits(first.tensors));
    expect(second.tied).toBe(true);
    expect(second.tensors.get(HEAD)).toBe(second.tensors.get(EMBEDDING));
    const saved = new Uint8Array(await readFile(join(out, 'model.safetensors')));
    const header = parseSafetensorsHeader(saved, 'model.safetensors', saved.length);
    expect(header.entries.map((e) => e.name)).not.toContain(HEAD);
    expect(header.entries.map((e) => e.name)).toContain(EMBEDDING);
    expect(header.metadata).toEqual({ format: 'pt' });
  });
});

afterAll(removeTempDirs);

describe('loader errors and tying rules', () => {
  it('names the folder when config.json or the weights are missing', async () => {
    const dir = await makeTempDir();
    await expect(loadCheckpoint(createFolderSource(dir))).rejects.toThrow(/config\.json is missing from folder/);
    await writeFolder(dir, { 'config.json': TINY_BERT_CONFIG });
    await expect(loadCheckpoint(createFolderSource(dir))).rejects.toThrow(
      /no weights in folder .*model\.safetensors.*pytorch_model\.bin/,
    );
  });

  it('refuses a missing head when tie_word_embeddings is false', async () => {
    const files = new Map([
      ['config.json', new TextEncoder().encode(JSON.stringify({ ...TINY_BERT_CONFIG, tie_word_embeddings: false }))],
      ['model.safetensors', encodeSafetensors(tinyBertSafetensorsTensors())],
    ]);
    await expect(loadCheckpoint(createMemorySource(files))).rejects.toThrow(/"cls\.predictions\.decoder\.weight" is missing/);
  });

  it('keeps an untied head as its own tensor when tie_word_embeddings is false', async () => {
    const tensors = tinyBertSafetensorsTensors();
    tensors.set(HEAD, { shape: [11, 4], data: new Float32Array(44).fill(0.5) });
    tensors.set('cls.predictions.decoder.bias', { shape: [11], data: new Float32Array(11) });
    const files = new Map([
      ['config.json', new TextEncoder().encode(JSON.stringify({ ...TINY_BERT_CONFIG, tie_word_embeddings: false }))],
      ['model.safetensors', encodeSafetensors(tensors)],
    ]);
    const checkpoint: Checkpoint = await loadCheckpoint(createMemorySource(files));
    expect(checkpoint.tied).toBe(false);
    expect(checkpoint.tensors.get(HEAD)!.data[0]).toBe(0.5);
  });

  it('renames LayerNorm gamma/beta of old checkpoints as transformers does', async () => {
    const files = new Map([
      ['config.json', new TextEncoder().encode(JSON.stringify({ model_type: 'bert' }))],
      [
        'model.safetensors',
        encodeSafetensors(new Map([['bert.embeddings.LayerNorm.gamma', { shape: [2], data: new Float32Array([1, 2]) }]])),
      ],
    ]);
    const checkpoint = await loadCheckpoint(createMemorySource(files));
    expect([...checkpoint.tensors.keys()]).toEqual(['bert.embeddings.LayerNorm.weight']);
    expect(checkpoint.notes.join()).toMatch(/renamed 1 LayerNorm/);
  });

  it('refuses a shard index that lists a tensor its shard lacks', async () => {
    const dir = await makeTempDir();
    await writeTinyBert(dir, 'safetensors-sharded');
    const index = JSON.parse(await readFile(join(dir, 'model.safetensors.index.json'), 'utf8'));
    index.weight_map['bert.extra.weight'] = 'model-00001-of-00002.safetensors';
    await writeFolder(dir, { 'model.safetensors.index.json': index });
    await expect(loadCheckpoint(createFolderSource(dir))).rejects.toThrow(
      /model-00001-of-00002\.safetensors: tensor "bert\.extra\.weight": listed in the index/,
    );
  });

  it('refuses shard names that leave the folder', async () => {
    const dir = await makeTempDir();
    await writeFolder(dir, {
      'config.json': TINY_BERT_CONFIG,
      'model.safetensors.index.json': { weight_map: { a: '../secret.safetensors' } },
    });
    await expect(loadCheckpoint(createFolderSource(dir))).rejects.toThrow(/not a plain file name/);
  });
});

describe('saved SparseEncoder folder', () => {
  it('has the sentence-transformers module files and copies tokenizer files through', async () => {
    const { dir } = await tinyFolder('pytorch-zip');
    await writeFolder(dir, { 'vocab.txt': '[PAD]\n[UNK]\n', 'tokenizer_config.json': { do_lower_case: true } });
    const source = createFolderSource(dir);
    const out = await makeTempDir();
    const names = await saveSparseEncoder(createFolderSink(out), await loadCheckpoint(source), {
      tokenizerFiles: await collectTokenizerFiles(source),
      maxSeqLength: 256,
    });
    const json = async (name: string) => JSON.parse(await readFile(join(out, name), 'utf8'));
    expect(names.sort()).toEqual(
      [
        '1_SpladePooling/config.json',
        'config.json',
        'config_sentence_transformers.json',
        'model.safetensors',
        'modules.json',
        'sentence_bert_config.json',
        'tokenizer_config.json',
        'vocab.txt',
      ].sort(),
    );
    expect(await json('modules.json')).toEqual([
      { idx: 0, name: '0', path: '', type: 'sentence_transformers.sparse_encoder.models.MLMTransformer' },
      { idx: 1, name: '1', path: '1_SpladePooling', type: 'sentence_transformers.sparse_encoder.models.SpladePooling' },
    ]);
    expect(await json('1_SpladePooling/config.json')).toEqual({
      pooling_strategy: 'max',
      activation_function: 'relu',
      word_embedding_dimension: 11,
    });
    expect((await json('config_sentence_transformers.json')).model_type).toBe('SparseEncoder');
    expect(await json('sentence_bert_config.json')).toEqual({ max_seq_length: 256, do_lower_case: false });
    expect(await readFile(join(out, 'vocab.txt'), 'utf8')).toBe('[PAD]\n[UNK]\n');
  });
});
