// The masked-LM sequence cache proves what it holds (issue 42, item 5): a blob is named by the SHA-256 of the text
// and of the tokenizer and sealed with both, the layout and the length; a text forged to another's CRC-32 and size
// gets a blob of its own, and a blob of another text put under this text's name is said and tokenized again, never
// read as a hit.
import { describe, expect, it } from 'vitest';
import { mlmSourceFromBytes } from '../../../src/app/training/mlm-source.ts';
import type { ModelConfig } from '../../../src/contract/model/model-config.ts';
import type { MlmRequest } from '../../../src/contract/training/mlm-request.ts';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { tokenizerDigest, tokenizerFingerprint } from '../../../src/io/tokenizer/tokenizer-fingerprint.ts';
import { loadTokenizer } from '../../../src/io/tokenizer/tokenizer-load.ts';
import {
  decodeTokenizedText,
  sequenceCacheKey,
  sequenceSeal,
  type SequenceCacheStore,
} from '../../../src/train/mlm/mlm-sequence-cache.ts';
import { crc32 } from '../../../src/util/crc32.ts';
import { fixturePath } from '../../helpers/fixtures.ts';

const tokenizerPromise = loadTokenizer(createFolderSource(fixturePath('tokenizers/bert-base-uncased')));
const REQUEST: MlmRequest = { batchSize: 2, maxLength: 8, layout: 'grouped', checkpointEvery: 10, resume: false };

/**
 * `text` with the bytes at `at..at+8` rewritten as letters "@" to "_" (0x40-0x5f, 5 free bits each) so that its
 * CRC-32 is `target`: CRC-32 is affine over GF(2), so the 40 free bits solve 32 equations.
 */
function forgeCrc(text: Uint8Array, at: number, target: number): Uint8Array {
  const out = text.slice();
  for (let i = 0; i < 8; i++) out[at + i] = 0x40;
  const base = crc32(out);
  const columns: number[] = []; // bit j of the free bits -> its effect on the CRC
  for (let j = 0; j < 40; j++) {
    const flipped = out.slice();
    flipped[at + Math.floor(j / 5)] ^= 1 << (j % 5);
    columns.push((crc32(flipped) ^ base) >>> 0);
  }
  // Gaussian elimination over GF(2): rows are CRC bits, each a 40-bit mask of free bits plus its right-hand side
  const want = (target ^ base) >>> 0;
  const rows = Array.from({ length: 32 }, (_, bit) => ({
    mask: columns.reduce((m, column, j) => m | (BigInt((column >>> bit) & 1) << BigInt(j)), 0n),
    rhs: (want >>> bit) & 1,
  }));
  const pivots: number[] = [];
  let r = 0;
  for (let j = 0; j < 40 && r < 32; j++) {
    const found = rows.findIndex((row, i) => i >= r && (row.mask >> BigInt(j)) & 1n);
    if (found < 0) continue;
    [rows[r], rows[found]] = [rows[found], rows[r]];
    for (let i = 0; i < 32; i++)
      if (i !== r && (rows[i].mask >> BigInt(j)) & 1n) {
        rows[i].mask ^= rows[r].mask;
        rows[i].rhs ^= rows[r].rhs;
      }
    pivots.push(j);
    r++;
  }
  expect(r).toBe(32);
  pivots.forEach((j, i) => {
    if (rows[i].rhs) out[at + Math.floor(j / 5)] ^= 1 << (j % 5);
  });
  return out;
}

/** A memory store that records its blobs. */
function memoryStore(): SequenceCacheStore & { blobs: Map<string, Uint8Array> } {
  const blobs = new Map<string, Uint8Array>();
  return {
    label: 'the test cache',
    blobs,
    get: async (key) => blobs.get(key) ?? null,
    put: async (key, b) => void blobs.set(key, b),
  };
}

/** Reads `bytes` as a text through the cache; what it said (the data line's fields, and notes). */
async function read(bytes: Uint8Array, cache: SequenceCacheStore) {
  const tokenizer = await tokenizerPromise;
  const said: Record<string, unknown>[] = [];
  const source = await mlmSourceFromBytes(bytes, 'text.txt', 'text', REQUEST, {
    tokenizer,
    config: { vocabSize: tokenizer.vocabSize } as ModelConfig,
    cache,
    say: (line, fields) => said.push({ line, ...fields }),
  });
  return { source, data: said.find((s) => 'cached' in s)!, notes: said.filter((s) => 'note' in s) };
}

describe('the masked-LM sequence cache', () => {
  const original = new TextEncoder().encode('the heart pumps blood through the body\nthe river runs to the sea\n'.repeat(3));
  const forged = forgeCrc(original, 4, crc32(original)); // "the @XYZ..." where "heart pumps" was: same CRC-32, same size

  it("a text forged to the same CRC-32 and size is tokenized on its own, never read from the first text's blob", async () => {
    expect(crc32(forged)).toBe(crc32(original));
    expect(forged.length).toBe(original.length);
    expect(Buffer.compare(forged, original)).not.toBe(0);
    expect(new TextDecoder('utf-8', { fatal: true }).decode(forged)).toMatch(/^the [@-_]{8}/);
    const cache = memoryStore();
    expect((await read(original, cache)).data.cached).toBe(false);
    expect((await read(original, cache)).data.cached).toBe(true);
    const second = await read(forged, cache);
    expect(second.data.cached).toBe(false);
    expect(second.notes).toEqual([]);
    expect(cache.blobs.size).toBe(2);
    const digest = await tokenizerDigest(await tokenizerPromise);
    const rows = async (bytes: Uint8Array) => {
      const seal = await sequenceSeal(bytes, digest, 'grouped', 8);
      const decoded = decodeTokenizedText(cache.blobs.get(sequenceCacheKey(seal))!, seal);
      return 'text' in decoded ? decoded.text.rows.map((row) => Array.from(row.ids)) : decoded.problem;
    };
    expect(await rows(forged)).not.toEqual(await rows(original));
  });

  it("a blob of another text under this text's name is said and made again, then read", async () => {
    const cache = memoryStore();
    await read(original, cache);
    const [[key, blob]] = [...cache.blobs];
    const forgedKey = sequenceCacheKey(await sequenceSeal(forged, await tokenizerDigest(await tokenizerPromise), 'grouped', 8));
    cache.blobs.set(forgedKey, blob); // the original's sequences under the forged text's name
    const read1 = await read(forged, cache);
    expect(read1.data.cached).toBe(false);
    expect(read1.notes).toEqual([
      expect.objectContaining({
        note: 'foreign-sequence-cache',
        line: expect.stringMatching(
          new RegExp(
            `^note: the test cache holds a foreign ${forgedKey} \\(it was made from another text \\(SHA-256 [0-9a-f]{16}…, this text's is [0-9a-f]{16}…\\)\\): the text is tokenized again$`,
          ),
        ),
      }),
    ]);
    expect(cache.blobs.get(forgedKey)).not.toBe(blob);
    expect((await read(forged, cache)).data.cached).toBe(true);
    expect(key).not.toBe(forgedKey);
    // the key holds the text's and the tokenizer's digests, never the CRC-32 alone
    expect(key).toMatch(/^mlm-[0-9a-f]{32}-[0-9a-f]{16}-grouped-8$/);
    expect(key).not.toContain(tokenizerFingerprint(await tokenizerPromise));
  });
});
