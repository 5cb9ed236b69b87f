// Training data: triplet TSV parsing (a generated file and non-ASCII text; malformed lines named by file and line; teacher
// labels after a header naming them), seeded per-epoch shuffling that covers every triplet once, tokenized batches with
// HF truncation and padding, resumable positions.
import { memoryFile } from '../../../src/io/random-access.ts';
import { indexTripletFile } from '../../../src/io/triplets/triplet-index.ts';
import { memoryTripletSource } from '../../../src/io/triplets/triplet-source.ts';
import { describe, expect, it } from 'vitest';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { createMemorySource } from '../../../src/io/file-source.ts';
import { loadTokenizer } from '../../../src/io/tokenizer/tokenizer-load.ts';
import { parseTriplets, readTriplets, TripletFormatError, type Triplet } from '../../../src/io/triplets/triplets.ts';
import { epochOrder, TripletBatches } from '../../../src/train/splade/batches.ts';
import { TINY_VOCAB } from '../../helpers/tiny-splade-model.ts';
import { GENERATED_TRIPLETS, generatedTripletsFolder, NON_ASCII_TRIPLETS } from '../../helpers/generated-data.ts';

const TOY = generatedTripletsFolder();

const tokenizerPromise = loadTokenizer(
  createMemorySource(new Map([['vocab.txt', new TextEncoder().encode(TINY_VOCAB.join('\n') + '\n')]]), 'tiny'),
);

