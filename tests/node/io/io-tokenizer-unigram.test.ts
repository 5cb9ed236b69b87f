// A SentencePiece (Unigram) tokenizer.json laid out as ALBERT's (Replace/NFKD/StripAccents/Lowercase normalizer,
// Metaspace, Unigram, [CLS] A [SEP] template) goes through the library path: Viterbi pieces worked out by hand.
import { describe, expect, it } from 'vitest';
import { createTokenizerJsonTokenizer } from '../../../src/io/tokenizer/tokenizer-json.ts';

const VOCAB: [string, number][] = [
  ['<pad>', 0],
  ['<unk>', 0],
  ['[CLS]', 0],
  ['[SEP]', 0],
  ['[MASK]', 0],
  ['▁', -2],
  ['▁the', -3],
  ['▁sparse', -8], // beats ▁spar + se (-10)
  ['▁spar', -5],
  ['se', -5],
  ['▁re', -4],
  ['trieval', -9], // ▁re + trieval (-13) beats ▁re + trie + val (-16)
  ['trie', -6],
  ['val', -6],
  ['▁ca', -5], // ▁ca + fe (-10) beats ▁caf + e (-15)
  ['fe', -5],
  ['▁caf', -9],
  ['e', -6],
  ['"', -7],
];

const special = (id: number, content: string) => ({
  id,
  content,
  single_word: false,
  lstrip: false,
  rstrip: false,
  normalized: false,
  special: true,
});

const piece = (id: string, typeId: number) => ({ SpecialToken: { id, type_id: typeId } });

const sequence = (id: 'A' | 'B', typeId: number) => ({ Sequence: { id, type_id: typeId } });

/** ALBERT's tokenizer.json layout (its Precompiled normalizer left out: it needs the model's charsmap). */
const ALBERT_STYLE = {
  version: '1.0',
  truncation: null,
  padding: null,
  added_tokens: [special(0, '<pad>'), special(1, '<unk>'), special(2, '[CLS]'), special(3, '[SEP]'), special(4, '[MASK]')],
  normalizer: {
    type: 'Sequence',
    normalizers: [
      { type: 'Replace', pattern: { String: '``' }, content: '"' },
      { type: 'Replace', pattern: { String: "''" }, content: '"' },
      { type: 'NFKD' },
      { type: 'StripAccents' },
      { type: 'Lowercase' },
    ],
  },
  pre_tokenizer: { type: 'Metaspace', replacement: '▁', add_prefix_space: true, prepend_scheme: 'always' },
  post_processor: {
    type: 'TemplateProcessing',
    single: [piece('[CLS]', 0), sequence('A', 0), piece('[SEP]', 0)],
    pair: [piece('[CLS]', 0), sequence('A', 0), piece('[SEP]', 0), sequence('B', 1), piece('[SEP]', 1)],
    special_tokens: {
      '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] },
      '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] },
    },
  },
  decoder: { type: 'Metaspace', replacement: '▁', add_prefix_space: true, prepend_scheme: 'always' },
  model: { type: 'Unigram', unk_id: 1, vocab: VOCAB, byte_fallback: false },
};

const ids = (...tokens: string[]) => tokens.map((t) => VOCAB.findIndex(([piece]) => piece === t));

describe('SentencePiece Unigram tokenizer.json (ALBERT layout)', () => {
  const tokenizer = createTokenizerJsonTokenizer(ALBERT_STYLE, { do_lower_case: true });

  it('normalises (accents, case, `` quotes) and picks the most probable segmentation', () => {
    const encoding = tokenizer.encode('The SPARSE retrieval Café ``');
    expect(encoding.ids).toEqual(ids('[CLS]', '▁the', '▁sparse', '▁re', 'trieval', '▁ca', 'fe', '▁', '"', '[SEP]'));
  });

  it('pairs get [CLS] A [SEP] B [SEP] with type ids 0 then 1; special ids come from the file', () => {
    const encoding = tokenizer.encode('the', { pair: 'sparse' });
    expect(encoding.ids).toEqual(ids('[CLS]', '▁the', '[SEP]', '▁sparse', '[SEP]'));
    expect(encoding.typeIds).toEqual([0, 0, 0, 1, 1]);
    expect(tokenizer.specialIds).toMatchObject({ cls: 2, sep: 3, pad: 0, mask: 4, unk: 1 });
  });

  it('characters no piece covers become one <unk> per run', () => {
    expect(tokenizer.encode('the zq').ids).toEqual(ids('[CLS]', '▁the', '▁', '<unk>', '[SEP]'));
    expect(tokenizer.encode('"the').ids).toEqual(ids('[CLS]', '▁', '"', '<unk>', 'e', '[SEP]'));
  });
});
