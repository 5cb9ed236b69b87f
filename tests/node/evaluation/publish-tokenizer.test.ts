// The published search's query side gives the token ids splade-lab gives: the runtime's WordPiece
// (src/publish-runtime/query-tokenizer.ts) against splade-lab's tokenizer on the generated queries and documents, the
// tricky texts and seeded random text, for bert-base-uncased's tokenizer.json and vocab.txt tokenizers of other
// settings; the refusals; and BM25's word analyzer in the runtime against src/retrieval/word-analyzer.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkQueryTokenizer, queryTokenizerSpec, TRICKY_QUERY_TEXTS } from '../../../src/app/evaluation/publish-query-side.ts';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { loadTokenizer } from '../../../src/io/tokenizer/tokenizer-load.ts';
import { createTokenizerJsonTokenizer, type Json } from '../../../src/io/tokenizer/tokenizer-json.ts';
import type { TextTokenizer } from '../../../src/io/tokenizer/tokenizer.ts';
import { createWordPieceTokenizer } from '../../../src/io/tokenizer/wordpiece.ts';
import { createQueryTokenizer } from '../../../src/publish-runtime/query-tokenizer.ts';
import { analyzeWords } from '../../../src/publish-runtime/word-analyzer.ts';
import { wordAnalyzer } from '../../../src/retrieval/word-analyzer.ts';
import { Random } from '../../../src/util/random.ts';
import { fixturePath } from '../../helpers/fixtures.ts';
import { generatedBeir, NON_ASCII_TRIPLETS } from '../../helpers/generated-data.ts';

const BERT = fixturePath('tokenizers/bert-base-uncased');

/** Characters random texts are drawn from: letters with and without accents, CJK, marks, punctuation, spaces, controls, emoji. */
const ALPHABET = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  ...'éèêëÉàâäÀçÇñÑöÖüÜßøåæœ',
  ...'東京駅大学中文日本語한국어',
  '\u0301',
  '\u0308',
  '\u200b',
  '\u00a0',
  '\t',
  '\n',
  '\u0000',
  '\u0007',
  '\ufffd',
  ...'.,;:!?-_()[]{}<>"\'/\\@#$%^&*+=~`|',
  ...'      ',
  '🌊',
  '☀️',
  'ﬁ',
  'Ω',
  'İ',
  '[MASK]',
  '[CLS]',
  '##ing',
];

function randomTexts(count: number): string[] {
  const random = new Random(7);
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + random.int(30) }, () => ALPHABET[random.int(ALPHABET.length)]).join(''),
  );
}

function generatedTexts(): string[] {
  const lines = (file: string) =>
    readFileSync(join(generatedBeir(), file), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { text: string; title?: string });
  return [
    ...lines('queries.jsonl').map((r) => r.text),
    ...lines('corpus.jsonl').flatMap((r) => [r.text, r.title ?? '']),
    ...NON_ASCII_TRIPLETS.flat(),
  ];
}

function expectSameIds(tokenizer: TextTokenizer, texts: readonly string[], maxTokens: number | null = null): void {
  const runtime = createQueryTokenizer(queryTokenizerSpec(tokenizer, maxTokens, 'the test tokenizer'));
  const differing = texts.filter((text) => {
    const theirs = tokenizer.encode(text, { addSpecialTokens: false, ...(maxTokens ? { maxLength: maxTokens } : {}) }).ids;
    return JSON.stringify(runtime.ids(text)) !== JSON.stringify(theirs);
  });
  expect(differing).toEqual([]);
}

describe("the published search's query tokenizer", () => {
  it("gives bert-base-uncased's ids (tokenizer.json) on the generated queries and documents, the tricky texts and 600 random texts", async () => {
    const tokenizer = await loadTokenizer(createFolderSource(BERT));
    const texts = [...generatedTexts(), ...TRICKY_QUERY_TEXTS, ...randomTexts(600)];
    expect(texts.length).toBeGreaterThan(1000);
    expectSameIds(tokenizer, texts);
    expectSameIds(tokenizer, texts.slice(0, 100), 5); // truncated at the query tokenizer's model_max_length
  });

  it.each([
    ['cased, accents kept', { lowercase: false }],
    ['lower-cased, accents kept', { lowercase: true, stripAccents: false }],
    ['cased, accents stripped, CJK not spaced', { lowercase: false, stripAccents: true, tokenizeChineseChars: false }],
    ['an extra special token inside words', { specialTokens: ['cat'] }],
  ])('gives the ids of a vocab.txt tokenizer, %s', (_, options) => {
    const vocab = readFileSync(join(BERT, 'vocab.txt'), 'utf8');
    const tokenizer = createWordPieceTokenizer(vocab, options);
    expectSameIds(tokenizer, [...TRICKY_QUERY_TEXTS, ...randomTexts(300), 'the cat concatenates catalogues', 'CAT Cat cAt']);
  });

  it('follows added tokens that are normalised or strip white space, as the library does', () => {
    const json = JSON.parse(readFileSync(join(BERT, 'tokenizer.json'), 'utf8')) as Json;
    json.added_tokens.push(
      { id: 2000, content: 'Foo Bar', single_word: false, lstrip: true, rstrip: true, normalized: true, special: false },
      { id: 2001, content: '<x>', single_word: false, lstrip: true, rstrip: false, normalized: false, special: true },
    );
    const tokenizer = createTokenizerJsonTokenizer(json);
    expectSameIds(tokenizer, ['a foo bar b', 'a FOO BAR b', 'x  <x>  y', 'foo bar<x>foo bar', ...randomTexts(100)]);
  });

  it('refuses a tokenizer the runtime does not run (byte-level BPE), naming the model and what it has', async () => {
    const modernbert = await loadTokenizer(createFolderSource(fixturePath('tokenizers/modernbert')));
    expect(() => queryTokenizerSpec(modernbert, null, 'answerdotai/ModernBERT-base')).toThrow(
      /ModernBERT-base: the published search's tokenizer runs BERT's WordPiece.*a BPE model.*not built yet/,
    );
  });

  it('refuses to publish when the runtime would give other ids, naming the text and both id lists', async () => {
    const tokenizer = await loadTokenizer(createFolderSource(BERT));
    const spec = queryTokenizerSpec(tokenizer, null, 'bert');
    const uncased = (text: string) => tokenizer.encode(text, { addSpecialTokens: false }).ids;
    expect(checkQueryTokenizer(spec, uncased, ['one query'])).toBe(TRICKY_QUERY_TEXTS.length + 1);
    const wrong = { ...spec, normalizer: { ...spec.normalizer!, lowercase: false, stripAccents: false } };
    expect(() => checkQueryTokenizer(wrong, uncased, ['Cats'])).toThrow(
      /other token ids than the model's for \d+ of \d+ texts, e\.g\. ".*": \[.*\] against \[.*\]; .*nothing was published/,
    );
  });
});

describe("the published search's BM25 analyzer", () => {
  it('gives the words src/retrieval/word-analyzer.ts gives', () => {
    const stopWords = new Set(
      'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(
        ' ',
      ),
    );
    const reference = wordAnalyzer();
    for (const text of [...generatedTexts(), ...TRICKY_QUERY_TEXTS, ...randomTexts(300)])
      expect(analyzeWords(text, stopWords)).toEqual(reference(text));
  });
});
