// The page headers of one column chunk, checked before hyparquet decodes a page: every page lies inside the chunk,
// declares no more decompressed bytes than its codec can produce and no more values than the row group has rows (a
// list column's values are its elements: no more than MAX_ROWS_PER_BYTE a byte of the chunk).
import type { PageHeader } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { clip } from '../format-error.ts';
import { TRUNCATED, WRITE_AGAIN, countProblem } from './parquet-error.ts';
import { MAX_ROWS_PER_BYTE, type CheckedChunk } from './parquet-chunks.ts';

/** Snappy turns 3 bytes into at most 64 (a copy element), so no page grows more than this when decompressed. */
const SNAPPY_MAX_EXPANSION = 32;

/** The most bytes `size` compressed bytes can decompress to. */
function maxDecompressed(codec: CheckedChunk['codec'], size: number): number {
  return codec === 'SNAPPY' ? SNAPPY_MAX_EXPANSION * size + 64 : size;
}

/**
 * Walks the chunk's pages as hyparquet will (until `rows` values or the end of the bytes; a `repeated` column's, not
 * flat: a list per row, to the end) and refuses the first header that lies; `fail` adds the file, row group and column
 * to the problem.
 */
export function checkPages(
  bytes: Uint8Array,
  rows: number,
  codec: CheckedChunk['codec'],
  fail: (problem: string) => never,
  repeated = false,
): void {
  const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
  const mostValues = repeated ? MAX_ROWS_PER_BYTE * bytes.length : rows; // values: a flat column's are its rows
  let values = 0;
  let pageRows = 0; // rows of a repeated column's DATA_PAGE_V2 pages
  while ((repeated || values < rows) && reader.offset < bytes.length - 1) {
    const at = reader.offset;
    let header: PageHeader;
    try {
      header = parquetHeader(reader);
    } catch (error) {
      return fail(
        `the page header at byte ${at} of its data cannot be read (${clip(String((error as Error).message), 80)}); ${WRITE_AGAIN}`,
      );
    }
    const page = `the page at byte ${at} of its data`;
    const count = (value: unknown, what: string, most: number): number => {
      const problem = countProblem(value, what, most);
      return problem ? fail(`${page} ${problem}; ${WRITE_AGAIN}`) : Number(value);
    };
    const size = count(header.compressed_page_size, 'bytes', bytes.length - reader.offset);
    const compressed = header.type !== 'DATA_PAGE_V2' || header.data_page_header_v2?.is_compressed !== false;
    const levels =
      header.type === 'DATA_PAGE_V2'
        ? count(header.data_page_header_v2?.definition_levels_byte_length, 'bytes of definition levels', size) +
          count(header.data_page_header_v2?.repetition_levels_byte_length, 'bytes of repetition levels', size)
        : 0;
    if (levels > size) fail(`${page} declares ${levels} bytes of levels in a page of ${size} bytes; ${WRITE_AGAIN}`);
    const most = compressed ? levels + maxDecompressed(codec, size - levels) : Number.MAX_SAFE_INTEGER;
    const full = count(header.uncompressed_page_size, 'decompressed bytes', most);
    if (compressed && codec === 'UNCOMPRESSED' && full !== size)
      fail(`${page} is uncompressed but declares ${full} bytes in ${size}; ${WRITE_AGAIN}`);
    if (header.type === 'DICTIONARY_PAGE') {
      count(header.dictionary_page_header?.num_values, 'dictionary entries', Math.floor(full / 4)); // 4 length bytes each
    } else if (header.type === 'DATA_PAGE') {
      values += count(header.data_page_header?.num_values, 'values', mostValues - values);
    } else if (header.type === 'DATA_PAGE_V2') {
      const v2 = header.data_page_header_v2;
      const n = count(v2?.num_values, 'values', mostValues - values);
      pageRows += count(v2?.num_rows, 'rows', rows - (repeated ? pageRows : values));
      count(v2?.num_nulls, 'nulls', n);
      values += n;
    } else {
      fail(
        `${page} is of type ${typeof header.type === 'string' ? header.type : 'unknown'}, which splade-lab does not read; ${WRITE_AGAIN}`,
      );
    }
    reader.offset += size;
  }
  if (values < rows) fail(`its pages hold ${values} values, but the row group declares ${rows} rows; ${TRUNCATED}`);
}
