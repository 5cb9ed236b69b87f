// Training rows from Parquet (sentence-transformers' layout: query or anchor, positive, negative or negative_1, ...,
// and a label for distillation, named label, labels, score or scores: a number or a list of numbers per row):
// footer, chunks and page headers are checked against the file (parquet-schema, -chunks, -pages) before hyparquet's
// readColumn decodes a chunk; every problem is a ParquetFormatError naming the file, the column and what to do.
// readParquetRows gives any table's named columns with the same checks (NanoBEIR's corpus, queries and qrels).
import { parquetMetadataAsync, parquetSchema, type AsyncBuffer, type FileMetaData, type SchemaTree } from 'hyparquet';
import { readColumn } from 'hyparquet/src/column.js';
import { DEFAULT_PARSERS } from 'hyparquet/src/convert.js';
import { isFlatColumn } from 'hyparquet/src/schema.js';
import { clip } from '../format-error.ts';
import { checkedChunk, checkedRows, type CheckedChunk, type ChunkPlace } from '../formats/parquet-chunks.ts';
import { ParquetFormatError, TRUNCATED, WRITE_AGAIN } from '../formats/parquet-error.ts';
import { checkPages } from '../formats/parquet-pages.ts';
import { textColumnProblem, topLevelColumns, type TopColumn } from '../formats/parquet-schema.ts';
import type { RandomAccessFile } from '../random-access.ts';
import { preview, tripletOf, type Triplet } from './triplets.ts';
import { TEACHER_LABEL_COLUMNS } from '../../contract/training/teacher-labels.ts';

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

/** A column's schema nodes from the root to its leaf; a `list` column's (a label's) down its only children. */
function leafPath(tree: SchemaTree, column: TopColumn, list: boolean): SchemaTree[] {
  const path = [tree, tree.children.find((child) => child.element === column.element) as SchemaTree];
  while (list && path[path.length - 1].children.length === 1) path.push(path[path.length - 1].children[0]);
  return path;
}

/**
 * One checked column chunk of a top-level column (`path`: root to leaf), decoded: its values, as many as the row
 * group's rows (a list column's: one assembled list per row).
 */
