// The Parquet triplet reader on small generated files and on files whose footer or page headers lie (issue 33, items
// 15 and 9): each is refused before anything is allocated for it, with a ParquetFormatError naming the file, the
// column and what to do; valid tables (several row groups, codecs, nulls refused by row, label lists) still read.
import type { SchemaElement } from 'hyparquet';
import { parquetWriteBuffer, schemaFromColumnData } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { ParquetFormatError } from '../../../src/io/formats/parquet-error.ts';
import { memoryFile } from '../../../src/io/random-access.ts';
import { readParquetRows, readParquetTriplets } from '../../../src/io/triplets/triplets-parquet.ts';
import {
  handWrittenFile,
  parquetBytes,
  tripletColumns,
  tripletTable,
  withFooter,
  withPageHeader,
} from '../../helpers/parquet-fixtures.ts';

const FILE = 'hostile.parquet';

const read = (bytes: Uint8Array) => readParquetTriplets(memoryFile(bytes, FILE));

/** The reader's error for these bytes, checked to be a ParquetFormatError naming the file (and the column). */
async function refusal(bytes: Uint8Array, column?: string): Promise<string> {
  const error = await read(bytes).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ParquetFormatError);
  const message = (error as ParquetFormatError).message;
  expect(message.startsWith(`${FILE}: `)).toBe(true);
  if (column !== undefined) expect((error as ParquetFormatError).column).toBe(column);
  return message;
}

/** A footer (field by field, as thrift) with these schema elements and one empty row group. */
function schemaOnly(schema: Record<string, unknown>[]): Uint8Array {
  return handWrittenFile({ field_1: 1, field_2: schema, field_3: 0n, field_4: [{ field_1: [], field_2: 0n, field_3: 0n }] });
}

const textLeaf = (name: string) => ({ field_1: 6, field_3: 1, field_4: name, field_6: 0 });

describe('Parquet triplets that read', () => {
  it('reads several row groups of SNAPPY and uncompressed tables, negatives in number order', async () => {
    const columns = tripletColumns(7, 3).reverse();
    for (const codec of ['SNAPPY', 'UNCOMPRESSED'] as const) {
      const rows = await read(parquetBytes(columns, { codec, rowGroupSize: 3 }));
      expect(rows).toHaveLength(7);
      expect(rows[5]).toEqual({
        query: 'query 5 of the table',
        positive: 'positive 5 of the table',
        negative: 'negative_1 5 of the table',
        extraNegatives: ['negative_2 5 of the table', 'negative_3 5 of the table'],
      });
    }
  });

  it('reads dictionary-encoded columns of repeated text', async () => {
    const columns = tripletColumns(50);
    columns[0] = { ...columns[0], data: Array.from({ length: 50 }, (_, i) => `query ${i % 3}`) };
    const rows = await read(parquetBytes(columns));
    expect(rows.map((r) => r.query).slice(0, 4)).toEqual(['query 0', 'query 1', 'query 2', 'query 0']);
  });
});

/** A schema as hyparquet-writer types it (with its own, older hyparquet's types). */
type WriterSchema = NonNullable<Parameters<typeof parquetWriteBuffer>[0]['schema']>;

/**
 * A triplet table with a `label` column of Parquet's LIST of `element` values, as pyarrow writes it (three levels:
 * label, list, element); `label` and `element` REQUIRED or OPTIONAL (nullable).
 */
