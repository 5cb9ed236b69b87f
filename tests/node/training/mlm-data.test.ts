// Masked-LM data: text files read strictly (blank documents skipped and counted, broken JSON, bad UTF-8, empty files
// and over-long lines refused with file and line), masking as Hugging Face's collator, blocks and resumable batches.
import { describe, expect, it } from 'vitest';
import { readMlmDocuments } from '../../../src/io/triplets/mlm-text.ts';
import { readMaskedBatches } from '../../../src/io/triplets/masked-batches-jsonl.ts';
import { MAX_LINE_BYTES } from '../../../src/io/triplets/triplet-index.ts';
import { IGNORED_LABEL } from '../../../src/contract/training/mlm-recipe.ts';
import { maskTokens, type MaskingSettings } from '../../../src/train/mlm/mlm-masking.ts';
import { MlmBatches, groupIntoBlocks } from '../../../src/train/mlm/mlm-batches.ts';
import { Random } from '../../../src/util/random.ts';
import {
  decodeTokenizedText,
  encodeTokenizedText,
  sequenceCacheKey,
  sequenceSeal,
} from '../../../src/train/mlm/mlm-sequence-cache.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('masked-LM text', () => {
  it('reads .txt lines (any line break) and .jsonl title + text; blank JSON documents are skipped and counted', () => {
    expect(readMlmDocuments(bytes('one\r\ntwo\rthree\n\n  \nfour'), 'a.txt')).toEqual({
      documents: ['one', 'two', 'three', 'four'],
      skipped: 0,
    });
    const beir = ['{"_id":"1","title":"Sea","text":"waves"}', '{"_id":"2","title":"","text":"  "}', '{"_id":"3","text":"tide"}'];
    expect(readMlmDocuments(bytes(beir.join('\n')), 'corpus.jsonl')).toEqual({ documents: ['Sea waves', 'tide'], skipped: 1 });
  });

  it('refuses what it cannot read, naming the file and line', () => {
    expect(() => readMlmDocuments(bytes('{"text": "a"}\n{"text": '), 'c.jsonl')).toThrow(/c\.jsonl:2: not valid JSON/);
    expect(() => readMlmDocuments(bytes('{"text": 3}'), 'c.jsonl')).toThrow(/c\.jsonl:1: "text" is a number/);
    expect(() => readMlmDocuments(bytes('[1]'), 'c.jsonl')).toThrow(/c\.jsonl:1: a JSON array/);
    expect(() => readMlmDocuments(Uint8Array.of(0x61, 0x0a, 0xff, 0x62), 'bad.txt')).toThrow(/bad\.txt.*invalid UTF-8/);
    expect(() => readMlmDocuments(bytes(''), 'empty.txt')).toThrow(/empty\.txt: holds no text/);
    expect(() => readMlmDocuments(bytes('{"text":""}\n{"title":" "}'), 'blank.jsonl')).toThrow(/all 2 documents are empty/);
    const huge = 'word '.repeat(MAX_LINE_BYTES / 5 + 10);
    expect(() => readMlmDocuments(bytes(`short\n${huge}\n`), 'huge.txt')).toThrow(
      /huge\.txt:2: a line of \d+ bytes, over the 4 MiB/,
    );
  });

  it('pre-masked records: checked field by field, and a file without a label is refused', () => {
    const limits = { vocabSize: 10, maxLength: 4 };
    const ok = '{"input_ids":[2,5,3],"attention_mask":[1,1,1],"labels":[-100,5,-100]}';
    expect(readMaskedBatches(bytes(ok), 'b.jsonl', limits)[0].labels).toEqual(Int32Array.of(-100, 5, -100));
    const bad = (line: string) => () => readMaskedBatches(bytes(line), 'b.jsonl', limits);
    expect(bad('{"input_ids":[2,50],"attention_mask":[1,1],"labels":[-100,5]}')).toThrow(/b\.jsonl:1: "input_ids"\[1\] is 50/);
    expect(bad('{"input_ids":[2,5],"attention_mask":[1],"labels":[-100,5]}')).toThrow(/must be equal/);
    expect(bad('{"input_ids":[2,5,3,4,6],"attention_mask":[1,1,1,1,1],"labels":[1,1,1,1,1]}')).toThrow(
      /over the run's --max-length 4/,
    );
    expect(bad('{"input_ids":[2,5],"attention_mask":[1,1],"labels":[-100,-100]}')).toThrow(/no label other than -100/);
  });
});

