// A tiny seeded cross-encoder folder for tests: BertForSequenceClassification (a BERT encoder, the pooler and the
// classifier) or ModernBertForSequenceClassification (an encoder with its head, the classifier) under transformers'
// names, config.json with the label fields asked for, and the tiny WordPiece vocab; and its float64 head.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createMemorySource, type FileSource } from '../../src/io/file-source.ts';
import { writeSafetensors } from '../../src/io/formats/safetensors.ts';
import type { TensorMap } from '../../src/io/host-tensor.ts';
import type { LoadedClassifier } from '../../src/model/load-classifier.ts';
import type { ClassifierHeadParams } from '../../src/model/reference/classifier.ts';
import { makeTinyCheckpoint } from '../../src/model/tiny-model.ts';
import { Random } from '../../src/util/random.ts';
import { TINY_VOCAB } from './tiny-splade-model.ts';

export interface TinyCrossEncoderOptions {
  /** The encoder (default bert); ModernBERT with a window of 4 and a global layer every 2 (layer 1 local). */
  family?: 'bert' | 'modernbert';
  /** ModernBERT's classifier_pooling (absent: not written, "cls"). */
  pooling?: 'cls' | 'mean';
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
  const modern = options.family === 'modernbert';
  const tiny = makeTinyCheckpoint(modern ? 'modernbert' : 'bert', {
    seed: options.seed ?? 23,
    vocabSize: TINY_VOCAB.length,
    hidden,
    layers: 2,
    heads: 2,
    intermediate: 24,
    initStd: 0.3,
    padTokenId: 0,
    ...(modern ? { localAttention: 4, globalAttnEveryNLayers: 2 } : { typeVocabSize: 2 }),
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
    architectures: options.architectures ?? [modern ? 'ModernBertForSequenceClassification' : 'BertForSequenceClassification'],
    ...(options.pooling ? { classifier_pooling: options.pooling } : {}),
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

/** The loaded classifier's head in float64, as the reference takes it. */
export function referenceHead(loaded: LoadedClassifier): ClassifierHeadParams {
  const f64 = (t: { data: Float32Array }) => Float64Array.from(t.data);
  const { head } = loaded;
  return {
    pooler: head.pooler ? { weight: f64(head.pooler.weight), bias: f64(head.pooler.bias) } : null,
    pooling: loaded.classifier.pooling,
    classifierWeight: f64(head.classifierWeight),
    classifierBias: f64(head.classifierBias),
  };
}
