// The published search's query tokenizer: BERT's WordPiece as @huggingface/tokenizers 0.2 runs a tokenizer.json
// (added tokens split out first, BertNormalizer, BertPreTokenizer, greedy longest-match WordPiece), step for step, so
// that a query gets the token ids splade-lab's own tokenizer gives it (tests/node/evaluation/publish-tokenizer.test.ts).
// Imports nothing outside this folder.
import type { AddedTokenSpec, QueryTokenizerSpec, TokenizerSettings } from './manifest.ts';

// The library's PUNCTUATION_REGEX: Unicode punctuation plus every ASCII symbol.
const PUNCTUATION = '\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E';
const PRE_TOKEN = new RegExp(`[^\\s${PUNCTUATION}]+|[${PUNCTUATION}]`, 'gu');

/** The library's CJK test, on one UTF-16 code unit (as it checks them). */
function isChineseChar(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b820 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}

const CONTROL = /^\p{Cc}|\p{Cf}|\p{Co}|\p{Cs}$/u; // the library's pattern, precedence and all
const ONE_SPACE = /^\s$/;

type Normalizer = NonNullable<QueryTokenizerSpec['normalizer']>;

/** BertNormalizer: control characters dropped and white space made " ", CJK spaced, lower-cased, accents stripped. */
function normalize(text: string, n: Normalizer): string {
  let out = text;
  if (n.cleanText) {
    const kept: string[] = [];
    for (const char of out) {
      const cp = char.charCodeAt(0);
      if (cp === 0 || cp === 0xfffd || (char !== '\t' && char !== '\n' && char !== '\r' && CONTROL.test(char))) continue;
      kept.push(ONE_SPACE.test(char) ? ' ' : char);
    }
    out = kept.join('');
  }
  if (n.handleChineseChars) {
    const spaced: string[] = [];
    for (let i = 0; i < out.length; i++) {
      const char = out[i];
      spaced.push(isChineseChar(char.charCodeAt(0)) ? ` ${char} ` : char);
    }
    out = spaced.join('');
  }
  const strip = (s: string) => s.normalize('NFD').replace(/\p{Mn}/gu, '');
  if (n.lowercase) {
    out = out.toLowerCase();
    if (n.stripAccents !== false) out = strip(out);
  } else if (n.stripAccents) out = strip(out);
  return out;
}

interface TrieNode {
  next: Map<string, TrieNode>;
  end?: string;
}

/** The library's DictionarySplitter: at each UTF-16 position the longest added token starting there, else one unit on. */
function splitter(words: readonly string[]): (text: string) => string[] {
  const root: TrieNode = { next: new Map() };
  for (const word of words) {
    let node = root;
    for (let i = 0; i < word.length; i++) {
      let child = node.next.get(word[i]);
      if (!child) node.next.set(word[i], (child = { next: new Map() }));
      node = child;
    }
    node.end = word;
  }
  return (text) => {
    const result: string[] = [];
    let start = 0;
    let i = 0;
    while (i < text.length) {
      let node: TrieNode | undefined = root;
      let match: string | null = null;
      for (let j = i; j < text.length && (node = node.next.get(text[j])); j++) if (node.end !== undefined) match = node.end;
      if (match !== null) {
        if (i > start) result.push(text.slice(start, i));
        result.push(match);
        i += match.length;
        start = i;
      } else i++;
    }
    if (start < text.length) result.push(text.slice(start));
    return result;
  };
}

/** Strips the white space an added token with lstrip/rstrip eats from its neighbours. */
function stripAround(sections: string[], added: Map<string, AddedTokenSpec>): void {
  sections.forEach((section, i) => {
    const token = added.get(section);
    if (!token) return;
    if (token.lstrip && i > 0) sections[i - 1] = sections[i - 1].trimEnd();
    if (token.rstrip && i < sections.length - 1) sections[i + 1] = sections[i + 1].trimStart();
  });
}

