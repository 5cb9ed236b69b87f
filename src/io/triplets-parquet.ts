// Training rows from Parquet (sentence-transformers' layout: query or anchor, positive, negative or negative_1, ...,
// and a numeric label for distillation):
// footer, chunks and page headers are checked against the file (parquet-schema, -chunks, -pages) before hyparquet's
// readColumn decodes a chunk; every problem is a ParquetFormatError naming the file, the column and what to do.
// readParquetRows gives any table's named columns with the same checks (NanoBEIR's corpus, queries and qrels).
import { parquetMetadataAsync, parquetSchema, type AsyncBuffer, type FileMetaData, type SchemaTree } from 'hyparquet';
import { readColumn } from 'hyparquet/src/column.js';
import { DEFAULT_PARSERS } from 'hyparquet/src/convert.js';
import { clip } from './format-error.ts';
import { checkedChunk, checkedRows, type CheckedChunk, type ChunkPlace } from './parquet-chunks.ts';
import { ParquetFormatError, TRUNCATED, WRITE_AGAIN } from './parquet-error.ts';
import { checkPages } from './parquet-pages.ts';
import { textColumnProblem, topLevelColumns, type TopColumn } from './parquet-schema.ts';
import type { RandomAccessFile } from './random-access.ts';
import { preview, tripletOf, type Triplet } from './triplets.ts';

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

const message = (error: unknown) => clip(String((error as Error)?.message ?? error), 120);

async function footer(file: RandomAccessFile): Promise<FileMetaData> {
  try {
    return await parquetMetadataAsync(asyncBuffer(file));
  } catch (error) {
    throw new ParquetFormatError(file.name, `not a readable Parquet file (${message(error)}); ${WRITE_AGAIN}`);
  }
}

/** The columns a triplet table uses: the query column, the positive, and the negatives in order. */
function tripletColumns(columns: readonly TopColumn[], file: string): TopColumn[] {
  const named = (name: string) => columns.filter((c) => c.name === name);
  const has = (name: string) => named(name).length > 0;
  if (has('query') && has('anchor')) throw new ParquetFormatError(file, 'has both "query" and "anchor" columns; keep one');
  const query = has('anchor') ? 'anchor' : 'query';
  const numbered = columns
    .map((c) => c.name)
    .filter((n) => /^negative_\d+$/.test(n))
    .sort((a, b) => Number(a.slice(9)) - Number(b.slice(9)));
  const negatives = has('negative') ? ['negative', ...numbered] : numbered;
  const missing = [
    has(query) ? '' : 'query (or anchor)',
    has('positive') ? '' : 'positive',
    negatives.length ? '' : 'negative',
  ].filter(Boolean);
  if (missing.length)
    throw new ParquetFormatError(
      file,
      `no ${missing.join(', ')} column; a triplet table has query (or anchor), positive and negative columns (it has: ${clip(columns.map((c) => c.name).join(', '), 200)})`,
    );
  return [query, 'positive', ...negatives].map((name) => {
    const [column, ...more] = named(name);
    if (more.length)
      throw new ParquetFormatError(file, `the table has ${more.length + 1} columns with this name; keep one`, name);
    const problem = textColumnProblem(column);
    if (problem) throw new ParquetFormatError(file, problem, name);
    return column;
  });
}

/** One checked column chunk of a top-level column, decoded: its values, as many as the row group's rows. */
async function chunkValues(
  file: RandomAccessFile,
  chunk: CheckedChunk,
  leaf: SchemaTree,
  root: SchemaTree,
  rows: number,
  place: ChunkPlace,
): Promise<unknown[]> {
  const fail = (problem: string): never => {
    throw new ParquetFormatError(file.name, `row group ${place.group}: ${problem}`, chunk.column);
  };
  const decoder = {
    pathInSchema: [chunk.column],
    type: chunk.meta.type,
    element: leaf.element,
    schemaPath: [root, leaf],
    codec: chunk.codec,
    parsers: DEFAULT_PARSERS,
  };
  const bytes = await file.read(chunk.start, chunk.end);
  if (bytes.length !== chunk.end - chunk.start) fail(`the file ends inside its data; ${TRUNCATED}`);
  checkPages(bytes, rows, chunk.codec, fail);
  const values: unknown[] = [];
  try {
    const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
    const select = { groupStart: 0, selectStart: 0, selectEnd: rows, groupRows: rows };
    for (const part of readColumn(reader, select, decoder).data) for (const value of part) values.push(value);
  } catch (error) {
    fail(`its data cannot be decoded (${message(error)}); ${WRITE_AGAIN}`);
  }
  if (values.length !== rows) fail(`its pages decode to ${values.length} values for ${rows} rows; ${WRITE_AGAIN}`);
  return values;
}

