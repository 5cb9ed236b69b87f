// A published vocabulary's shards: every piece comes back with its id and exactly its float32 weight (pieces with a
// tab, a newline or a backslash included), a word's first piece is in the shard vocabularyShardsOf names for it, the
// shards vocabularyShardsOf and continuingShardsOf name tokenize as the whole vocabulary (bert-base-uncased's, on
// texts of random pieces), and a damaged line is refused naming its file and line.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  VOCABULARY_SHARDS,
  continuingShardsOf,
  createQueryTokenizer,
  singleShardsOf,
  vocabularyShard,
  vocabularyShardsOf,
} from '../../../src/publish-runtime/query-tokenizer.ts';
import { Random } from '../../../src/util/random.ts';
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

/** A vocabulary's files, as the runtime adds them: the starting shards named, the continuing shards named, the singles. */
function partialVocabulary(
  files: ReturnType<typeof encodeVocabularyShards>,
  settings: QueryTokenizerSpec,
  text: string,
): ShardedVocabulary {
  const partial = new ShardedVocabulary();
  for (const key of vocabularyShardsOf(settings, text))
    if (files.shards[key] !== null) partial.add(decodeVocabularyShard(files.shards[key], `${key}.txt`));
  for (const key of continuingShardsOf(settings, text))
    if (files.continuing[key] !== null) partial.add(decodeVocabularyShard(files.continuing[key], `continuing/${key}.txt`, '##'));
  for (const key of singleShardsOf(settings, text))
    if (files.singleShards[key] !== null) partial.add(decodeVocabularyShard(files.singleShards[key], `single/${key}.txt`));
  if (files.singles !== null) partial.add(decodeVocabularyShard(files.singles, 'single.txt'));
  return partial;
}

describe('published vocabulary shards', () => {
  const weights = Float32Array.from(VOCAB, (_, id) => (id % 3 === 0 ? 0 : Math.fround(1 / (id + 0.7))));
  const files = encodeVocabularyShards(VOCAB, weights, '##');
  const all = new ShardedVocabulary();
  files.shards.forEach((text, key) => text !== null && all.add(decodeVocabularyShard(text, `${key}.txt`)));
  files.continuing.forEach((text, key) => text !== null && all.add(decodeVocabularyShard(text, `c${key}.txt`, '##')));
  files.singleShards.forEach((text, key) => text !== null && all.add(decodeVocabularyShard(text, `s${key}.txt`)));
  all.add(decodeVocabularyShard(files.singles!, 'single.txt'));

  it('give back every piece with its id, and exactly its float32 weight where it has one', () => {
    VOCAB.forEach((piece, id) => {
      if (piece === null) return;
      expect(all.id(piece), piece).toBe(id);
      expect(all.token(id)).toBe(piece);
      expect(all.weight(id)).toBe(weights[id]);
    });
    expect(files.shards).toHaveLength(VOCABULARY_SHARDS);
    expect(files.continuing).toHaveLength(VOCABULARY_SHARDS);
    // the continuing shard's lines leave out the marker; a one-code-point piece of either kind is in single.txt whole
    expect(files.continuing[vocabularyShard('ing')]).toMatch(/^ing\t8\t/);
    expect(files.singles!.split('\n').map((line) => line.split('\t')[0])).toContain('##s');
  });

  it("hold a word's first piece in the shard named for the word, and tokenize as the whole vocabulary does", () => {
    const text = 'The zebra playing plays';
    const needed = new Set(vocabularyShardsOf(spec, text));
    for (const piece of ['the', 'zebra', 'playing', 'play']) expect(needed.has(vocabularyShard(piece)), piece).toBe(true);
    expect(continuingShardsOf(spec, text)).toContain(vocabularyShard('ing'));
    expect(createQueryTokenizer(spec, partialVocabulary(files, spec, text)).ids(text)).toEqual(
      createQueryTokenizer(spec).ids(text),
    );
    expect(createQueryTokenizer(spec).ids(text)).toEqual([2, 11, 9, 8, 6]);
  });

  it("tokenize 500 texts of random pieces with only the shards they name as with bert-base-uncased's whole vocabulary", () => {
    const bert = readFileSync('scripts/data/bert-base-uncased-vocab.txt', 'utf8').split('\n').slice(0, -1);
    const bertSpec = { ...spec, vocab: bert };
    const bertFiles = encodeVocabularyShards(bert, new Float32Array(bert.length), '##');
    const whole = createQueryTokenizer(bertSpec);
    const random = new Random(7);
    const pick = () => bert[random.int(bert.length)];
    let pieces = 0;
    for (let t = 0; t < 500; t++) {
      // words glued from pieces (a continuing one loses its marker), so that WordPiece splits them again
      const words = Array.from({ length: 1 + random.int(6) }, () =>
        Array.from({ length: 1 + random.int(3) }, () => pick().replace(/^##/, '')).join(''),
      );
      const text = words.join(' ');
      const ids = createQueryTokenizer(bertSpec, partialVocabulary(bertFiles, bertSpec, text)).ids(text);
      expect(ids, text).toEqual(whole.ids(text));
      pieces += ids.length;
    }
    expect(pieces).toBeGreaterThan(2000);
  });

  it('refuse a damaged line, naming the file and the line', () => {
    expect(() => decodeVocabularyShard('the\t2\nzebra\tx\n', 'query/vocabulary/20.txt')).toThrow(
      'query/vocabulary/20.txt: line 2 is not "piece <tab> id step [<tab> weight]"',
    );
    expect(() => decodeVocabularyShard('the\t0\n', 'a.txt')).toThrow('a.txt: line 1');
  });
});
