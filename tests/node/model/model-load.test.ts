// loadModel: refuses an unsupported architecture and a model over the device limits before reading weights,
// and a tokenizer with more ids than the head has rows; loads a tiny model with its tokenizer otherwise, reporting
// checkpoint tensors it did not use.
import { describe, expect, it } from 'vitest';
import { GpuLimitError } from '../../../src/gpu/errors.ts';
import { createMemorySource, type FileSource } from '../../../src/io/file-source.ts';
import { writeSafetensors } from '../../../src/io/formats/safetensors.ts';
import { loadModel } from '../../../src/model/load-model.ts';
import { makeTinyCheckpoint } from '../../../src/model/tiny-model.ts';

const encoder = new TextEncoder();

/** A WordPiece vocab.txt with `n` entries: the BERT specials, then made-up words. */
function vocabTxt(n: number): Uint8Array {
  const specials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  const words = Array.from({ length: n - specials.length }, (_, i) => `word${i}`);
  return encoder.encode([...specials, ...words].join('\n') + '\n');
}

function tinyBertFiles(vocab: number, tokenizerVocab: number): Map<string, Uint8Array> {
  const tiny = makeTinyCheckpoint('bert', { seed: 1, vocabSize: vocab, hidden: 8, layers: 1, heads: 2, intermediate: 16 });
  return new Map([
    ['config.json', encoder.encode(JSON.stringify(tiny.config))],
    ['model.safetensors', writeSafetensors(tiny.tensors)],
    ['vocab.txt', vocabTxt(tokenizerVocab)],
  ]);
}

/** Records which files were read, to prove refusals happen before the weights are touched. */
function recording(files: Map<string, Uint8Array>): { source: FileSource; reads: string[] } {
  const inner = createMemorySource(files, 'tiny');
  const reads: string[] = [];
  const source: FileSource = {
    label: inner.label,
    readFile: (name, options) => (reads.push(name), inner.readFile(name, options)),
  };
  return { source, reads };
}

describe('loadModel', () => {
  it('loads config, parameters and tokenizer of a tiny BERT', async () => {
    const loaded = await loadModel(createMemorySource(tinyBertFiles(40, 40), 'tiny'));
    expect(loaded.config.hfArchitecture).toBe('BertForMaskedLM');
    expect(loaded.params.get('embeddings.word.weight')?.shape).toEqual([40, 8]);
    expect(loaded.tokenizer.encode('word3').ids).toEqual([2, 8, 3]);
  });

  it('refuses a tokenizer with more ids than the head has rows', async () => {
    await expect(loadModel(createMemorySource(tinyBertFiles(40, 60), 'tiny'))).rejects.toThrow(
      /tokenizer has 60 token ids but the MLM head has 40 rows/,
    );
  });

  it('refuses a model with a tensor past the binding limit, before reading any weight (vocabulary matrices go in row parts)', async () => {
    const { source, reads } = recording(tinyBertFiles(40, 40));
    // the word embeddings (40 x 8 floats, 1280 bytes) are over it too, but would be held in two parts
    const limits = { maxStorageBufferBindingSize: 1000, maxBufferSize: 1 << 20 };
    const error = await loadModel(source, { limits }).catch((e) => e);
    expect(error).toBeInstanceOf(GpuLimitError);
    expect(error.message).toMatch(/position embeddings \[\d+x8\].*maxStorageBufferBindingSize/);
    expect(reads).toEqual(['config.json']);
  });

  it('returns the checkpoint tensors it did not use, and the harmless ones it skipped on purpose', async () => {
    const tiny = makeTinyCheckpoint('bert', { seed: 1, vocabSize: 40, hidden: 8, layers: 1, heads: 2, intermediate: 16 });
    const tensors = new Map(tiny.tensors)
      .set('bert.pooler.dense.bias', { shape: [8], data: new Float32Array(8) })
      .set('bert.embeddings.position_ids', { shape: [1, 8], data: new Float32Array(8) })
      .set('classifier.bias', { shape: [2], data: new Float32Array(2) });
    const files = tinyBertFiles(40, 40).set('model.safetensors', writeSafetensors(tensors));
    const loaded = await loadModel(createMemorySource(files, 'tiny'));
    expect(loaded.unusedTensors).toEqual(['classifier.bias']);
    expect(loaded.ignoredTensors.map((t) => t.name).sort()).toEqual([
      'bert.embeddings.position_ids',
      'bert.pooler.dense.bias',
      'cls.predictions.decoder.weight',
    ]);
    expect(loaded.byteBudget).toBeGreaterThan(16 * 2 ** 20);
  });

  it('refuses a checkpoint that lacks tensors of the config, naming the first missing ones', async () => {
    const tiny = makeTinyCheckpoint('bert', { seed: 1, vocabSize: 40, hidden: 8, layers: 1, heads: 2, intermediate: 16 });
    const tensors = new Map([...tiny.tensors].filter(([name]) => !name.includes('attention.self')));
    const files = tinyBertFiles(40, 40).set('model.safetensors', writeSafetensors(tensors));
    await expect(loadModel(createMemorySource(files, 'tiny'))).rejects.toThrow(
      /^tiny: BertForMaskedLM weights do not match the config \(6 missing, 0 misshapen\)\n {2}missing bert\.encoder\.layer\.0\.attention\.self\.query\.weight \[8,8\]/,
    );
  });

  it('refuses an unsupported architecture by name, before reading any weight', async () => {
    const files = new Map([
      ['config.json', encoder.encode(JSON.stringify({ architectures: ['T5ForConditionalGeneration'], model_type: 't5' }))],
    ]);
    const { source, reads } = recording(files);
    await expect(loadModel(source)).rejects.toThrow(/T5ForConditionalGeneration/);
    expect(reads).toEqual(['config.json']);
  });
});
