// A published vocabulary's shards: every piece comes back with its id and exactly its float32 weight (pieces with a
// tab, a newline or a backslash included), a word's first piece is in the shard vocabularyShardsOf names for it, and a
// damaged line is refused naming its file and line.
import { describe, expect, it } from 'vitest';
import {
  VOCABULARY_SHARDS,
  createQueryTokenizer,
  vocabularyShard,
  vocabularyShardsOf,
} from '../../../src/publish-runtime/query-tokenizer.ts';
import {
  ShardedVocabulary,
  decodeVocabularyShard,
  encodeVocabularyShards,
} from '../../../src/publish-runtime/vocabulary-shards.ts';
import type { QueryTokenizerSpec } from '../../../src/publish-runtime/manifest.ts';

const VOCAB = [
  '[PAD]',
  '[UNK]',
  'the',
  'tab\there',
  'line\nbreak',
  'back\\slash',
  '##s',
  '##ing',
  'play',
  'playing',
  null,
  'zebra',
];

const spec: QueryTokenizerSpec = {
  type: 'wordpiece',
  normalizer: { cleanText: true, handleChineseChars: true, lowercase: true, stripAccents: null },
  unkToken: '[UNK]',
  continuingSubwordPrefix: '##',
  maxInputCharsPerWord: 100,
  addedTokens: [],
  maxTokens: null,
  vocab: VOCAB,
};

describe('published vocabulary shards', () => {
  const weights = Float32Array.from(VOCAB, (_, id) => (id % 3 === 0 ? 0 : Math.fround(1 / (id + 0.7))));
  const { shards, continuations } = encodeVocabularyShards(VOCAB, weights, '##');
  const all = new ShardedVocabulary();
  shards.forEach((text, key) => text !== null && all.add(decodeVocabularyShard(text, `${key}.txt`)));
  all.add(decodeVocabularyShard(continuations!, 'continuing.txt', '##'));

  it('give back every piece with its id, and exactly its float32 weight where it has one', () => {
    VOCAB.forEach((piece, id) => {
      if (piece === null) return;
      expect(all.id(piece), piece).toBe(id);
      expect(all.token(id)).toBe(piece);
      expect(all.weight(id)).toBe(weights[id]);
    });
    expect(shards).toHaveLength(VOCABULARY_SHARDS);
    expect(
      continuations!
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split('\t')[0]),
    ).toEqual(['s', 'ing']); // the prefix left out
  });

  it("hold a word's first piece in the shard named for the word, and tokenize as the whole vocabulary does", () => {
    const text = 'The zebra playing plays';
    const needed = new Set(vocabularyShardsOf(spec, text));
    for (const piece of ['the', 'zebra', 'playing', 'play']) expect(needed.has(vocabularyShard(piece)), piece).toBe(true);
    const partial = new ShardedVocabulary();
    for (const key of needed) partial.add(decodeVocabularyShard(shards[key]!, `${key}.txt`));
    partial.add(decodeVocabularyShard(continuations!, 'continuing.txt', '##'));
    expect(createQueryTokenizer(spec, partial).ids(text)).toEqual(createQueryTokenizer(spec).ids(text));
    expect(createQueryTokenizer(spec).ids(text)).toEqual([2, 11, 9, 8, 6]);
  });

  it('refuse a damaged line, naming the file and the line', () => {
    expect(() => decodeVocabularyShard('the\t2\nzebra\tx\n', 'query/vocabulary/20.txt')).toThrow(
      'query/vocabulary/20.txt: line 2 is not "piece <tab> id step [<tab> weight]"',
    );
    expect(() => decodeVocabularyShard('the\t0\n', 'a.txt')).toThrow('a.txt: line 1');
  });
});
