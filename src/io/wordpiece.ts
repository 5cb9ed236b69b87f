// BERT's tokenizer built from vocab.txt alone (bert-tiny ships no tokenizer.json): the BERT normalizer and
// pre-tokenizer, then greedy longest-match-first WordPiece, matching Hugging Face's Rust implementation.
import { bertTemplate, createTemplateTokenizer, requireTokenId, type TextTokenizer } from './tokenizer.ts';

export interface WordPieceOptions {
  /** Lower-case the text (tokenizer_config do_lower_case); default true, as BertTokenizer. */
  lowercase?: boolean;
  /** Strip accents; by default follows `lowercase`. */
  stripAccents?: boolean | null;
  /** Put spaces around CJK ideographs so each is its own word; default true. */
  tokenizeChineseChars?: boolean;
  /** Extra tokens that are never split (besides [PAD] [UNK] [CLS] [SEP] [MASK]). */
  specialTokens?: string[];
}

const MAX_WORD_CHARS = 100;
const CONTINUATION = '##';
const WHITESPACE = /\p{White_Space}/u;
const OTHER = /\p{C}/u;
const PUNCTUATION = /\p{P}/u;
const NONSPACING_MARK = /\p{Mn}/u;

function isControl(c: string): boolean {
  return c !== '\t' && c !== '\n' && c !== '\r' && OTHER.test(c);
}

function isPunctuation(c: string): boolean {
  const code = c.codePointAt(0)!;
  const asciiPunctuation = (code >= 33 && code <= 47) || (code >= 58 && code <= 64) || (code >= 91 && code <= 96) || (code >= 123 && code <= 126);
  return asciiPunctuation || PUNCTUATION.test(c);
}

function isChineseChar(code: number): boolean {
  return (
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x20000 && code <= 0x2a6df) ||
    (code >= 0x2a700 && code <= 0x2b73f) ||
    (code >= 0x2b740 && code <= 0x2b81f) ||
    (code >= 0x2b820 && code <= 0x2ceaf) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0x2f800 && code <= 0x2fa1f)
  );
}

/** BertNormalizer: drop NUL/U+FFFD/control chars, whitespace to spaces, pad CJK, strip accents, lower-case per char. */
export function bertNormalize(text: string, options: Required<Omit<WordPieceOptions, 'specialTokens'>>): string {
  let out = '';
  for (const c of text) {
    if (c === '\0' || c === '\ufffd' || isControl(c)) continue;
    if (WHITESPACE.test(c)) out += ' ';
    else if (options.tokenizeChineseChars && isChineseChar(c.codePointAt(0)!)) out += ` ${c} `;
    else out += c;
  }
  if (options.stripAccents ?? options.lowercase) {
    out = [...out.normalize('NFD')].filter((c) => !NONSPACING_MARK.test(c)).join('');
  }
  if (options.lowercase) out = [...out].map((c) => c.toLowerCase()).join('');
  return out;
}

/** BertPreTokenizer: words split on whitespace (dropped) and around every punctuation character (kept alone). */
export function bertPreTokenize(text: string): string[] {
  const words: string[] = [];
  let word = '';
  for (const c of text) {
    if (WHITESPACE.test(c) || isPunctuation(c)) {
      if (word) words.push(word);
      word = '';
      if (!WHITESPACE.test(c)) words.push(c);
    } else word += c;
  }
  if (word) words.push(word);
  return words;
}

/** Greedy longest-match-first WordPiece; a word with an unmatched piece, or over 100 chars, becomes [UNK]. */
export function wordPieceIds(word: string, vocab: Map<string, number>, unk: number): number[] {
  const chars = [...word];
  if (chars.length > MAX_WORD_CHARS) return [unk];
  const ids: number[] = [];
  for (let start = 0; start < chars.length; ) {
    let end = chars.length;
    let found: number | undefined;
    for (; end > start; end--) {
      const piece = (start > 0 ? CONTINUATION : '') + chars.slice(start, end).join('');
      found = vocab.get(piece);
      if (found !== undefined) break;
    }
    if (found === undefined) return [unk];
    ids.push(found);
    start = end;
  }
  return ids;
}

/** Splits raw text around special tokens (leftmost, longest first), which are matched before normalisation. */
function splitOnSpecialTokens(text: string, specials: string[]): { text: string; special: boolean }[] {
  const parts: { text: string; special: boolean }[] = [];
  const ordered = [...specials].sort((a, b) => b.length - a.length);
  let rest = 0;
  for (let at = 0; at < text.length; ) {
    const match = ordered.find((token) => text.startsWith(token, at));
    if (!match) {
      at++;
      continue;
    }
    if (at > rest) parts.push({ text: text.slice(rest, at), special: false });
    parts.push({ text: match, special: true });
    at += match.length;
    rest = at;
  }
  if (rest < text.length) parts.push({ text: text.slice(rest), special: false });
  return parts;
}

export function parseVocabTxt(text: string): string[] {
  const lines = text.split('\n').map((line) => line.trimEnd());
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function createWordPieceTokenizer(vocabTxt: string, options: WordPieceOptions = {}): TextTokenizer {
  const tokens = parseVocabTxt(vocabTxt);
  const vocab = new Map<string, number>();
  tokens.forEach((token, id) => vocab.set(token, id));
  const tokenToId = (token: string) => vocab.get(token);
  const unk = requireTokenId(tokenToId, 'unknown', ['[UNK]']);
  const specials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', ...(options.specialTokens ?? [])].filter((t) => vocab.has(t));
  const normalizeOptions = {
    lowercase: options.lowercase ?? true,
    stripAccents: options.stripAccents ?? null,
    tokenizeChineseChars: options.tokenizeChineseChars ?? true,
  };
  const contentIds = (text: string): number[] =>
    splitOnSpecialTokens(text, specials).flatMap((part) =>
      part.special ? [vocab.get(part.text)!] : bertPreTokenize(bertNormalize(part.text, normalizeOptions)).flatMap((word) => wordPieceIds(word, vocab, unk)),
    );
  const cls = requireTokenId(tokenToId, 'CLS', ['[CLS]']);
  const sep = requireTokenId(tokenToId, 'SEP', ['[SEP]']);
  return createTemplateTokenizer({
    contentIds,
    template: bertTemplate(cls, sep),
    vocabSize: tokens.length,
    specialIds: { cls, sep, pad: requireTokenId(tokenToId, 'padding', ['[PAD]']), mask: requireTokenId(tokenToId, 'mask', ['[MASK]']), unk },
    idToToken: (id) => tokens[id],
    tokenToId,
  });
}
