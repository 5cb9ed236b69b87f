// The tokenized sequences of a masked-LM text, kept between runs (a resume, a second run on the same text) so that
// the text is tokenized once: one blob per text + tokenizer + layout + length, named by the SHA-256 of the text and of
// the tokenizer, and sealed with both digests in full, the layout and the length, which are checked on read (a blob of
// another text under the name, or of a text forged to the same CRC-32, is never read as this text's); its own CRC-32
// catches damaged bytes.
import { crc32 } from '../../util/crc32.ts';
import { sha256Hex } from '../../util/sha256.ts';
import type { MlmLayout } from '../../contract/training/mlm-recipe.ts';
import type { MlmRow } from './mlm-batches.ts';

/** Where the blobs live: a folder in Node. A blob that is missing, damaged or of another layout counts as absent. */
export interface SequenceCacheStore {
  readonly label: string;
  get(key: string): Promise<Uint8Array | null>;
  put(key: string, bytes: Uint8Array): Promise<void>;
}

/** What a text made: its sequences and the counts the run reports. */
export interface TokenizedText {
  rows: MlmRow[];
  documents: number;
  skipped: number;
  tokens: number;
}

/** What made a blob, written in it and checked on read: the text's and the tokenizer's SHA-256, the layout, the length. */
export interface SequenceSeal {
  /** SHA-256 of the text's bytes, 64 hex digits. */
  text: string;
  /** The tokenizer's SHA-256 (io/tokenizer/tokenizer-fingerprint.ts's tokenizerDigest), 64 hex digits. */
  tokenizer: string;
  layout: MlmLayout;
  maxLength: number;
}

/** "SLM2" read as a little-endian word ("SLM1", sealed by CRC-32 and size only, is never read). */
const MAGIC = 0x324d4c53;
/** The layouts as the seal's word holds them. */
const LAYOUTS: readonly MlmLayout[] = ['grouped', 'line-by-line', 'pre-masked'];
/** Words of a digest. */
const DIGEST_WORDS = 8;
/** Words before the lengths: magic, the two digests, layout, length, documents, skipped, tokens, rows. */
const HEAD_WORDS = 1 + 2 * DIGEST_WORDS + 6;

/** The seal of `text`'s sequences under a tokenizer (its tokenizerDigest), layout and length. */
export async function sequenceSeal(
  text: Uint8Array,
  tokenizer: string,
  layout: MlmLayout,
  maxLength: number,
): Promise<SequenceSeal> {
  return { text: await sha256Hex(text), tokenizer, layout, maxLength };
}

/** The blob's name: the first 128 bits of the text's SHA-256 and 64 of the tokenizer's, the layout and the length. */
export function sequenceCacheKey(seal: SequenceSeal): string {
  return `mlm-${seal.text.slice(0, 32)}-${seal.tokenizer.slice(0, 16)}-${seal.layout}-${seal.maxLength}`;
}

/** A hex digest as its 8 words (big-endian within each word, as written). */
function digestWords(hex: string): number[] {
  return Array.from({ length: DIGEST_WORDS }, (_, i) => parseInt(hex.slice(8 * i, 8 * i + 8), 16) >>> 0);
}

function wordsDigest(words: Uint32Array): string {
  return Array.from(words, (w) => w.toString(16).padStart(8, '0')).join('');
}

/** Header words (magic, seal, counts), each row's length, every id, then the CRC-32 of all that. */
export function encodeTokenizedText(text: TokenizedText, seal: SequenceSeal): Uint8Array {
  const total = text.rows.reduce((n, row) => n + row.ids.length, 0);
  const words = new Uint32Array(HEAD_WORDS + text.rows.length + total + 1);
  words.set([
    MAGIC,
    ...digestWords(seal.text),
    ...digestWords(seal.tokenizer),
    LAYOUTS.indexOf(seal.layout),
    seal.maxLength,
    text.documents,
    text.skipped,
    text.tokens,
    text.rows.length,
  ]);
  let at = HEAD_WORDS;
  for (const row of text.rows) words[at++] = row.ids.length;
  for (const row of text.rows) {
    words.set(new Uint32Array(row.ids.buffer, row.ids.byteOffset, row.ids.length), at);
    at += row.ids.length;
  }
  const bytes = new Uint8Array(words.buffer);
  words[at] = crc32(bytes.subarray(0, 4 * at));
  return bytes;
}

/** What differs between a blob's seal and the one asked for, or null when they are the same. */
function sealProblem(found: SequenceSeal, asked: SequenceSeal): string | null {
  if (found.text !== asked.text)
    return `it was made from another text (SHA-256 ${found.text.slice(0, 16)}…, this text's is ${asked.text.slice(0, 16)}…)`;
  if (found.tokenizer !== asked.tokenizer) return 'it was made by another tokenizer';
  if (found.layout !== asked.layout || found.maxLength !== asked.maxLength)
    return `it holds ${found.layout} sequences of ${found.maxLength} tokens, not ${asked.layout} of ${asked.maxLength}`;
  return null;
}

/**
 * The tokenized text of a blob made for `seal`, or why it cannot be read: damaged, of another layout, or (its seal)
 * made from another text, tokenizer, layout or length.
 */
export function decodeTokenizedText(
  bytes: Uint8Array,
  seal: SequenceSeal,
): { text: TokenizedText } | { problem: string; foreign?: true } {
  if (bytes.length < 4 * (HEAD_WORDS + 1) || bytes.length % 4 !== 0)
    return { problem: `${bytes.length} bytes is no blob of this layout` };
  const words = new Uint32Array(bytes.slice().buffer);
  const end = words.length - 1;
  if (words[0] !== MAGIC) return { problem: 'another layout' };
  if (crc32(bytes.subarray(0, 4 * end)) !== words[end]) return { problem: 'its CRC-32 does not match' };
  let at = 1 + 2 * DIGEST_WORDS;
  const found: SequenceSeal = {
    text: wordsDigest(words.subarray(1, 1 + DIGEST_WORDS)),
    tokenizer: wordsDigest(words.subarray(1 + DIGEST_WORDS, at)),
    layout: LAYOUTS[words[at++]] ?? ('unknown' as MlmLayout),
    maxLength: words[at++],
  };
  const foreign = sealProblem(found, seal);
  if (foreign) return { problem: foreign, foreign: true };
  const [documents, skipped, tokens, count] = [words[at], words[at + 1], words[at + 2], words[at + 3]];
  if (HEAD_WORDS + count > end) return { problem: 'a row count past its end' };
  const lengths = words.subarray(HEAD_WORDS, HEAD_WORDS + count);
  at = HEAD_WORDS + count;
  const rows: MlmRow[] = [];
  for (const length of lengths) {
    if (at + length > end) return { problem: 'rows past its end' };
    rows.push({ ids: new Int32Array(words.buffer, 4 * at, length) });
    at += length;
  }
  if (at !== end) return { problem: 'bytes left after its rows' };
  return { text: { rows, documents, skipped, tokens } };
}