/** A query's token ids under `spec`, no special tokens added, truncated at spec.maxTokens. */
export interface QueryTokenizer {
  ids(text: string): number[];
  token(id: number): string;
}

/** The pieces a tokenizer looks up: a whole vocabulary, or the shards of one a published search has fetched so far. */
export interface QueryVocabulary {
  id(piece: string): number | undefined;
  token(id: number): string | undefined;
}

/** A vocabulary held whole (token of every id, null where none). */
export function wholeVocabulary(vocab: readonly (string | null)[]): QueryVocabulary {
  const ids = new Map<string, number>();
  vocab.forEach((token, id) => {
    if (token !== null) ids.set(token, id);
  });
  return { id: (piece) => ids.get(piece), token: (id) => vocab[id] ?? undefined };
}

/**
 * Shards of a published vocabulary: a piece of two code points or more that starts a word goes to the shard of its
 * first two, one that continues a word ("##..." in BERT's) to the continuing shard of the first two after its marker;
 * the one-code-point pieces are one file.
 */
export const VOCABULARY_SHARDS = 1024;

/** Shards of the non-ASCII pieces of one code point (the ASCII ones are one small file, single.txt). */
export const SINGLE_SHARDS = 64;

/** The single shard of a piece of one code point: -1 for an ASCII one (single.txt). */
export function singleShard(piece: string): number {
  const point = piece.codePointAt(0) ?? 0;
  return point < 128 ? -1 : point % SINGLE_SHARDS;
}

/** The shard of a piece that starts a word, by its first two code points; -1 for a piece of one code point. */
export function vocabularyShard(piece: string): number {
  const [first, second] = piece;
  if (first === undefined || second === undefined) return -1;
  return ((first.codePointAt(0)! * 31 + second.codePointAt(0)!) >>> 0) % VOCABULARY_SHARDS;
}

/** The words and added tokens of a text, in order, as the tokenizer cuts it before WordPiece. */
function cutter(spec: TokenizerSettings): (text: string) => { added: AddedTokenSpec | null; text: string }[] {
  const added = new Map<string, AddedTokenSpec>();
  const plain: string[] = [];
  const normalizedContents: string[] = [];
  for (const token of spec.addedTokens) {
    added.set(token.content, token);
    if (token.normalized && spec.normalizer) {
      const content = normalize(token.content, spec.normalizer);
      normalizedContents.push(content);
      added.set(content, token);
    } else plain.push(token.content);
  }
  const splitPlain = splitter(plain);
  const splitNormalized = splitter(normalizedContents);
  return (text) => {
    const out: { added: AddedTokenSpec | null; text: string }[] = [];
    const sections = splitPlain(text);
    stripAround(sections, added);
    for (let section of sections) {
      if (section.length === 0) continue;
      const token = added.get(section);
      if (token) {
        out.push({ added: token, text: section });
        continue;
      }
      if (spec.normalizer) section = normalize(section, spec.normalizer);
      if (section.length === 0) continue;
      const parts = splitNormalized(section);
      stripAround(parts, added);
      for (const part of parts) {
        if (part.length === 0) continue;
        const partToken = added.get(part);
        if (partToken) out.push({ added: partToken, text: part });
        else for (const word of part.trim().match(PRE_TOKEN) ?? []) out.push({ added: null, text: word });
      }
    }
    return out;
  };
}

/** Each spec's cutter, made once (its added tokens' tries), for the shards of every query. */
const cutters = new WeakMap<TokenizerSettings, ReturnType<typeof cutter>>();

/**
 * The vocabulary shards a text's words start in (what a published search fetches before tokenizing it): a word's first
 * piece is one of its prefixes, so it is the word's first code point (the one-code-point file) or starts with its first
 * two (their shard). A word too long for WordPiece is unknown whole and needs none.
 */
export function vocabularyShardsOf(spec: TokenizerSettings, text: string): number[] {
  return shardsOfWords(spec, text, (chars, add) => add(vocabularyShard(chars.join(''))));
}

