// BERT's tokenizer built from vocab.txt alone (bert-tiny ships no tokenizer.json): the tokenizer.json Hugging Face's
// BertTokenizerFast derives from it (BertNormalizer, BertPreTokenizer, WordPiece, BertProcessing), run by @huggingface/tokenizers.
import { createTokenizerJsonTokenizer } from './tokenizer-json.ts';
import type { TextTokenizer } from './tokenizer.ts';

export interface WordPieceOptions {
  /** Lower-case the text (tokenizer_config do_lower_case); default true, as BertTokenizer. */
  lowercase?: boolean;
  /** Strip accents; by default (null) follows `lowercase`. */
  stripAccents?: boolean | null;
  /** Put spaces around CJK ideographs so each is its own word; default true. */
  tokenizeChineseChars?: boolean;
  /** Extra tokens that are never split (besides [PAD] [UNK] [CLS] [SEP] [MASK]). */
  specialTokens?: string[];
}

/** One token per line; trailing white space (\r included) dropped, as BertTokenizer's load_vocab does. */
function parseVocabTxt(text: string): string[] {
  const lines = text.split('\n').map((line) => line.trimEnd());
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

const REQUIRED = ['[UNK]', '[CLS]', '[SEP]'] as const;

/**
 * The tokenizer.json of a vocab.txt: token ids are line numbers (a repeated token keeps its last line, as the Rust
 * tokenizers' vocabulary map does); the BERT specials present, and `specialTokens`, are added tokens matched before
 * normalisation.
 */
export function wordPieceTokenizerJson(vocabTxt: string, options: WordPieceOptions = {}): Record<string, unknown> {
  const tokens = parseVocabTxt(vocabTxt);
  const vocab: Record<string, number> = Object.create(null); // a token "__proto__" stays a token
  tokens.forEach((token, id) => (vocab[token] = id));
  const has = (token: string) => Object.hasOwn(vocab, token);
  const missing = REQUIRED.filter((token) => !has(token));
  if (missing.length > 0)
    throw new Error(`vocab.txt has no ${missing.join(', ')} token (a BERT WordPiece vocabulary needs [UNK], [CLS] and [SEP])`);
  const specials = [...new Set(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', ...(options.specialTokens ?? [])])].filter(has);
  const lowercase = options.lowercase ?? true;
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map((content) => ({
      id: vocab[content],
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: options.tokenizeChineseChars ?? true,
      strip_accents: options.stripAccents ?? null,
      lowercase,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: { type: 'BertProcessing', sep: ['[SEP]', vocab['[SEP]']], cls: ['[CLS]', vocab['[CLS]']] },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  };
}

/** A BERT tokenizer from the text of a vocab.txt, through the same library as tokenizer.json files. */
export function createWordPieceTokenizer(vocabTxt: string, options: WordPieceOptions = {}): TextTokenizer {
  return createTokenizerJsonTokenizer(wordPieceTokenizerJson(vocabTxt, options));
}
