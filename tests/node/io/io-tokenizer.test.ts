// Tokenizers against Hugging Face's Rust tokenizers: every reference case (ids, attention mask, type ids) for the
// tokenizer.json path (BERT, ModernBERT) and the vocab.txt WordPiece path (BERT, a tokenizer.json built in memory
// and run by @huggingface/tokenizers), plus HF truncation and padding.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { createMemorySource } from '../../../src/io/file-source.ts';
import { loadTokenizer } from '../../../src/io/tokenizer/tokenizer-load.ts';
import { truncateLongestFirst, type TextTokenizer } from '../../../src/io/tokenizer/tokenizer.ts';
import { createWordPieceTokenizer, wordPieceTokenizerJson } from '../../../src/io/tokenizer/wordpiece.ts';
import { fixturePath } from '../../helpers/fixtures.ts';

const DATA = fixturePath('tokenizers');

interface ReferenceCase {
  name: string;
  text: string;
  text_pair?: string;
  add_special_tokens?: boolean;
  ids: number[];
  /** Absent from the pair and no-special-token cases (then: no padding, so all ones). */
  attention_mask?: number[];
  /** Absent from the no-special-token cases. */
  type_ids?: number[];
}

function referenceCases(folder: string): ReferenceCase[] {
  return JSON.parse(readFileSync(join(DATA, folder, 'reference_tokenizations_hf_rust.json'), 'utf8')).cases;
}

const tokenizers: Record<string, () => Promise<TextTokenizer>> = {
  'bert-base-uncased tokenizer.json': () => loadTokenizer(createFolderSource(join(DATA, 'bert-base-uncased'))),
  'modernbert tokenizer.json': () => loadTokenizer(createFolderSource(join(DATA, 'modernbert'))),
  'bert-base-uncased vocab.txt WordPiece': () =>
    loadTokenizer(
      createMemorySource(new Map([['vocab.txt', new Uint8Array(readFileSync(join(DATA, 'bert-base-uncased', 'vocab.txt')))]])),
    ),
};

const folderOf = (label: string) => label.split(' ')[0];

describe.each(Object.keys(tokenizers))('%s', (label) => {
  const cases = referenceCases(folderOf(label));
  let tokenizer: TextTokenizer;

  it('loads', async () => {
    tokenizer = await tokenizers[label]();
    expect(tokenizer.vocabSize).toBeGreaterThan(30000);
  });

  it.each(cases.map((c) => [c.name, c] as const))('matches the reference case %s', (_, c) => {
    const encoding = tokenizer.encode(c.text, { pair: c.text_pair, addSpecialTokens: c.add_special_tokens ?? true });
    expect(encoding.ids).toEqual(c.ids);
    expect(encoding.attentionMask).toEqual(c.attention_mask ?? c.ids.map(() => 1));
    if (c.type_ids) expect(encoding.typeIds).toEqual(c.type_ids);
  });

  it('truncates the content and keeps [CLS]/[SEP], as Hugging Face does', () => {
    const long = cases.find((c) => c.name === 'msmarco_pos1')!;
    for (const maxLength of [2, 3, 10, long.ids.length - 1, long.ids.length, long.ids.length + 5]) {
      const { ids, attentionMask } = tokenizer.encode(long.text, { maxLength });
      const kept = Math.min(maxLength, long.ids.length);
      expect(ids).toEqual([...long.ids.slice(0, kept - 1), long.ids[long.ids.length - 1]]);
      expect(attentionMask).toEqual(new Array(kept).fill(1));
    }
    expect(() => tokenizer.encode(long.text, { maxLength: 1 })).toThrow(/adds 2 special tokens/);
  });

  it('truncates a pair longest-first, keeping both separators', () => {
    const pair = cases.find((c) => c.name === 'pair_msmarco_1')!;
    const { ids } = tokenizer.encode(pair.text, { pair: pair.text_pair, maxLength: 32 });
    expect(ids.length).toBe(32);
    expect(ids[0]).toBe(tokenizer.specialIds.cls);
    expect(ids.filter((id) => id === tokenizer.specialIds.sep).length).toBe(2);
    const query = tokenizer.encode(pair.text, { addSpecialTokens: false }).ids;
    expect(ids.slice(1, 1 + query.length)).toEqual(query); // the short query stays whole
  });

  it('pads a batch to its longest text with the pad id and a zero mask', () => {
    const [a, b] = tokenizer.encodeBatch(['hello', 'hello world, this is longer'], { padToLongest: true });
    expect(a.ids.length).toBe(b.ids.length);
    const pads = a.ids.length - tokenizer.encode('hello').ids.length;
    expect(pads).toBeGreaterThan(0);
    expect(a.ids.slice(-pads)).toEqual(new Array(pads).fill(tokenizer.specialIds.pad));
    expect(a.attentionMask.slice(-pads)).toEqual(new Array(pads).fill(0));
  });

  it('maps special ids to their tokens', () => {
    const { cls, sep, pad, mask } = tokenizer.specialIds;
    expect([cls, sep, pad, mask].map((id) => tokenizer.idToToken(id))).toEqual(['[CLS]', '[SEP]', '[PAD]', '[MASK]']);
    expect(tokenizer.tokenToId('[MASK]')).toBe(mask);
  });
});

