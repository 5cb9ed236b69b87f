// Where a row group's column chunks lie, checked against the file before a byte of them is read: inside the data part
// of the file, in a codec hyparquet reads, of text, and with no more rows declared than the bytes could hold.
import type { ColumnMetaData, RowGroup } from 'hyparquet';
import { ParquetFormatError, TRUNCATED, WRITE_AGAIN, countProblem, declaredCount, shown } from './parquet-error.ts';
import { textColumnProblem } from './parquet-schema.ts';

/**
 * The most rows a row group may declare per byte of the chunks read: dictionary and run-length encoding let a real
 * column of repeated values take a bit per row or less, but a triplet table's query and positive columns vary.
 */
export const MAX_ROWS_PER_BYTE = 256;

export interface CheckedChunk {
  column: string;
  meta: ColumnMetaData;
  /** The codecs hyparquet decompresses without a plug-in. */
  codec: 'UNCOMPRESSED' | 'SNAPPY';
  /** Byte range [start, end) of the chunk's pages in the file. */
  start: number;
  end: number;
}

export interface ChunkPlace {
  file: string;
  /** The row group's index. */
  group: number;
  /** Where the footer starts: every chunk lies in [4, dataEnd). */
  dataEnd: number;
}

/**
 * The chunk of `column` in a row group, checked (codec, type, byte range); hostile footers hold anything. A text
 * column must hold text; with `integers`, whole numbers too (ids stored as INT32 or INT64); a `numbers` column holds
 * numbers only (INT32, INT64, FLOAT or DOUBLE: teacher scores). `path` is the leaf's path in the schema (a list
 * column's: label, list, element).
 */
export function checkedChunk(
  rowGroup: RowGroup,
  column: string,
  place: ChunkPlace,
  integers = false,
  numbers = false,
  path: readonly string[] = [column],
): CheckedChunk {
  function fail(problem: string): never {
    throw new ParquetFormatError(place.file, `row group ${place.group}: ${problem}`, column);
  }
  const chunks = Array.isArray(rowGroup.columns) ? rowGroup.columns : [];
  const samePath = (names: unknown) =>
    Array.isArray(names) && names.length === path.length && path.every((name, i) => names[i] === name);
  const chunk = chunks.find((c) => samePath(c.meta_data?.path_in_schema));
  const meta = chunk?.meta_data ?? fail(`the footer has no data for this column; ${WRITE_AGAIN}`);
  if (chunk?.file_path !== undefined)
    fail('its data are in another file (the footer names a file path); splade-lab reads one-file Parquet tables');
  const codec = meta.codec;
  if (codec !== 'SNAPPY' && codec !== 'UNCOMPRESSED')
    fail(
      `it is compressed with ${typeof codec === 'string' ? codec : 'an unknown codec'}, which splade-lab cannot read (it reads SNAPPY and uncompressed Parquet): write the file again with compression="snappy" (pandas: df.to_parquet(path, compression="snappy"))`,
    );
  const integer = (integers || numbers) && (meta.type === 'INT32' || meta.type === 'INT64');
  const float = numbers && (meta.type === 'FLOAT' || meta.type === 'DOUBLE');
  const typeProblem =
    integer || float
      ? null
      : numbers
        ? `is ${String(meta.type)}, not numbers (teacher scores are FLOAT, DOUBLE or integers)`
        : textColumnProblem({ name: column, element: { name: column, type: meta.type }, group: false });
  if (typeProblem) fail(`its data ${typeProblem}`);
  const offset = meta.dictionary_page_offset || meta.data_page_offset; // where hyparquet starts reading
  const start = declaredCount(offset);
  const size = declaredCount(meta.total_compressed_size);
  if (start === null || size === null)
    fail(
      `the footer gives no valid place for its data (offset ${shown(offset)}, size ${shown(meta.total_compressed_size)}); ${WRITE_AGAIN}`,
    );
  const end = start + size;
  if (start < 4 || end > place.dataEnd)
    fail(`the footer puts its data at bytes ${start} to ${end}, outside the file's ${place.dataEnd} bytes of data; ${TRUNCATED}`);
  return { column, meta, codec, start, end };
}

/** A row group's declared rows, refused when not a count or more than its chunks' bytes could hold. */
export function checkedRows(rowGroup: RowGroup, chunks: readonly CheckedChunk[], place: ChunkPlace): number {
  const bytes = chunks.reduce((sum, c) => sum + c.end - c.start, 0);
  const problem = countProblem(rowGroup.num_rows, 'rows', MAX_ROWS_PER_BYTE * bytes);
  if (problem)
    throw new ParquetFormatError(
      place.file,
      `row group ${place.group} ${problem} (${MAX_ROWS_PER_BYTE} rows a byte of the ${bytes} bytes of the ${chunks.length} columns read; no real table packs more); ${WRITE_AGAIN}`,
    );
  return Number(rowGroup.num_rows);
}
