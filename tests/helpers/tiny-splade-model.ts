// A tiny SPLADE-able model folder for tests: generated weights (any family), config.json, model.safetensors and a
// WordPiece vocab.txt of BERT specials plus a few dozen plain words, so texts tokenize to known ids.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeSafetensors } from '../../src/io/formats/safetensors.ts';
import type { Architecture } from '../../src/contract/model/model-config.ts';
import { makeTinyCheckpoint, type TinyModelOptions } from '../../src/model/tiny-model.ts';

export const TINY_WORDS = [
  'the',
  'a',
  'of',
  'and',
  'in',
  'cat',
  'dog',
  'sat',
  'mat',
  'ran',
  'fast',
  'slow',
  'protein',
  'cell',
  'gene',
  'cancer',
  'drug',
  'study',
  'results',
  'effect',
  'brain',
  'heart',
  'blood',
  'water',
  'sun',
  'moon',
  'star',
  'light',
  'dark',
  'river',
  'sea',
  'tree',
  'forest',
  'city',
  'road',
  'car',
  'train',
  'music',
  'song',
  'book',
  'paper',
  'model',
  'data',
  'sparse',
  'vector',
  'search',
  'query',
  'document',
  'score',
  'rank',
];

const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];

export const TINY_VOCAB = [...SPECIALS, ...TINY_WORDS];

export async function writeTinySpladeModel(
  dir: string,
  architecture: Architecture = 'bert',
  options: Partial<TinyModelOptions> = {},
): Promise<void> {
  const tiny = makeTinyCheckpoint(architecture, {
    seed: 5,
    vocabSize: TINY_VOCAB.length,
    hidden: 16,
    layers: 2,
    heads: 2,
    intermediate: 32,
    headNormScale: 2.5,
    padTokenId: 0,
    ...options,
  });
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'config.json'), JSON.stringify(tiny.config, null, 2));
  await writeFile(join(dir, 'model.safetensors'), writeSafetensors(tiny.tensors));
  await writeFile(join(dir, 'vocab.txt'), TINY_VOCAB.join('\n') + '\n');
}