describe('longest-first pair truncation', () => {
  // The length table of the Rust tokenizers crate's own test (truncation.rs), max_length 7.
  const table: [number, number, number, number][] = [
    [0, 0, 0, 0],
    [0, 2, 0, 2],
    [0, 4, 0, 4],
    [0, 8, 0, 7],
    [2, 0, 2, 0],
    [2, 2, 2, 2],
    [2, 4, 2, 4],
    [2, 8, 2, 5],
    [4, 0, 4, 0],
    [4, 2, 4, 2],
    [4, 4, 3, 4],
    [4, 8, 3, 4],
    [8, 0, 7, 0],
    [8, 2, 5, 2],
    [8, 4, 4, 3],
    [8, 8, 3, 4],
  ];
  it.each(table)('lengths %i + %i truncate to %i + %i', (n1, n2, e1, e2) => {
    const [a, b] = truncateLongestFirst(new Array(n1).fill(1), new Array(n2).fill(2), 7);
    expect([a.length, b!.length]).toEqual([e1, e2]);
  });
});

describe('WordPiece details', () => {
  const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', 'un', '##aff', '##able', 'a', '##a', 'cafe', ','].join('\n');
  const tokenizer = createWordPieceTokenizer(vocab);
  it('splits greedily, longest match first, with ## continuations', () => {
    expect(tokenizer.encode('unaffable', { addSpecialTokens: false }).ids).toEqual([5, 6, 7]);
  });
  it('turns a word with an unknown piece into one [UNK]', () => {
    expect(tokenizer.encode('unaffablex, un', { addSpecialTokens: false }).ids).toEqual([1, 11, 5]);
  });
  it('turns a word over 100 characters into [UNK] and keeps one of exactly 100', () => {
    expect(tokenizer.encode('a'.repeat(101), { addSpecialTokens: false }).ids).toEqual([1]);
    expect(tokenizer.encode('a'.repeat(100), { addSpecialTokens: false }).ids).toEqual([8, ...new Array(99).fill(9)]);
  });
  it('builds the tokenizer.json BertTokenizerFast would: BERT normalizer, pre-tokenizer, WordPiece, BertProcessing', () => {
    const json = wordPieceTokenizerJson(vocab);
    expect(json.normalizer).toEqual({
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    });
    expect(json.pre_tokenizer).toEqual({ type: 'BertPreTokenizer' });
    expect(json.post_processor).toEqual({ type: 'BertProcessing', sep: ['[SEP]', 3], cls: ['[CLS]', 2] });
    expect(json.model).toMatchObject({
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
    });
    expect((json.added_tokens as { content: string }[]).map((t) => t.content)).toEqual([
      '[PAD]',
      '[UNK]',
      '[CLS]',
      '[SEP]',
      '[MASK]',
    ]);
  });
  it('refuses a vocab.txt without [UNK], [CLS] or [SEP], and keeps a token named __proto__ a token', () => {
    expect(() => createWordPieceTokenizer('[PAD]\n[CLS]\n[SEP]\n[MASK]\n')).toThrow('vocab.txt has no [UNK] token');
    const odd = createWordPieceTokenizer(`${vocab}\n__proto__`);
    expect(odd.tokenToId('__proto__')).toBe(12);
  });
  it('lower-cases and strips accents, unless told not to', () => {
    expect(tokenizer.encode('CAFÉ', { addSpecialTokens: false }).ids).toEqual([10]);
    expect(createWordPieceTokenizer(vocab, { lowercase: false }).encode('CAFÉ', { addSpecialTokens: false }).ids).toEqual([1]);
  });
});