/** A value of a triplet column: a non-empty string, or an error naming the row and column. */
function text(value: unknown, file: string, column: string, row: number): string {
  if (typeof value === 'string' && value.trim() !== '') return value;
  const got =
    typeof value === 'string'
      ? `an empty text ${preview(value)}`
      : value === null || value === undefined
        ? 'no value (null)'
        : `a ${typeof value}`;
  throw new ParquetFormatError(
    file,
    `row ${row} (counting from 0) has ${got}; every row needs a query, a positive and its negatives`,
    column,
  );
}

/**
 * The values of `columns` (top-level columns of the file's footer), row group by row group, every chunk and page
 * checked against the file before it is decoded: one array per column, as many values as the table has rows.
 */
async function checkedColumnValues(
  file: RandomAccessFile,
  metadata: FileMetaData,
  columns: readonly TopColumn[],
  integers = false,
  numbers: ReadonlySet<string> = new Set(),
): Promise<unknown[][]> {
  const tree = parquetSchema(metadata); // safe once topLevelColumns has checked the schema's shape and depth
  const leaves = columns.map((c) => tree.children.find((child) => child.element === c.element) as SchemaTree);
  const dataEnd = file.size - 8 - metadata.metadata_length;
  const values: unknown[][] = columns.map(() => []);
  const groups = Array.isArray(metadata.row_groups) ? metadata.row_groups : [];
  for (let group = 0; group < groups.length; group++) {
    const place = { file: file.name, group, dataEnd };
    const chunks = columns.map((c) => checkedChunk(groups[group], c.name, place, integers, numbers.has(c.name)));
    const rows = checkedRows(groups[group], chunks, place);
    for (const [i, chunk] of chunks.entries()) values[i].push(...(await chunkValues(file, chunk, leaves[i], tree, rows, place)));
  }
  return values;
}

/**
 * Reads the named columns of any Parquet table (a NanoBEIR corpus, queries or qrels) with the checks of the triplet
 * reader, text or whole numbers (ids); `optional` columns are read when present. One object per row, keyed by name.
 */
export async function readParquetRows(
  file: RandomAccessFile,
  required: readonly string[],
  optional: readonly string[] = [],
): Promise<Record<string, unknown>[]> {
  const metadata = await footer(file);
  const present = topLevelColumns(metadata.schema, file.name);
  const missing = required.filter((name) => !present.some((c) => c.name === name));
  if (missing.length)
    throw new ParquetFormatError(
      file.name,
      `missing column(s) ${missing.join(', ')} (has ${clip(present.map((c) => c.name).join(', '), 200)})`,
    );
  const columns = [...required, ...optional].flatMap((name) => present.filter((c) => c.name === name).slice(0, 1));
  const values = await checkedColumnValues(file, metadata, columns, true);
  const rows = values[0]?.length ?? 0;
  return Array.from({ length: rows }, (_, r) => Object.fromEntries(columns.map((c, i) => [c.name, values[i][r]])));
}

/**
 * The table's `label` column (teacher scores for distillation), when it has one: one number per row (a margin with one
 * negative). A list per row is refused with what to do (JSON Lines reads lists).
 */
function labelColumn(columns: readonly TopColumn[], file: string): TopColumn | null {
  const label = columns.find((c) => c.name === 'label');
  if (!label) return null;
  if (label.group || label.element.repetition_type === 'REPEATED')
    throw new ParquetFormatError(
      file,
      'holds a list per row; splade-lab reads a Parquet label of one number per row (a margin, with one negative): write lists of teacher scores as JSON Lines ("label": [...])',
      'label',
    );
  return label;
}

/** A value of the label column: a finite number, or an error naming the row. */
function labelValue(value: unknown, file: string, row: number): number {
  const number = typeof value === 'bigint' ? Number(value) : value;
  if (typeof number === 'number' && Number.isFinite(number)) return number;
  throw new ParquetFormatError(file, `row ${row} (counting from 0) has ${String(value)}, not a finite teacher score`, 'label');
}

/** Reads every row of a Parquet triplet table, row group by row group (rows are held in memory). */
export async function readParquetTriplets(file: RandomAccessFile): Promise<Triplet[]> {
  const metadata = await footer(file);
  const top = topLevelColumns(metadata.schema, file.name);
  const columns = tripletColumns(top, file.name);
  const label = labelColumn(top, file.name);
  const read = label ? [...columns, label] : columns;
  const values = await checkedColumnValues(file, metadata, read, false, new Set(label ? ['label'] : []));
  const labels = label ? values.pop()! : null;
  const triplets: Triplet[] = [];
  for (let r = 0; r < (values[0]?.length ?? 0); r++) {
    const [query, positive, ...negatives] = values.map((column, i) => text(column[r], file.name, columns[i].name, r));
    const triplet = tripletOf(query, positive, negatives);
    if (labels) triplet.label = [labelValue(labels[r], file.name, r)];
    triplets.push(triplet);
  }
  if (triplets.length === 0) throw new ParquetFormatError(file.name, 'no rows; a triplet table needs at least one');
  return triplets;
}
