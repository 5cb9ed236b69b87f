// Mined rows as a Parquet table that `splade-lab train` reads (triplets-parquet.ts): the JSONL output's columns, one
// STRING column each (query, positive, then negative or negative_1..n), written with hyparquet-writer.
import { parquetWriteBuffer, type ColumnSource } from 'hyparquet-writer';
import type { MinedRow, OutputFormat } from '../../contract/training/mined-rows.ts';
import type { MinedTexts } from './mined-rows-text.ts';

/**
 * Why a Parquet file cannot hold `format`, or null: train's Parquet reader takes a negative per column, so a
 * labeled-list row (its negatives a list) would be refused there while its JSONL is read, and a labeled pair holds one
 * passage, no training row for train in any file.
 */
export function parquetFormatProblem(format: OutputFormat): string | null {
  if (format === 'labeled-list')
    return "a labeled-list row holds its negatives as a list, and train's Parquet reader takes one negative per column";
  if (format === 'labeled-pair')
    return "a labeled pair holds one passage, not the query, positive and negative columns train's Parquet reader takes";
  return null;
}

/** The column names of `format`'s rows: query, positive, then negative (triplet) or negative_1..n (n-tuple). */
function columnNames(format: OutputFormat, numNegatives: number): string[] {
  const negatives = format === 'triplet' ? ['negative'] : Array.from({ length: numNegatives }, (_, i) => `negative_${i + 1}`);
  return ['query', 'positive', ...negatives];
}

/** The Parquet file's bytes: one row per mined row, every column a required STRING (SNAPPY pages, hyparquet's default). */
export function minedRowsParquet(
  rows: readonly MinedRow[],
  format: OutputFormat,
  texts: MinedTexts,
  numNegatives: number,
): Uint8Array {
  const problem = parquetFormatProblem(format);
  if (problem) throw new Error(`--output_format ${format} cannot be written as Parquet: ${problem}`);
  const names = columnNames(format, numNegatives);
  const columns: string[][] = names.map(() => []);
  for (const row of rows) {
    if (row.kind !== 'tuple' || row.negatives.length !== names.length - 2)
      throw new Error(`a ${format} row needs ${names.length - 2} negatives (a mined row of another shape reached the writer)`);
    const cells = [texts.queries[row.query], texts.documents[row.positive], ...row.negatives.map((d) => texts.documents[d])];
    cells.forEach((cell, i) => columns[i].push(cell));
  }
  const columnData: ColumnSource[] = names.map((name, i) => ({ name, data: columns[i], type: 'STRING', nullable: false }));
  return new Uint8Array(parquetWriteBuffer({ columnData }));
}