describe('triplet TSV', () => {
  it("reads a triplets file, non-ASCII and mojibake kept as they are (MS MARCO's own file: tests/data)", async () => {
    const file = await readTriplets(createFolderSource(TOY), 'triplets.tsv');
    expect(file.triplets).toHaveLength(GENERATED_TRIPLETS);
    expect(file.blankLines).toBe(0);
    expect(file.header).toBe(false);
    for (const t of file.triplets) for (const field of [t.query, t.positive, t.negative]) expect(field.length).toBeGreaterThan(0);
    expect(file.triplets.slice(-NON_ASCII_TRIPLETS.length)).toEqual(
      NON_ASCII_TRIPLETS.map(([query, positive, negative]) => ({ query, positive, negative })),
    );
    // MS MARCO's passages carry UTF-8 read as Latin-1 and written again ("donâ\u0080\u0099t"): kept, never repaired
    const mojibake =
      'is a little caffeine ok\tWe don\u00e2\u0080\u0099t know\tcaf\u00e9 cr\u00e8me \u2014 na\u00efve \u{1F600}\n';
    expect(parseTriplets(mojibake, 'm.tsv').triplets).toEqual([
      {
        query: 'is a little caffeine ok',
        positive: 'We don\u00e2\u0080\u0099t know',
        negative: 'caf\u00e9 cr\u00e8me \u2014 na\u00efve \u{1F600}',
      },
    ]);
  });

  it('accepts CRLF, a byte-order mark, a header and blank lines (counted)', () => {
    const text = '\uFEFFquery\tpositive\tnegative\r\nq1\tp1\tn1\r\n\r\n  \nq2\tp 2\tn2\n';
    expect(parseTriplets(text, 'x.tsv')).toEqual({
      triplets: [
        { query: 'q1', positive: 'p1', negative: 'n1' },
        { query: 'q2', positive: 'p 2', negative: 'n2' },
      ],
      blankLines: 2,
      header: true,
    });
  });

  it.each([
    ['q1\tp1\tn1\nq2\tp2\n', 2, '2 tab-separated fields, expected 3'],
    ['q1\tp1\tn1\tx\nq2\tp2\tn2\n', 2, '1 negative, but the first row has 2: every row needs as many'],
    ['only a query\n', 1, '1 tab-separated field, expected 3'],
    ['q1\tp1\tn1\n\nq3\t \tn3\n', 3, 'the positive (field 2) is empty'],
    ['\tp1\tn1\n', 1, 'the query (field 1) is empty'],
    ['q1\tp1\t\n', 1, 'the negative (field 3) is empty'],
  ])('refuses a malformed line, naming file and line: %j', (text, line, problem) => {
    let error: unknown;
    try {
      parseTriplets(text, 'data/train.tsv');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TripletFormatError);
    expect((error as TripletFormatError).line).toBe(line);
    expect((error as Error).message).toContain(`data/train.tsv line ${line}: ${problem}`);
  });

  it('reads rows with several negatives (field 3 onwards), and a header naming them', () => {
    const file = parseTriplets('query\tpositive\tnegative_1\tnegative_2\nq1\tp1\tn1\tm1\nq2\tp2\tn2\tm2\n', 'two.tsv');
    expect(file.header).toBe(true);
    expect(file.triplets).toEqual([
      { query: 'q1', positive: 'p1', negative: 'n1', extraNegatives: ['m1'] },
      { query: 'q2', positive: 'p2', negative: 'n2', extraNegatives: ['m2'] },
    ]);
    // a first line that merely starts with the words is data
    expect(parseTriplets('query about cats\tpositive\tnegative\n', 'x.tsv').triplets).toHaveLength(1);
  });

  const labelled = (header: string, rows: string[]) => [header, ...rows].join('\n') + '\n';
  it.each([
    {
      what: 'one number in `label`',
      text: labelled('query\tpositive\tnegative\tlabel', ['q1\tp1\tn1\t1.5', 'q2\tp2\tn2\t-2e-1']),
      triplets: [
        { query: 'q1', positive: 'p1', negative: 'n1', label: [1.5] },
        { query: 'q2', positive: 'p2', negative: 'n2', label: [-0.2] },
      ],
    },
    {
      what: 'JSON lists in `label` (an anchor column)',
      text: labelled('anchor\tpositive\tnegative\tlabel', ['q1\tp1\tn1\t[1.5, -2]', 'q2\tp2\tn2\t[0,3]']),
      triplets: [
        { query: 'q1', positive: 'p1', negative: 'n1', label: [1.5, -2] },
        { query: 'q2', positive: 'p2', negative: 'n2', label: [0, 3] },
      ],
    },
    ...(['score', 'Scores', 'labels'] as const).map((name) => ({
      what: `sentence-transformers' other name \`${name}\` (a number or a JSON list per row)`,
      text: labelled(`query\tpositive\tnegative\t${name}`, ['q1\tp1\tn1\t[7.5, -1]', 'q2\tp2\tn2\t[2, 0.5]']),
      triplets: [
        { query: 'q1', positive: 'p1', negative: 'n1', label: [7.5, -1] },
        { query: 'q2', positive: 'p2', negative: 'n2', label: [2, 0.5] },
      ],
    })),
    {
      what: 'negative_1..3 and label_1..3',
      text: labelled('query\tpositive\tnegative_1\tnegative_2\tnegative_3\tlabel_1\tlabel_2\tlabel_3', [
        'q1\tp1\ta1\tb1\tc1\t3\t2.5\t-1',
        'q2\tp2\ta2\tb2\tc2\t0\t1E2\t0.125',
      ]),
      triplets: [
        { query: 'q1', positive: 'p1', negative: 'a1', extraNegatives: ['b1', 'c1'], label: [3, 2.5, -1] },
        { query: 'q2', positive: 'p2', negative: 'a2', extraNegatives: ['b2', 'c2'], label: [0, 100, 0.125] },
      ],
    },
  ])(
    'reads teacher labels after a header naming them: $what, also read back from the streamed index',
    async ({ text, triplets }) => {
      expect(parseTriplets(text, 'l.tsv')).toEqual({ triplets, blankLines: 0, header: true });
      const indexed = await indexTripletFile(memoryFile(new TextEncoder().encode(text), 'l.tsv'), 'tsv', { chunkBytes: 7 });
      expect(await indexed.source.read([1, 0])).toEqual([triplets[1], triplets[0]]);
      expect(indexed.labels?.width).toBe(triplets[0].label.length);
    },
  );

  it.each([
    ['', 'the label (field 4) is "", not a finite number (a teacher score) or a JSON list of them'],
    ['nan', 'the label (field 4) is "nan", not a finite number'],
    ['inf', 'the label (field 4) is "inf", not a finite number'],
    ['0x10', 'the label (field 4) is "0x10", not a finite number'],
    ['1e999', 'the label (field 4) is "1e999", not a finite number'],
    ['[1, "a"]', 'the label (field 4) is "[1, \\"a\\"]", not a JSON list of finite numbers'],
    ['[]', 'the label (field 4) is "[]", not a JSON list of finite numbers'],
    ['[1, 2', 'the label (field 4) is "[1, 2", not a JSON list of finite numbers'],
    ['1\t2', '5 tab-separated fields, but the header names 4 (query, positive, 1 negative, then 1 label field)'],
  ])('refuses a bad label row after a header naming `label`, naming file and line: %j', (label, problem) => {
    const text = labelled('query\tpositive\tnegative\tlabel', ['q1\tp1\tn1\t0.5', `q2\tp2\tn2\t${label}`]);
    expect(() => parseTriplets(text, 'data/l.tsv')).toThrow(`data/l.tsv line 3: ${problem}`);
  });

  it('reads a file without a label header as before: trailing numbers are negatives, labels misnamed are refused', () => {
    const plain = parseTriplets('q1\tp1\tn1\t1.5\nq2\tp2\tn2\t-2\n', 'p.tsv');
    expect(plain).toEqual({
      triplets: [
        { query: 'q1', positive: 'p1', negative: 'n1', extraNegatives: ['1.5'] },
        { query: 'q2', positive: 'p2', negative: 'n2', extraNegatives: ['-2'] },
      ],
      blankLines: 0,
      header: false,
    });
    expect(parseTriplets('query\tpositive\tnegative\nq1\tp1\tn1\n', 'h.tsv').triplets).toEqual([
      { query: 'q1', positive: 'p1', negative: 'n1' },
    ]);
    expect(() => parseTriplets('query\tpositive\tnegative\tlabel_2\nq1\tp1\tn1\t1\n', 'm.tsv')).toThrow(
      'm.tsv line 1: the header names the labels label_2: name one "label" (or "labels", "score", "scores") column',
    );
    // two names of the one label column are refused; a bad value names the column as the header does
    expect(() => parseTriplets('query\tpositive\tnegative\tlabel\tscore\nq1\tp1\tn1\t1\t2\n', 't.tsv')).toThrow(
      't.tsv line 1: the header names the labels label, score',
    );
    expect(() => parseTriplets('query\tpositive\tnegative\tscore\nq1\tp1\tn1\thigh\n', 's.tsv')).toThrow(
      's.tsv line 2: the score (field 4) is "high", not a finite number',
    );
  });

  it('refuses a file without triplets, and names a missing file', async () => {
    expect(() => parseTriplets('\n\n', 'empty.tsv')).toThrow('empty.tsv: no triplets');
    await expect(readTriplets(createMemorySource(new Map(), 'mem'), 'nope.tsv')).rejects.toThrow('mem/nope.tsv not found');
  });
});

