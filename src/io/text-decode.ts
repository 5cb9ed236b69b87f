// Strict text decoding for every data-file reader (triplets, BEIR, TREC, JSON): UTF-8 or an error naming the file
// and line of the first bad byte; UTF-16 files (byte-order mark or NUL-byte pattern) are recognised and named as such.
import { lineAtByte } from './line-breaks.ts';

/** Bytes that are not UTF-8 text: where (file, 1-based line, byte offset) and what to do. */
export class TextDecodeError extends Error {
  override name = 'TextDecodeError';
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly byteOffset: number | null,
    problem: string,
  ) {
    super(`${file}${line !== null ? `:${line}` : ''}: ${problem}`);
  }
}

const SAVE_AS_UTF8 = 'save it as UTF-8';

/** Offset of the first byte that does not start a well-formed UTF-8 sequence (RFC 3629), or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let i = 0; i < n;) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    const extra = b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : 0;
    if (extra === 0) return i;
    // The second byte's range excludes overlong forms, surrogates and code points above U+10FFFF.
    const low = b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80;
    const high = b === 0xed ? 0x9f : b === 0xf4 ? 0x8f : 0xbf;
    if (i + 1 >= n || bytes[i + 1] < low || bytes[i + 1] > high) return i;
    for (let k = 2; k <= extra; k++) if (i + k >= n || (bytes[i + k] & 0xc0) !== 0x80) return i;
    i += extra + 1;
  }
  return -1;
}

/** 'LE' or 'BE' when the start of the file looks like UTF-16 text (NULs on one byte parity), else null. */
function utf16Pattern(bytes: Uint8Array): 'LE' | 'BE' | null {
  const sample = bytes.subarray(0, 1024 - (Math.min(bytes.length, 1024) % 2));
  if (sample.length < 2) return null;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < sample.length; i++) {
    if (sample[i] !== 0) continue;
    if (i % 2) odd++;
    else even++;
  }
  const half = sample.length / 2;
  if (odd >= half / 2 && even <= odd / 8) return 'LE';
  if (even >= half / 2 && odd <= even / 8) return 'BE';
  return null;
}

/**
 * Decodes UTF-8 text strictly: a leading UTF-8 byte-order mark is dropped; a UTF-16 file, a NUL byte or an invalid
 * sequence is a TextDecodeError naming `file` and the line (never silent U+FFFD replacement).
 */
export function decodeUtf8Strict(bytes: Uint8Array, file: string): string {
  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
    const order = bytes[0] === 0xff ? 'FF FE, little-endian' : 'FE FF, big-endian';
    throw new TextDecodeError(file, null, 0, `this file is UTF-16 (byte-order mark ${order}); ${SAVE_AS_UTF8}`);
  }
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    const pattern = utf16Pattern(bytes);
    if (pattern)
      throw new TextDecodeError(
        file,
        null,
        null,
        `this file is UTF-16 (${pattern}, NUL bytes between the characters); ${SAVE_AS_UTF8}`,
      );
    throw new TextDecodeError(
      file,
      lineAtByte(bytes, nul),
      nul,
      `NUL byte at byte ${nul}: this is not a text file; ${SAVE_AS_UTF8} text`,
    );
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    if (at < 0) throw new TextDecodeError(file, null, null, `is not valid UTF-8; ${SAVE_AS_UTF8}`);
    const hex = bytes[at].toString(16).toUpperCase().padStart(2, '0');
    throw new TextDecodeError(
      file,
      lineAtByte(bytes, at),
      at,
      `invalid UTF-8 (byte 0x${hex} at byte ${at}); the file is in another encoding: ${SAVE_AS_UTF8}`,
    );
  }
}

/** Text given as a string passes through; bytes are decoded strictly. Readers accept either. */
export function textOf(content: string | Uint8Array, file: string): string {
  return typeof content === 'string' ? content : decodeUtf8Strict(content, file);
}
