// Parquet files for the reader's tests: triplet tables written with hyparquet-writer, the same files with their footer
// or one page header rewritten to lie (sizes, row counts, codecs, types), and footers written by hand.
import { parquetMetadata, type FileMetaData, type PageHeader } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { ByteWriter, parquetWriteBuffer, type ColumnSource } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { serializeTCompactProtocol } from 'hyparquet-writer/src/thrift.js';

type Codec = NonNullable<ColumnSource['codec']>;

const MAGIC = new TextEncoder().encode('PAR1');

/** The text columns of a triplet table of `rows` rows: query, positive and `negatives` negative columns. */
export function tripletColumns(rows: number, negatives = 1): ColumnSource[] {
  const text = (what: string) => Array.from({ length: rows }, (_, i) => `${what} ${i} of the table`);
  const negativeNames = negatives === 1 ? ['negative'] : Array.from({ length: negatives }, (_, j) => `negative_${j + 1}`);
  return [
    { name: 'query', data: text('query'), type: 'STRING' },
    { name: 'positive', data: text('positive'), type: 'STRING' },
    ...negativeNames.map((name): ColumnSource => ({ name, data: text(name), type: 'STRING' })),
  ];
}

/** A Parquet file of these columns (no statistics, so that a footer can be rewritten without them). */
export function parquetBytes(columns: ColumnSource[], options: { codec?: Codec; rowGroupSize?: number } = {}): Uint8Array {
  return new Uint8Array(
    parquetWriteBuffer({
      columnData: columns,
      codec: options.codec ?? 'SNAPPY',
      statistics: false,
      rowGroupSize: options.rowGroupSize ?? 1000,
    }),
  );
}

/** A triplet table of `rows` rows (query, positive, negative). */
export function tripletTable(rows = 4, options: { codec?: Codec; rowGroupSize?: number } = {}): Uint8Array {
  return parquetBytes(tripletColumns(rows), options);
}

/** Where the footer's metadata starts. */
function metadataStart(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return bytes.length - 8 - view.getUint32(bytes.length - 8, true);
}

/** The file with its footer metadata changed by `mutate` (the data before the footer stays as it is). */
export function withFooter(bytes: Uint8Array, mutate: (metadata: FileMetaData) => void): Uint8Array {
  const metadata = parquetMetadata(bytes);
  mutate(metadata);
  const writer = new ByteWriter();
  writer.appendBytes(bytes.subarray(0, metadataStart(bytes)));
  writeMetadata(writer, metadata as Parameters<typeof writeMetadata>[1]); // the writer's own hyparquet is older
  writer.appendBytes(MAGIC);
  return writer.getBytes();
}

/** A file of "PAR1", `data`, and a footer serialized from a thrift object given field by field (field_1, ...). */
export function handWrittenFile(footer: Record<`field_${number}`, unknown>, data = new Uint8Array(0)): Uint8Array {
  const writer = new ByteWriter();
  writer.appendBytes(MAGIC);
  writer.appendBytes(data);
  const start = writer.offset;
  serializeTCompactProtocol(writer, footer);
  writer.appendUint32(writer.offset - start);
  writer.appendBytes(MAGIC);
  return writer.getBytes();
}

/** The column chunk of `column` in row group 0. */
function chunkOf(metadata: FileMetaData, column: string) {
  const chunk = metadata.row_groups[0].columns.find((c) => c.meta_data?.path_in_schema[0] === column)?.meta_data;
  if (!chunk) throw new Error(`no column ${column}`);
  return chunk;
}

/**
 * The file with the `page`-th page header of `column` (row group 0) changed by `mutate`; every offset after it in the
 * footer moves by the header's change of length, so only the header lies.
 */
export function withPageHeader(bytes: Uint8Array, column: string, mutate: (header: PageHeader) => void, page = 0): Uint8Array {
  const metadata = parquetMetadata(bytes);
  const chunk = chunkOf(metadata, column);
  const reader = {
    view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    offset: Number(chunk.dictionary_page_offset || chunk.data_page_offset),
  };
  for (let p = 0; p < page; p++) reader.offset += parquetHeader(reader).compressed_page_size;
  const headerStart = reader.offset;
  const header = parquetHeader(reader);
  const headerEnd = reader.offset;
  mutate(header);
  const rewritten = new ByteWriter();
  writePageHeader(rewritten, header as Parameters<typeof writePageHeader>[1]);
  const delta = rewritten.offset - (headerEnd - headerStart);
  const spliced = new Uint8Array(bytes.length + delta);
  spliced.set(bytes.subarray(0, headerStart));
  spliced.set(rewritten.getBytes(), headerStart);
  spliced.set(bytes.subarray(headerEnd), headerStart + rewritten.offset);
  const shift = (offset: bigint | undefined) =>
    offset !== undefined && offset >= BigInt(headerEnd) ? offset + BigInt(delta) : offset;
  return withFooter(spliced, (m) => {
    for (const group of m.row_groups) {
      for (const c of group.columns) {
        c.file_offset = shift(c.file_offset) as bigint;
        c.offset_index_offset = shift(c.offset_index_offset);
        c.column_index_offset = shift(c.column_index_offset);
        const meta = c.meta_data;
        if (!meta) continue;
        meta.data_page_offset = shift(meta.data_page_offset) as bigint;
        meta.dictionary_page_offset = shift(meta.dictionary_page_offset);
        if (group === m.row_groups[0] && meta.path_in_schema[0] === column) meta.total_compressed_size += BigInt(delta);
      }
    }
  });
}