async function chunkValues(
  file: RandomAccessFile,
  chunk: CheckedChunk,
  path: SchemaTree[],
  rows: number,
  place: ChunkPlace,
): Promise<unknown[]> {
  const fail = (problem: string): never => {
    throw new ParquetFormatError(file.name, `row group ${place.group}: ${problem}`, chunk.column);
  };
  const decoder = {
    pathInSchema: path.slice(1).map((node) => node.element.name),
    type: chunk.meta.type,
    element: path[path.length - 1].element,
    schemaPath: path,
    codec: chunk.codec,
    parsers: DEFAULT_PARSERS,
  };
  const bytes = await file.read(chunk.start, chunk.end);
  if (bytes.length !== chunk.end - chunk.start) fail(`the file ends inside its data; ${TRUNCATED}`);
  checkPages(bytes, rows, chunk.codec, fail, !isFlatColumn(path));
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
 * checked against the file before it is decoded: one array per column, as many values as the table has rows. A
 * `numbers` column holds numbers: one per row, or a list per row (a label whose shape labelColumn checked).
 */
async function checkedColumnValues(
  file: RandomAccessFile,
  metadata: FileMetaData,
  columns: readonly TopColumn[],
  integers = false,
  numbers: ReadonlySet<string> = new Set(),
): Promise<unknown[][]> {
  const tree = parquetSchema(metadata); // safe once topLevelColumns has checked the schema's shape and depth
  const paths = columns.map((c) => leafPath(tree, c, numbers.has(c.name)));
  const dataEnd = file.size - 8 - metadata.metadata_length;
  const values: unknown[][] = columns.map(() => []);
  const groups = Array.isArray(metadata.row_groups) ? metadata.row_groups : [];
  for (let group = 0; group < groups.length; group++) {
    const place = { file: file.name, group, dataEnd };
    const chunks = columns.map((c, i) => {
      const path = paths[i].slice(1).map((node) => node.element.name);
      return checkedChunk(groups[group], c.name, place, integers, numbers.has(c.name), path);
    });
    const rows = checkedRows(groups[group], chunks, place);
    for (const [i, chunk] of chunks.entries()) values[i].push(...(await chunkValues(file, chunk, paths[i], rows, place)));
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

/** The table's label column (teacher scores for distillation), when it has one, and how its rows hold them. */
interface LabelColumn {
  column: TopColumn;
  /** 'number': one per row; 'list': a list per row; 'nullable list': a list or null, one level deeper when read. */
  shape: 'number' | 'list' | 'nullable list';
}

const LIST_ADVICE =
  'a label holds one number per row (a margin, with one negative) or a list of numbers (pandas: a column of lists of floats)';

/**
 * The label column (`label`, `labels`, `score` or `scores`, sentence-transformers' names; one of them), when there
 * is one: a number per row, or a list of numbers per row: Parquet's LIST (three levels as pyarrow writes it, or the
 * legacy two) or a repeated field. Structs, maps and lists of lists are refused.
 */
function labelColumn(columns: readonly TopColumn[], tree: SchemaTree, file: string): LabelColumn | null {
  const named = columns.filter((c) => (TEACHER_LABEL_COLUMNS as readonly string[]).includes(c.name));
  if (named.length > 1)
    throw new ParquetFormatError(
      file,
      `has ${named.map((c) => `"${c.name}"`).join(' and ')} columns: each is the teacher labels; keep one`,
    );
  const [column] = named;
  if (!column) return null;
  const node = tree.children.find((child) => child.element === column.element) as SchemaTree;
  const repeated = (n: SchemaTree | undefined) => n?.element.repetition_type === 'REPEATED';
  if (!column.group) return { column, shape: repeated(node) ? 'list' : 'number' };
  const [inner, ...others] = node.children;
  const leaf = inner?.children.length === 1 ? inner.children[0] : inner; // three levels, or the legacy two
  const list =
    (node.element.converted_type === 'LIST' || node.element.logical_type?.type === 'LIST') &&
    !repeated(node) &&
    others.length === 0 &&
    repeated(inner) &&
    leaf.children.length === 0 &&
    (leaf === inner || !repeated(leaf));
  if (!list) throw new ParquetFormatError(file, `is a group (a struct, a map or a list of lists); ${LIST_ADVICE}`, column.name);
  return { column, shape: node.element.repetition_type === 'REQUIRED' ? 'list' : 'nullable list' };
}

/** A value of the label column: a finite number, or an error naming the row (and the place in its list). */
function labelValue(value: unknown, file: string, column: string, row: number, at = ''): number {
  const number = typeof value === 'bigint' ? Number(value) : value;
  if (typeof number === 'number' && Number.isFinite(number)) return number;
  throw new ParquetFormatError(
    file,
    `row ${row} (counting from 0) has ${String(value)}${at}, not a finite teacher score`,
    column,
  );
}

/** A row's teacher labels, as its shape holds them: a number, or a non-empty list of finite numbers. */
function rowLabels(value: unknown, label: LabelColumn, file: string, row: number): number[] {
  const { shape, column } = label;
  if (shape === 'number') return [labelValue(value, file, column.name, row)];
  const list = shape === 'list' ? value : Array.isArray(value) && value.length === 1 ? value[0] : null;
  const fail = (got: string): never => {
    throw new ParquetFormatError(file, `row ${row} (counting from 0) has ${got}; ${LIST_ADVICE}`, column.name);
  };
  if (!Array.isArray(list)) return fail('no list (null)');
  if (list.length === 0) return fail('an empty list');
  return list.map((x: unknown, i) => labelValue(x, file, column.name, row, ` at item ${i} of its list (counting from 0)`));
}

/** Reads every row of a Parquet triplet table, row group by row group (rows are held in memory). */
export async function readParquetTriplets(file: RandomAccessFile): Promise<Triplet[]> {
  const metadata = await footer(file);
  const top = topLevelColumns(metadata.schema, file.name);
  const columns = tripletColumns(top, file.name);
  const label = labelColumn(top, parquetSchema(metadata), file.name); // a schema topLevelColumns has checked
  const read = label ? [...columns, label.column] : columns;
  const values = await checkedColumnValues(file, metadata, read, false, new Set(label ? [label.column.name] : []));
  const labels = label ? values.pop()! : null;
  const triplets: Triplet[] = [];
  for (let r = 0; r < (values[0]?.length ?? 0); r++) {
    const [query, positive, ...negatives] = values.map((column, i) => text(column[r], file.name, columns[i].name, r));
    const triplet = tripletOf(query, positive, negatives);
    if (label && labels) triplet.label = rowLabels(labels[r], label, file.name, r);
    triplets.push(triplet);
  }
  if (triplets.length === 0) throw new ParquetFormatError(file.name, 'no rows; a triplet table needs at least one');
  return triplets;
}
