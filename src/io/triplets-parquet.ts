// Training rows from Parquet (sentence-transformers' dataset layout: query or anchor, positive, negative or
// negative_1, negative_2, ...), read with hyparquet through byte ranges; every problem names the file and the row.
import { parquetMetadataAsync, parquetReadObjects, type AsyncBuffer } from 'hyparquet';
import type { RandomAccessFile } from './random-access.ts';
import { tripletOf, type Triplet } from './triplets.ts';

/** A RandomAccessFile as hyparquet's AsyncBuffer. */
function asyncBuffer(file: RandomAccessFile): AsyncBuffer {
  return {
    byteLength: file.size,
    async slice(start, end) {
      const bytes = await file.read(start, end ?? file.size);
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    },
  };
}

/** The columns a triplet table uses: the query column, the positive, and the negatives in order. */
function tripletColumns(names: readonly string[], file: string): { query: string; negatives: string[] } {
  const has = (name: string) => names.includes(name);
  if (has('query') && has('anchor')) throw new Error(`${file}: has both "query" and "anchor" columns; give one`);
  const query = has('anchor') ? 'anchor' : 'query';
  const numbered = names.filter((n) => /^negative_\d+$/.test(n)).sort((a, b) => Number(a.slice(9)) - Number(b.slice(9)));
  const negatives = has('negative') ? ['negative', ...numbered] : numbered;
  const missing = [
    has(query) ? '' : 'query (or anchor)',
    has('positive') ? '' : 'positive',
    negatives.length ? '' : 'negative',
  ].filter(Boolean);
  if (missing.length)
    throw new Error(
      `${file}: no ${missing.join(', ')} column; a triplet table has query (or anchor), positive and negative (columns: ${names.join(', ')})`,
    );
  return { query, negatives };
}

/** Reads every row of a Parquet triplet table, row group by row group (rows are held in memory). */
export async function readParquetTriplets(file: RandomAccessFile): Promise<Triplet[]> {
  const buffer = asyncBuffer(file);
  let metadata;
  try {
    metadata = await parquetMetadataAsync(buffer);
  } catch (error) {
    throw new Error(`${file.name}: not a readable Parquet file (${(error as Error).message})`, { cause: error });
  }
  const names = metadata.schema.slice(1).map((element) => element.name);
  const { query, negatives } = tripletColumns(names, file.name);
  const columns = [query, 'positive', ...negatives];
  const triplets: Triplet[] = [];
  let rowStart = 0;
  for (const group of metadata.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows);
    const rows = (await parquetReadObjects({ file: buffer, metadata, columns, rowStart, rowEnd })) as Record<string, unknown>[];
    rows.forEach((row, i) => {
      const text = (column: string) => {
        const value = row[column];
        if (typeof value !== 'string' || value.trim() === '') {
          throw new Error(
            `${file.name} row ${rowStart + i}: "${column}" must be a non-empty string, got ${JSON.stringify(value)?.slice(0, 40)}`,
          );
        }
        return value;
      };
      triplets.push(tripletOf(text(query), text('positive'), negatives.map(text)));
    });
    rowStart = rowEnd;
  }
  if (triplets.length === 0) throw new Error(`${file.name}: no rows`);
  return triplets;
}
