// The tokenized sequences of a masked-LM text, kept between runs (a resume, a second run on the same text) so that
// the text is tokenized once: one blob per text + tokenizer + layout + length, checked by its own CRC-32 on read.
import { crc32 } from '../util/crc32.ts';
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

/** "SLM1" read as a little-endian word. */
const MAGIC = 0x314d4c53;
/** Words before the lengths: magic, documents, skipped, tokens, rows. */
const HEAD_WORDS = 5;

/** The blob's key: the text (CRC-32 and size), the tokenizer's fingerprint, the layout and the length. */
export function sequenceCacheKey(text: Uint8Array, tokenizer: string, layout: string, maxLength: number): string {
  const hex = (n: number) => n.toString(16).padStart(8, '0');
  return `mlm-${hex(crc32(text))}-${text.length}-${hex(crc32(new TextEncoder().encode(tokenizer)))}-${layout}-${maxLength}`;
}

/** Header words, each row's length, every id, then the CRC-32 of all that. */
export function encodeTokenizedText(text: TokenizedText): Uint8Array {
  const total = text.rows.reduce((n, row) => n + row.ids.length, 0);
  const words = new Uint32Array(HEAD_WORDS + text.rows.length + total + 1);
  words.set([MAGIC, text.documents, text.skipped, text.tokens, text.rows.length]);
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

/** The tokenized text of a blob, or null (with why) when it is damaged or of another layout. */
export function decodeTokenizedText(bytes: Uint8Array): { text: TokenizedText } | { problem: string } {
  if (bytes.length < 4 * (HEAD_WORDS + 1) || bytes.length % 4 !== 0)
    return { problem: `${bytes.length} bytes is no blob of this layout` };
  const words = new Uint32Array(bytes.slice().buffer);
  const end = words.length - 1;
  if (words[0] !== MAGIC) return { problem: 'another layout' };
  if (crc32(bytes.subarray(0, 4 * end)) !== words[end]) return { problem: 'its CRC-32 does not match' };
  const [documents, skipped, tokens, count] = [words[1], words[2], words[3], words[4]];
  if (HEAD_WORDS + count > end) return { problem: 'a row count past its end' };
  const lengths = words.subarray(HEAD_WORDS, HEAD_WORDS + count);
  let at = HEAD_WORDS + count;
  const rows: MlmRow[] = [];
  for (const length of lengths) {
    if (at + length > end) return { problem: 'rows past its end' };
    rows.push({ ids: new Int32Array(words.buffer, 4 * at, length) });
    at += length;
  }
  if (at !== end) return { problem: 'bytes left after its rows' };
  return { text: { rows, documents, skipped, tokens } };
}