/**
 * The continuing shards a text's words may need: WordPiece looks a continuing piece up at a position inside a word,
 * and every piece it tries there starts with the word's two code points at that position (or is that one code point,
 * in the one-code-point files), so the shards of every pair of neighbours after the first code point hold them all.
 */
export function continuingShardsOf(spec: TokenizerSettings, text: string): number[] {
  return shardsOfWords(spec, text, (chars, add) => {
    for (let i = 1; i + 1 < chars.length; i++) add(vocabularyShard(chars[i] + chars[i + 1]));
  });
}

/** The single shards a text's words may need: each non-ASCII code point of a word may be a piece of its own. */
export function singleShardsOf(spec: TokenizerSettings, text: string): number[] {
  return shardsOfWords(spec, text, (chars, add) => chars.forEach((char) => add(singleShard(char))));
}

/**
 * The shards `shardsOf` names for each word WordPiece will split (an added token is matched whole, a word past
 * maxInputCharsPerWord is unknown whole: neither needs a piece), ascending, each once; a negative shard is none.
 */
function shardsOfWords(
  spec: TokenizerSettings,
  text: string,
  shardsOf: (chars: string[], add: (shard: number) => void) => void,
): number[] {
  let cut = cutters.get(spec);
  if (!cut) cutters.set(spec, (cut = cutter(spec)));
  const shards = new Set<number>();
  const add = (shard: number) => {
    if (shard >= 0) shards.add(shard);
  };
  for (const word of cut(text)) {
    const chars = [...word.text];
    if (!word.added && chars.length <= spec.maxInputCharsPerWord) shardsOf(chars, add);
  }
  return [...shards].sort((a, b) => a - b);
}

/**
 * The tokenizer of `spec` over `vocabulary` (default: the spec's whole vocabulary). A vocabulary of shards must hold
 * the ASCII one-code-point pieces and every shard vocabularyShardsOf, continuingShardsOf and singleShardsOf name for
 * the text.
 */
export function createQueryTokenizer(
  spec: TokenizerSettings & { vocab?: readonly (string | null)[] },
  vocabulary: QueryVocabulary = wholeVocabulary(spec.vocab ?? []),
): QueryTokenizer {
  if (spec.type !== 'wordpiece') throw new Error(`query tokenizer of type ${String(spec.type)} is not supported`);
  const cut = cutter(spec);
  const unk = spec.unkToken;
  // an added token's content is a piece too (the library adds it to the vocabulary), its own id winning
  const addedIds = new Map<string, number>();
  for (const token of spec.addedTokens) addedIds.set(token.content, token.id);
  const lookup = (piece: string) => addedIds.get(piece) ?? vocabulary.id(piece);

  const wordPiece = (word: string, out: string[]): void => {
    const chars = [...word];
    if (chars.length > spec.maxInputCharsPerWord) {
      out.push(unk);
      return;
    }
    const pieces: string[] = [];
    let start = 0;
    while (start < chars.length) {
      let end = chars.length;
      let found: string | null = null;
      while (start < end) {
        let piece = chars.slice(start, end).join('');
        if (start > 0) piece = spec.continuingSubwordPrefix + piece;
        if (lookup(piece) !== undefined) {
          found = piece;
          break;
        }
        end--;
      }
      if (found === null) {
        out.push(unk);
        return;
      }
      pieces.push(found);
      start = end;
    }
    out.push(...pieces);
  };

  return {
    ids(text) {
      const unkId = lookup(unk) ?? -1;
      const result: number[] = [];
      for (const word of cut(text)) {
        if (word.added) {
          result.push(word.added.id);
          continue;
        }
        const pieces: string[] = [];
        wordPiece(word.text, pieces);
        for (const piece of pieces) result.push(lookup(piece) ?? unkId);
      }
      return spec.maxTokens === null ? result : result.slice(0, spec.maxTokens);
    },
    token: (id) => vocabulary.token(id) ?? spec.addedTokens.find((t) => t.id === id)?.content ?? `[id ${id}]`,
  };
}
