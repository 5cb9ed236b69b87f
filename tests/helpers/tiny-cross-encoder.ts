// A tiny seeded BertForSequenceClassification folder for tests: a BERT encoder without MLM head, the pooler and the
// classifier under transformers' names, config.json with the label fields asked for, and the tiny WordPiece vocab.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createMemorySource, type FileSource } from '../../src/io/file-source.ts';
import { writeSafetensors } from '../../src/io/formats/safetensors.ts';
import type { TensorMap } from '../../src/io/host-tensor.ts';
import { makeTinyCheckpoint } from '../../src/model/tiny-model.ts';
import { Random } from '../../src/util/random.ts';
import { TINY_VOCAB } from './tiny-splade-model.ts';

export interface TinyCrossEncoderOptions {
  seed?: number;
  hidden?: number;
  /** Label fields written into config.json as given (absent: not written). */
  labels?: { id2label?: Record<string, string>; num_labels?: number };
  /** Classifier rows (default: the id2label size, else num_labels, else 2). */
  classifierRows?: number;
  /** Written as config.json's architectures (default BertForSequenceClassification). */
  architectures?: string[];
  /** Tensor names left out of the checkpoint. */
  drop?: string[];
  /** Extra config.json keys and extra files (e.g. config_sentence_transformers.json). */
  extraConfig?: Record<string, unknown>;
  extraFiles?: Record<string, unknown>;
}

/** The folder's files: config.json, model.safetensors, vocab.txt (and extraFiles as JSON). */
export function tinyCrossEncoderFiles(options: TinyCrossEncoderOptions = {}): Map<string, Uint8Array> {
  const hidden = options.hidden ?? 16;
  const tiny = makeTinyCheckpoint('bert', {
    seed: options.seed ?? 23,
    vocabSize: TINY_VOCAB.length,
    hidden,
    layers: 2,
    heads: 2,
    intermediate: 24,
    initStd: 0.3,
    typeVocabSize: 2,
  });
  const labels = options.labels ?? {};
  const rows = options.classifierRows ?? (labels.id2label ? Object.keys(labels.id2label).length : (labels.num_labels ?? 2));
  const random = new Random((options.seed ?? 23) + 1000);
  const tensors: TensorMap = new Map([...tiny.tensors].filter(([name]) => !name.startsWith('cls.')));
  const add = (name: string, shape: number[], std: number) =>
    tensors.set(name, {
      shape,
      data: Float32Array.from(
        random.normals(
          shape.reduce((a, b) => a * b, 1),
          std,
        ),
      ),
    });
  add('bert.pooler.dense.weight', [hidden, hidden], 0.3);
  add('bert.pooler.dense.bias', [hidden], 0.3);
  add('classifier.weight', [rows, hidden], 0.5);
  add('classifier.bias', [rows], 0.5);
  for (const name of options.drop ?? []) tensors.delete(name);
  const config = {
    ...tiny.config,
    architectures: options.architectures ?? ['BertForSequenceClassification'],
    ...labels,
    ...options.extraConfig,
  };
  const text = (value: string) => new TextEncoder().encode(value);
  const files = new Map<string, Uint8Array>([
    ['config.json', text(JSON.stringify(config, null, 2))],
    ['model.safetensors', writeSafetensors(tensors)],
    ['vocab.txt', text(TINY_VOCAB.join('\n') + '\n')],
  ]);
  for (const [name, value] of Object.entries(options.extraFiles ?? {})) files.set(name, text(JSON.stringify(value)));
  return files;
}

/** The folder in memory, as the loaders read it. */
export function tinyCrossEncoderSource(options: TinyCrossEncoderOptions = {}): FileSource {
  return createMemorySource(tinyCrossEncoderFiles(options), 'tiny-cross-encoder');
}

/** The folder written to `dir`. */
export async function writeTinyCrossEncoder(dir: string, options: TinyCrossEncoderOptions = {}): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [name, bytes] of tinyCrossEncoderFiles(options)) await writeFile(join(dir, name), bytes);
}
