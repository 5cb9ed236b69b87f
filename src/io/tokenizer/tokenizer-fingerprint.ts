// A tokenizer's identity for cache keys: CRC-32 of its whole definition (normaliser, pre-tokeniser, model,
// post-processor, added and special tokens), its vocabulary, its special ids, and its encodings of a few texts that
// normalisers and pre-tokenisers treat differently (case, accents, punctuation, digits, CJK); and the same parts'
// SHA-256 (tokenizerDigest) for a seal that must hold against a forged checksum.
import { crc32 } from '../../util/crc32.ts';
import { sha256Hex } from '../../util/sha256.ts';
import type { TextTokenizer } from './tokenizer.ts';

const PROBES = [
  'Hello, World! 1234',
  'Ça coûte 3,50 € — naïve café',
  'ÉCOLE straße İstanbul',
  "don't re-use e-mail's",
  '東京 タワー 북한',
  'x'.repeat(40),
];

export function tokenizerFingerprint(tokenizer: TextTokenizer): string {
  const encoder = new TextEncoder();
  let crc = crc32(encoder.encode(JSON.stringify({ vocab: tokenizer.vocabSize, special: tokenizer.specialIds })));
  if (tokenizer.definition !== undefined) crc = crc32(encoder.encode(tokenizer.definition), crc);
  for (let id = 0; id < tokenizer.vocabSize; id++) crc = crc32(encoder.encode(`${tokenizer.idToToken(id) ?? ''}\n`), crc);
  for (const text of PROBES)
    crc = crc32(
      Uint8Array.from(tokenizer.encode(text).ids.flatMap((id) => [id & 255, (id >>> 8) & 255, (id >>> 16) & 255])),
      crc,
    );
  return crc.toString(16).padStart(8, '0');
}

/**
 * The tokenizer's identity as a SHA-256 (64 hex digits) of the same parts as tokenizerFingerprint's CRC-32: its
 * definition, special ids, vocabulary and encodings of the probe texts. For seals that a checksum would not hold.
 */
export async function tokenizerDigest(tokenizer: TextTokenizer): Promise<string> {
  const parts = [JSON.stringify({ vocab: tokenizer.vocabSize, special: tokenizer.specialIds }), tokenizer.definition ?? ''];
  for (let id = 0; id < tokenizer.vocabSize; id++) parts.push(tokenizer.idToToken(id) ?? '');
  for (const text of PROBES) parts.push(JSON.stringify(tokenizer.encode(text).ids));
  // each part's length first: no two tokenizers' parts join into the same text
  return sha256Hex(parts.map((part) => `${part.length}:${part}`).join('\n'));
}