describe('masking as DataCollatorForLanguageModeling', () => {
  const settings: MaskingSettings = { probability: 0.15, maskId: 4, vocabSize: 1000, never: new Set([0, 1, 2, 3, 4]) };

  it('chooses 15% of the maskable tokens, 80% [MASK], 10% random, 10% kept; never specials or padding', () => {
    const n = 200_000;
    const ids = Int32Array.from({ length: n }, (_, i) => (i % 50 === 0 ? 1 : i % 50 === 49 ? 0 : 10 + (i % 900)));
    const attention = Uint8Array.from({ length: n }, (_, i) => (i % 50 === 49 ? 0 : 1));
    const { inputIds, labels } = maskTokens(ids, attention, settings, new Random(3));
    let chosen = 0;
    let masked = 0;
    let kept = 0;
    let maskable = 0;
    for (let i = 0; i < n; i++) {
      const special = ids[i] < 5 || !attention[i];
      if (!special) maskable++;
      if (labels[i] === IGNORED_LABEL) {
        expect(inputIds[i]).toBe(ids[i]);
        continue;
      }
      expect(special, `position ${i} is special or padding`).toBe(false);
      expect(labels[i]).toBe(ids[i]);
      chosen++;
      if (inputIds[i] === 4) masked++;
      else if (inputIds[i] === ids[i]) kept++;
    }
    expect(chosen / maskable).toBeCloseTo(0.15, 2);
    expect(masked / chosen).toBeCloseTo(0.8, 1);
    expect(kept / chosen).toBeGreaterThan(0.08);
    expect(kept / chosen).toBeLessThan(0.12);
    expect(() => maskTokens(ids, attention, { ...settings, probability: 0 }, new Random(1))).toThrow(/above 0/);
  });
});

describe('masked-LM batches', () => {
  it('groups documents into full blocks and drops the remainder', () => {
    const blocks = groupIntoBlocks(
      [
        [1, 2, 3],
        [4, 5],
        [6, 7, 8, 9],
      ],
      4,
    );
    expect(blocks.map((b) => Array.from(b.ids))).toEqual([
      [1, 2, 3, 4],
      [5, 6, 7, 8],
    ]);
  });

  it('a run resumed from a data position sees, and masks, the batches an uninterrupted one does', async () => {
    const rows = Array.from({ length: 11 }, (_, i) => ({ ids: Int32Array.from([2, 10 + i, 20 + i, 3]) }));
    const shape = { batchSize: 3, maxLength: 6, padId: 0 };
    const masking: MaskingSettings = { probability: 0.5, maskId: 4, vocabSize: 40, never: new Set([0, 2, 3, 4]) };
    const straight = new MlmBatches(rows, shape, 7, masking);
    const seen = [];
    for (let i = 0; i < 6; i++) seen.push((await straight.next()).batch);
    const first = new MlmBatches(rows, shape, 7, masking);
    for (let i = 0; i < 2; i++) await first.next();
    const resumed = new MlmBatches(rows, shape, 7, masking, first.position);
    for (let i = 2; i < 6; i++) expect((await resumed.next()).batch).toEqual(seen[i]);
    // rows are padded to the length under attention 0, and padding is never predicted
    expect(Array.from(seen[0].attentionMask.slice(0, 6))).toEqual([1, 1, 1, 1, 0, 0]);
    expect(seen.every((b) => b.labels.every((label, i) => label === IGNORED_LABEL || b.attentionMask[i] === 1))).toBe(true);
  });

  it('keeps tokenized sequences as a checked, sealed blob: the same rows and counts back; a cut, a flipped bit, another layout or another seal is refused', async () => {
    const text = {
      rows: [[101, 7, 8, 102], [], [101, 30521, 102]].map((ids) => ({ ids: Int32Array.from(ids) })),
      documents: 4,
      skipped: 1,
      tokens: 7,
    };
    const bytes = new TextEncoder().encode('one text');
    const seal = await sequenceSeal(bytes, 'a'.repeat(64), 'grouped', 64);
    expect(seal.text).toBe('b94ddd8ea66566c04f83c6c02e925f269e40180e9acc9cf6cbdf440b7efff704'); // sha256sum's
    const blob = encodeTokenizedText(text, seal);
    const back = decodeTokenizedText(blob, seal);
    expect('text' in back && back.text.rows.map((r) => Array.from(r.ids))).toEqual([[101, 7, 8, 102], [], [101, 30521, 102]]);
    expect('text' in back && [back.text.documents, back.text.skipped, back.text.tokens]).toEqual([4, 1, 7]);
    expect(decodeTokenizedText(blob.subarray(0, blob.length - 4), seal)).toHaveProperty('problem');
    const flipped = blob.slice();
    flipped[flipped.length - 10] ^= 4;
    expect(decodeTokenizedText(flipped, seal)).toEqual({ problem: 'its CRC-32 does not match' });
    const other = blob.slice();
    other[0] ^= 1;
    expect(decodeTokenizedText(other, seal)).toEqual({ problem: 'another layout' });
    const otherText = await sequenceSeal(new TextEncoder().encode('one texT'), seal.tokenizer, 'grouped', 64);
    expect(decodeTokenizedText(blob, otherText)).toMatchObject({ foreign: true, problem: /made from another text/ });
    expect(decodeTokenizedText(blob, { ...seal, tokenizer: 'b'.repeat(64) })).toMatchObject({ foreign: true });
    expect(decodeTokenizedText(blob, { ...seal, maxLength: 32 })).toMatchObject({ foreign: true });
    const key = sequenceCacheKey(seal);
    expect(key).toBe(`mlm-${seal.text.slice(0, 32)}-${'a'.repeat(16)}-grouped-64`);
    expect(sequenceCacheKey({ ...seal, tokenizer: 'b'.repeat(64) })).not.toBe(key);
    expect(sequenceCacheKey({ ...seal, layout: 'line-by-line' })).not.toBe(key);
    expect(sequenceCacheKey({ ...seal, maxLength: 32 })).not.toBe(key);
    expect(sequenceCacheKey(otherText)).not.toBe(key);
  });
});
