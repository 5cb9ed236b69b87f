// Line breaks and line length in the triplet readers: \n, \r\n and a lone \r each end a line (a CR-only file is read
// row by row, never as one row with carriage returns in its fields), in the whole-file parsers and in the streaming
// index at every chunk size (a \r\n split across two chunks is one break); a line past the cap is refused by number.
import { describe, expect, it } from 'vitest';
import { parseBeirJsonl, parseBeirQrels } from '../../../src/io/beir/beir.ts';
import { memoryFile } from '../../../src/io/random-access.ts';
import { indexTripletFile } from '../../../src/io/triplets/triplet-index.ts';
import { parseTripletsJsonl } from '../../../src/io/triplets/triplets-jsonl.ts';
import { parseTriplets, type Triplet } from '../../../src/io/triplets/triplets.ts';

const ROWS = Array.from({ length: 9 }, (_, i) => [`query ${i}`, `positive passage ${i}`, `negative passage ${i}`]);
const encode = (text: string) => new TextEncoder().encode(text);
const asRows = (triplets: readonly Triplet[]) => triplets.map((t) => [t.query, t.positive, t.negative]);

/** The nine rows with each row's break taken in turn from `breaks` (and one after the last row). */
function tsv(breaks: string[]): string {
  return ROWS.map((row, i) => row.join('\t') + breaks[i % breaks.length]).join('');
}

const ENDINGS: Record<string, string[]> = {
  'CR only (an old Mac export)': ['\r'],
  CRLF: ['\r\n'],
  LF: ['\n'],
  mixed: ['\r', '\n', '\r\n'],
};

describe('line breaks in triplet files', () => {
  for (const [name, breaks] of Object.entries(ENDINGS)) {
    it(`${name}: the whole-file parser reads 9 rows, no field keeps a carriage return`, () => {
      const parsed = parseTriplets(tsv(breaks), 'nine.tsv');
      expect(asRows(parsed.triplets)).toEqual(ROWS);
      expect(parsed.blankLines).toBe(0);
    });

    it(`${name}: the streaming index reads the same rows at every chunk size`, async () => {
      const bytes = encode(tsv(breaks));
      for (const chunkBytes of [1, 2, 3, 7, 41, 4096]) {
        const indexed = await indexTripletFile(memoryFile(bytes, 'nine.tsv'), 'tsv', { chunkBytes });
        expect(indexed.source.count, `chunks of ${chunkBytes}`).toBe(9);
        expect(indexed.blankLines, `chunks of ${chunkBytes}`).toBe(0);
        const rows = await indexed.source.read(ROWS.map((_, i) => i));
        expect(asRows(rows), `chunks of ${chunkBytes}`).toEqual(ROWS);
      }
    });
  }

  it('JSON Lines with CR-only breaks: one object per line', async () => {
    const text = ROWS.map(([query, positive, negative]) => JSON.stringify({ query, positive, negative })).join('\r') + '\r';
    expect(asRows(parseTripletsJsonl(text, 'nine.jsonl').triplets)).toEqual(ROWS);
    const indexed = await indexTripletFile(memoryFile(encode(text), 'nine.jsonl'), 'jsonl', { chunkBytes: 5 });
    expect(asRows(await indexed.source.read(ROWS.map((_, i) => i)))).toEqual(ROWS);
  });

  it('errors name the line counted with CR breaks too', async () => {
    const text = 'q1\tp1\tn1\rq2\tp2\rq3\tp3\tn3\r';
    expect(() => parseTriplets(text, 'cr.tsv')).toThrow(/cr\.tsv line 2: 2 tab-separated fields/);
    await expect(indexTripletFile(memoryFile(encode(text), 'cr.tsv'), 'tsv', { chunkBytes: 4 })).rejects.toThrow(
      /cr\.tsv line 2: 2 tab-separated fields/,
    );
  });

  it('a blank line between two CRLF rows counts once, whatever the chunk size', async () => {
    const bytes = encode('q1\tp1\tn1\r\n\r\nq2\tp2\tn2\r\n');
    for (const chunkBytes of [1, 2, 9, 10, 11, 64]) {
      const indexed = await indexTripletFile(memoryFile(bytes, 'b.tsv'), 'tsv', { chunkBytes });
      expect([indexed.source.count, indexed.blankLines], `chunks of ${chunkBytes}`).toEqual([2, 1]);
    }
  });
});

describe('line breaks in BEIR files', () => {
  it('a CR-only corpus and qrels are read line by line', () => {
    const corpus = ['{"_id": "d1", "text": "one"}', '{"_id": "d2", "text": "two"}', '{"_id": "d3", "text": "three"}'].join('\r');
    expect(parseBeirJsonl(corpus, 'corpus.jsonl').records.map((r) => r.id)).toEqual(['d1', 'd2', 'd3']);
    const qrels = parseBeirQrels('query-id\tcorpus-id\tscore\rq1\td1\t1\rq1\td3\t2\r', 'test.tsv').qrels;
    expect([...qrels.get('q1')!.entries()]).toEqual([
      ['d1', 1],
      ['d3', 2],
    ]);
  });
});

describe('line length', () => {
  it('a line past the cap is refused with its number, before the rest of it is read', async () => {
    const long = `q\tp\t${'x'.repeat(5000)}`;
    const bytes = encode(`q1\tp1\tn1\n${long}\nq3\tp3\tn3\n`);
    let read = 0;
    const file = memoryFile(bytes, 'long.tsv');
    const counting = { ...file, read: async (start: number, end: number) => ((read = end), file.read(start, end)) };
    await expect(indexTripletFile(counting, 'tsv', { chunkBytes: 256, maxLineBytes: 1000 })).rejects.toThrow(
      /long\.tsv line 2: the line is longer than 1000 bytes/,
    );
    expect(read).toBeLessThan(2000);
  });

  it('a file without any line break is refused the same way', async () => {
    const bytes = encode('a'.repeat(10_000));
    await expect(indexTripletFile(memoryFile(bytes, 'one.tsv'), 'tsv', { chunkBytes: 512, maxLineBytes: 4096 })).rejects.toThrow(
      /one\.tsv line 1: the line is longer than 4096 bytes/,
    );
  });
});