describe('epoch order', () => {
  it('is a permutation, the same for the same (seed, epoch) and different otherwise', () => {
    const a = epochOrder(100, 1, 0);
    expect([...a].sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(epochOrder(100, 1, 0)).toEqual(a);
    expect(epochOrder(100, 1, 1)).not.toEqual(a);
    expect(epochOrder(100, 2, 0)).not.toEqual(a);
    expect(a).not.toEqual(Uint32Array.from({ length: 100 }, (_, i) => i));
  });
});

const TRIPLETS: Triplet[] = Array.from({ length: 10 }, (_, i) => ({
  query: `cat ${'dog '.repeat(i)}`,
  positive: `the sea and the river ${i}`,
  negative: `music song ${'book '.repeat(2 * i)}`,
}));

describe('triplet batches', () => {
  it('visit every triplet once per epoch in the seeded order; a batch at the end of an epoch continues the next', async () => {
    const tokenizer = await tokenizerPromise;
    const batches = new TripletBatches(
      memoryTripletSource(TRIPLETS),
      tokenizer,
      { batchSize: 4, queryLength: 6, documentLength: 8 },
      7,
    );
    const seen: number[] = [];
    const starts = [];
    for (let i = 0; i < 5; i++) {
      const { triplets, start } = await batches.next();
      expect(triplets).toHaveLength(4);
      seen.push(...triplets);
      starts.push(start);
    }
    expect(seen).toEqual([...epochOrder(10, 7, 0), ...epochOrder(10, 7, 1)]);
    expect(starts).toEqual([
      { epoch: 0, index: 0 },
      { epoch: 0, index: 4 },
      { epoch: 0, index: 8 },
      { epoch: 1, index: 2 },
      { epoch: 1, index: 6 },
    ]);
    expect(batches.position).toEqual({ epoch: 2, index: 0 });
    expect(TripletBatches.stepsFor(1, 10, 4)).toBe(3);
  });

  it('resume from a stored position with the same batches, bit for bit', async () => {
    const tokenizer = await tokenizerPromise;
    const shape = { batchSize: 3, queryLength: 6, documentLength: 8 };
    const straight = new TripletBatches(memoryTripletSource(TRIPLETS), tokenizer, shape, 3);
    for (let i = 0; i < 4; i++) await straight.next();
    const position = straight.position;
    const resumed = new TripletBatches(memoryTripletSource(TRIPLETS), tokenizer, shape, 3, position);
    for (let i = 0; i < 5; i++) expect(await resumed.next()).toEqual(await straight.next());
  });

  it('tokenize as the tokenizer does: truncated to the length with [SEP] kept, padded with the pad id under mask 0', async () => {
    const tokenizer = await tokenizerPromise;
    const [B, Tq, Td] = [2, 6, 8];
    const { batch, triplets } = await new TripletBatches(
      memoryTripletSource(TRIPLETS),
      tokenizer,
      { batchSize: B, queryLength: Tq, documentLength: Td },
      1,
    ).next();
    const expectRow = (ids: Int32Array, mask: Uint8Array, T: number, row: number, text: string) => {
      const e = tokenizer.encode(text, { maxLength: T });
      const pad = T - e.ids.length;
      expect([...ids.subarray(row * T, (row + 1) * T)], text).toEqual([...e.ids, ...Array(pad).fill(tokenizer.specialIds.pad)]);
      expect([...mask.subarray(row * T, (row + 1) * T)], text).toEqual([...Array(e.ids.length).fill(1), ...Array(pad).fill(0)]);
    };
    triplets.forEach((i, row) => {
      expectRow(batch.queryIds, batch.queryMask, Tq, row, TRIPLETS[i].query);
      expectRow(batch.documentIds, batch.documentMask, Td, row, TRIPLETS[i].positive);
      expectRow(batch.documentIds, batch.documentMask, Td, B + row, TRIPLETS[i].negative);
    });
    // A long text fills the row and still ends with [SEP]; "cat" is known, "the" too; unknown words are [UNK].
    const long = (
      await new TripletBatches(
        memoryTripletSource([{ query: 'cat the zebra cat the cat the cat', positive: 'sea', negative: 'sun' }]),
        tokenizer,
        { batchSize: 1, queryLength: 5, documentLength: 4 },
        1,
      ).next()
    ).batch;
    const id = (t: string) => tokenizer.tokenToId(t)!;
    expect([...long.queryIds]).toEqual([id('[CLS]'), id('cat'), id('the'), id('[UNK]'), id('[SEP]')]);
    expect([...long.queryMask]).toEqual([1, 1, 1, 1, 1]);
    expect([...long.documentIds]).toEqual([
      id('[CLS]'),
      id('sea'),
      id('[SEP]'),
      id('[PAD]'),
      id('[CLS]'),
      id('sun'),
      id('[SEP]'),
      id('[PAD]'),
    ]);
  });

  it('refuse a batch larger than the data and a position outside it', async () => {
    const tokenizer = await tokenizerPromise;
    const shape = { batchSize: 4, queryLength: 6, documentLength: 8 };
    expect(() => new TripletBatches(memoryTripletSource(TRIPLETS.slice(0, 3)), tokenizer, shape, 1)).toThrow(
      'the batch size 4 is larger than the 3 triplets available',
    );
    expect(() => new TripletBatches(memoryTripletSource(TRIPLETS), tokenizer, shape, 1, { epoch: 0, index: 10 })).toThrow(
      'outside a file of 10 triplets',
    );
    expect(() => new TripletBatches(memoryTripletSource(TRIPLETS), tokenizer, { ...shape, queryLength: 1 }, 1)).toThrow(
      'at least 2',
    );
  });

  it('visits the triplets in file order every epoch when asked (dataOrder "file"), across an epoch boundary', async () => {
    const shape = { batchSize: 4, queryLength: 6, documentLength: 8, dataOrder: 'file' as const };
    const batches = new TripletBatches(memoryTripletSource(TRIPLETS), await tokenizerPromise, shape, 7);
    const seen = [await batches.next(), await batches.next(), await batches.next()].map((b) => b.triplets);
    expect(seen).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9, 0, 1],
    ]);
    expect(epochOrder(5, 3, 2, 'file')).toEqual(Uint32Array.from([0, 1, 2, 3, 4]));
  });
});