function listLabelTable(
  labels: unknown[],
  options: { element?: 'DOUBLE' | 'INT64' | 'BYTE_ARRAY'; nullable?: boolean; rowGroupSize?: number; name?: string } = {},
): Uint8Array {
  const texts = tripletColumns(labels.length);
  const repetition_type = options.nullable === false ? 'REQUIRED' : 'OPTIONAL';
  const type = options.element ?? 'DOUBLE';
  const name = options.name ?? 'label';
  const schema: WriterSchema = [
    ...schemaFromColumnData({ columnData: texts }),
    { name, repetition_type, num_children: 1, converted_type: 'LIST', logical_type: { type: 'LIST' } },
    { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
    { name: 'element', repetition_type, type, ...(type === 'BYTE_ARRAY' && { converted_type: 'UTF8' as const }) },
  ];
  schema[0].num_children = texts.length + 1;
  const columnData = [...texts.map((column) => ({ name: column.name, data: column.data })), { name, data: labels }];
  return new Uint8Array(
    parquetWriteBuffer({ columnData, schema, statistics: false, rowGroupSize: options.rowGroupSize ?? 1000 }),
  );
}

/** The same bytes with the label column's schema rewritten to `elements` (the same levels), its leaf at `path`. */
function withLabelSchema(bytes: Uint8Array, elements: SchemaElement[], path: string[]): Uint8Array {
  return withFooter(bytes, (m) => {
    const at = m.schema.findIndex((e) => e.name === 'label');
    m.schema = [...m.schema.slice(0, at), ...elements];
    for (const group of m.row_groups)
      for (const c of group.columns) if (c.meta_data?.path_in_schema[0] === 'label') c.meta_data.path_in_schema = path;
  });
}

describe('Parquet teacher labels (distillation)', () => {
  it('reads a numeric label column as one teacher margin per row; text or a null there is refused', async () => {
    const margins = [3.5, -1.25, 7, 0.5];
    const triplets = await read(parquetBytes([...tripletColumns(4), { name: 'label', data: margins, type: 'DOUBLE' }]));
    expect(triplets.map((t) => t.label)).toEqual(margins.map((m) => [m]));
    const ints = await read(parquetBytes([...tripletColumns(2), { name: 'label', data: [4, -2], type: 'INT32' }]));
    expect(ints.map((t) => t.label)).toEqual([[4], [-2]]);
    expect((await read(tripletTable(2)))[0].label).toBeUndefined();
    const text = await refusal(
      parquetBytes([...tripletColumns(2), { name: 'label', data: ['a', 'b'], type: 'STRING' }]),
      'label',
    );
    expect(text).toMatch(/not numbers \(teacher scores/);
    const missing = await refusal(
      parquetBytes([...tripletColumns(2), { name: 'label', data: [1, null], type: 'DOUBLE' }]),
      'label',
    );
    expect(missing).toMatch(/row 1 \(counting from 0\) has null, not a finite teacher score/);
  });

  it("reads sentence-transformers' other names of the label column (score, scores, labels); two of them are refused", async () => {
    const scores = await read(parquetBytes([...tripletColumns(2), { name: 'score', data: [2.5, -1], type: 'DOUBLE' }]));
    expect(scores.map((t) => t.label)).toEqual([[2.5], [-1]]);
    for (const name of ['scores', 'labels']) {
      const lists = await read(
        listLabelTable(
          [
            [9, 1.5],
            [4, -2],
          ],
          { name },
        ),
      );
      expect(
        lists.map((t) => t.label),
        name,
      ).toEqual([
        [9, 1.5],
        [4, -2],
      ]);
    }
    const bad = await refusal(listLabelTable([[1], [3, null]], { name: 'scores' }), 'scores');
    expect(bad).toContain(`${FILE}: column "scores": row 1 (counting from 0) has null at item 1 of its list`);
    const both = await refusal(
      parquetBytes([
        ...tripletColumns(2),
        { name: 'label', data: [1, 2], type: 'DOUBLE' },
        { name: 'score', data: [1, 2], type: 'DOUBLE' },
      ]),
    );
    expect(both).toContain('has "label" and "score" columns: each is the teacher labels; keep one');
  });

  it('reads a LIST<DOUBLE> label column as one list per row (3 labels each, over row groups)', async () => {
    const labels = Array.from({ length: 7 }, (_, r) => [r + 0.5, -r, 1e-3 * r]);
    for (const nullable of [true, false]) {
      const triplets = await read(listLabelTable(labels, { nullable, rowGroupSize: 3 }));
      expect(triplets.map((t) => t.label)).toEqual(labels);
      expect(triplets[6].query).toBe('query 6 of the table');
    }
    const ints = await read(listLabelTable([[4n, -2n, 0n]], { element: 'INT64' }));
    expect(ints[0].label).toEqual([4, -2, 0]);
  });

  it("reads the legacy two-level LIST and a plain repeated field as LIST's three levels", async () => {
    const labels = [[1.5, -2], [3], [0.25, 7, 8]];
    const required = listLabelTable(labels, { nullable: false }); // levels as a REQUIRED list of REQUIRED doubles
    const list = { name: 'label', repetition_type: 'REQUIRED', num_children: 1, converted_type: 'LIST' } as const;
    const twoLevel = withLabelSchema(
      required,
      [list, { name: 'array', repetition_type: 'REPEATED', type: 'DOUBLE' }],
      ['label', 'array'],
    );
    const repeated = withLabelSchema(required, [{ name: 'label', repetition_type: 'REPEATED', type: 'DOUBLE' }], ['label']);
    for (const bytes of [twoLevel, repeated]) expect((await read(bytes)).map((t) => t.label)).toEqual(labels);
  });

  it.each([
    { what: 'a null element', labels: [[1], [3, null]], problem: 'row 1 (counting from 0) has null at item 1 of its list' },
    { what: 'an empty list', labels: [[1, 2], [3], []], problem: 'row 2 (counting from 0) has an empty list; a label holds' },
    { what: 'a null list', labels: [null, [1, 2]], problem: 'row 0 (counting from 0) has no list (null)' },
    { what: 'NaN', labels: [[1, 2], [NaN]], problem: 'row 1 (counting from 0) has NaN at item 0 of its list' },
    { what: '-Infinity', labels: [[1, -Infinity]], problem: 'row 0 (counting from 0) has -Infinity at item 1 of its list' },
  ])('refuses a label list with $what, naming the file, the row and the column', async ({ labels, problem }) => {
    expect(await refusal(listLabelTable(labels), 'label')).toContain(`${FILE}: column "label": ${problem}`);
  });

  it('refuses a list of text, a struct label, and a label page declaring 2^31 - 1 values', async () => {
    const text = await refusal(listLabelTable([['a'], ['b']], { element: 'BYTE_ARRAY' }), 'label');
    expect(text).toContain('row group 0: its data is BYTE_ARRAY, not numbers');
    const notList = { name: 'label', repetition_type: 'OPTIONAL', num_children: 1 } as const;
    const struct = withLabelSchema(
      listLabelTable([[1], [2]]),
      [notList, { name: 'list', repetition_type: 'REPEATED', num_children: 1 }, { name: 'element', type: 'DOUBLE' }],
      ['label', 'list', 'element'],
    );
    expect(await refusal(struct, 'label')).toContain('is a group (a struct, a map or a list of lists)');
    const lying = withPageHeader(
      listLabelTable([[1, 2], [3]]),
      'label',
      (h) => (h.data_page_header_v2!.num_values = 2 ** 31 - 1),
    );
    expect(await refusal(lying, 'label')).toMatch(
      /row group 0: the page at byte 0 of its data declares 2147483647 values where at most \d+ are possible/,
    );
  });
});

describe('Parquet files that lie about sizes (item 15)', () => {
  it('a page declaring 10^9 decompressed bytes in a 500-byte file', async () => {
    const bytes = withPageHeader(tripletTable(), 'positive', (h) => (h.uncompressed_page_size = 1e9));
    expect(bytes.length).toBeLessThan(1024);
    expect(await refusal(bytes, 'positive')).toMatch(
      /row group 0: the page at byte 0 of its data declares 1000000000 decompressed bytes/,
    );
  });

  it('a page declaring 2^31 - 1 values', async () => {
    const bytes = withPageHeader(tripletTable(), 'query', (h) => {
      h.data_page_header_v2!.num_values = 2 ** 31 - 1;
      h.data_page_header_v2!.num_rows = 2 ** 31 - 1;
    });
    expect(await refusal(bytes, 'query')).toContain('declares 2147483647 values where at most 4 are possible');
  });

  it('a row group declaring 10^12 rows', async () => {
    const bytes = withFooter(tripletTable(), (m) => (m.row_groups[0].num_rows = 10n ** 12n));
    expect(await refusal(bytes)).toMatch(
      /row group 0 declares 1000000000000 rows where at most \d+ are possible \(256 rows a byte of the \d+ bytes of the 3 columns read/,
    );
  });

  it('a row group declaring more rows than its pages hold', async () => {
    const bytes = withFooter(tripletTable(), (m) => (m.row_groups[0].num_rows = 6n));
    expect(await refusal(bytes, 'query')).toContain(
      'its pages hold 4 values, but the row group declares 6 rows; the file is truncated',
    );
  });

  it('a column chunk of 10^9 bytes, or one starting past the end of the file', async () => {
    const long = withFooter(tripletTable(), (m) => (m.row_groups[0].columns[2].meta_data!.total_compressed_size = 10n ** 9n));
    expect(await refusal(long, 'negative')).toMatch(
      /the footer puts its data at bytes \d+ to 100000\d+, outside the file's \d+ bytes of data; the file is truncated/,
    );
    const past = withFooter(tripletTable(), (m) => (m.row_groups[0].columns[1].meta_data!.data_page_offset = 10n ** 9n));
    expect(await refusal(past, 'positive')).toMatch(/at bytes 1000000000 to \d+, outside/);
  });

  it('a file cut short', async () => {
    const bytes = tripletTable();
    expect(await refusal(bytes.subarray(0, bytes.length - 20))).toContain('not a readable Parquet file');
  });
});

describe('Parquet compression (item 15)', () => {
  it('ZSTD is refused naming the codec and how to write the file again', async () => {
    const bytes = withFooter(tripletTable(), (m) => (m.row_groups[0].columns[0].meta_data!.codec = 'ZSTD'));
    expect(await refusal(bytes, 'query')).toContain('it is compressed with ZSTD, which splade-lab cannot read');
    expect(await refusal(bytes)).toContain('compression="snappy"');
  });

  it('garbage where SNAPPY data should be', async () => {
    const bytes = tripletTable(40);
    for (let i = 30; i < 200; i++) bytes[i] = (i * 37) & 255;
    expect(await refusal(bytes, 'query')).toContain('row group 0: its data cannot be decoded');
  });
});

describe('Parquet schemas (item 15)', () => {
  it('a schema nested 100,000 deep', async () => {
    const chain = Array.from({ length: 100_000 }, (_, i) => ({ field_3: 1, field_4: `level${i}`, field_5: 1 }));
    const bytes = schemaOnly([
      { field_4: 'schema', field_5: 4 },
      textLeaf('query'),
      textLeaf('positive'),
      textLeaf('negative'),
      ...chain,
      textLeaf('x'),
    ]);
    expect(await refusal(bytes)).toContain('the schema nests groups more than 64 deep (at "level63")');
  });

  it('20,000 negative columns', async () => {
    const negatives = Array.from({ length: 20_000 }, (_, i) => textLeaf(`negative_${i + 1}`));
    const bytes = schemaOnly([{ field_4: 'schema', field_5: 20_002 }, textLeaf('query'), textLeaf('positive'), ...negatives]);
    expect(await refusal(bytes)).toContain('the schema has more than 1024 columns');
  });

  it('groups that declare more children than the schema holds, or fewer', async () => {
    const more = schemaOnly([{ field_4: 'schema', field_5: 5 }, textLeaf('query'), textLeaf('positive'), textLeaf('negative')]);
    expect(await refusal(more)).toContain("the schema ends before its groups' declared children");
    const fewer = schemaOnly([{ field_4: 'schema', field_5: 2 }, textLeaf('query'), textLeaf('positive'), textLeaf('negative')]);
    expect(await refusal(fewer)).toContain('schema element 3 belongs to no group');
  });

  it('a footer of thrift structs nested 100,000 deep', async () => {
    const deep = new Uint8Array(100_000).fill(0x1c); // field +1, type struct, again and again
    const bytes = new Uint8Array([...new TextEncoder().encode('PAR1'), ...deep, 0, 0, 0, 0, ...new TextEncoder().encode('PAR1')]);
    new DataView(bytes.buffer).setUint32(bytes.length - 8, deep.length, true);
    expect(await refusal(bytes)).toContain('not a readable Parquet file');
  });
});

describe('Parquet column types (items 9 and 15)', () => {
  const [query, positive, negative] = tripletColumns(3);
  it('an INT64 query column is refused naming the column and its type (never "serialize a BigInt")', async () => {
    const bytes = parquetBytes([{ name: 'query', data: [1n, 2n, 3n], type: 'INT64' }, positive, negative]);
    expect(await refusal(bytes, 'query')).toBe(
      `${FILE}: column "query": holds INT64 values, not text (a Parquet STRING): convert it to text before writing (pandas: df["query"] = df["query"].astype(str))`,
    );
  });

  it('DOUBLE, BOOLEAN, JSON and list columns are refused the same way', async () => {
    expect(
      await refusal(parquetBytes([query, { name: 'positive', data: [1.5, 2, 3], type: 'DOUBLE' }, negative]), 'positive'),
    ).toContain('holds DOUBLE values');
    expect(
      await refusal(
        parquetBytes([query, positive, { name: 'negative', data: [true, false, true], type: 'BOOLEAN' }]),
        'negative',
      ),
    ).toContain('holds BOOLEAN values');
    expect(
      await refusal(parquetBytes([query, positive, { name: 'negative', data: [{ a: 1 }, {}, []], type: 'JSON' }]), 'negative'),
    ).toContain('holds BYTE_ARRAY (JSON) values');
    const list = [
      { field_3: 1, field_4: 'negative', field_5: 1, field_6: 3 },
      { field_3: 2, field_4: 'list', field_5: 1 },
    ];
    const lists = schemaOnly([
      { field_4: 'schema', field_5: 3 },
      textLeaf('query'),
      textLeaf('positive'),
      ...list,
      textLeaf('element'),
    ]);
    expect(await refusal(lists, 'negative')).toContain('is a group (a struct, list or map)');
  });

  it('a footer whose chunk says INT64 for a STRING column', async () => {
    const bytes = withFooter(tripletTable(), (m) => (m.row_groups[0].columns[0].meta_data!.type = 'INT64'));
    expect(await refusal(bytes, 'query')).toContain('row group 0: its data holds INT64 values');
  });

  it('a null in a nullable column names the row and the column', async () => {
    const bytes = parquetBytes([query, { name: 'positive', data: ['p', null, 'p'], type: 'STRING', nullable: true }, negative]);
    expect(await refusal(bytes, 'positive')).toContain(
      'row 1 (counting from 0) has no value (null); every row needs a query, a positive and its negatives',
    );
  });
});

describe('any Parquet table read here (NanoBEIR corpus, queries and qrels): the same checks', () => {
  const corpus = (ids: unknown[], type: 'STRING' | 'INT64' = 'STRING') =>
    parquetBytes([
      { name: '_id', data: ids, type },
      { name: 'text', data: ids.map((_, i) => `document ${i}`), type: 'STRING' },
    ]);

  it('reads the named columns, an optional one when present, ids of INT64 as they are', async () => {
    const rows = await readParquetRows(memoryFile(corpus([11n, 12n], 'INT64'), 'corpus.parquet'), ['_id', 'text'], ['title']);
    expect(rows.map((r) => [String(r._id), r.text])).toEqual([
      ['11', 'document 0'],
      ['12', 'document 1'],
    ]);
  });

  it('refuses a page that declares 10^9 bytes, and a missing column, naming the file', async () => {
    const hostile = withPageHeader(corpus(['d1', 'd2']), 'text', (header) => (header.uncompressed_page_size = 1e9));
    await expect(readParquetRows(memoryFile(hostile, 'corpus.parquet'), ['_id', 'text'])).rejects.toThrow(
      /^corpus\.parquet: column "text": row group 0: the page at byte \d+ of its data declares 1000000000 decompressed bytes/,
    );
    await expect(readParquetRows(memoryFile(corpus(['d1']), 'qrels.parquet'), ['query-id', 'corpus-id'])).rejects.toThrow(
      ParquetFormatError,
    );
  });
});
