// A titled table of a report (the CLI prints it as aligned text, the page draws it) and its TSV form for a file: a
// header row, then raw numbers to 6 significant digits. Every string cell is written escaped.
import { printable } from '../util/printable.ts';

export interface ReportColumn {
  name: string;
  /** How the text form writes a number of this column (the TSV form writes it raw). */
  format?: (value: number) => string;
  /** The text form cuts longer strings to this many characters, the last one "…" (the TSV form keeps them whole). */
  maxWidth?: number;
}

export interface ReportTable {
  /** A line above the text form (the TSV form leaves it out: its first column's name says which table it is). */
  title: string;
  columns: ReportColumn[];
  rows: (string | number)[][];
}

export const percent = (value: number) => `${(100 * value).toFixed(1)}%`;

export const fixed = (digits: number) => (value: number) => value.toFixed(digits);

/** The TSV form: one header row of column names, then one row per table row. */
export function tableTsv(table: ReportTable): string {
  const cell = (value: string | number) => (typeof value === 'number' ? String(Number(value.toPrecision(6))) : printable(value));
  return [table.columns.map((c) => c.name), ...table.rows.map((row) => row.map(cell))].map((row) => row.join('\t')).join('\n');
}

/** Tables as one TSV file: blocks separated by one empty line, each its own header row then its rows. */
export function tablesTsv(tables: readonly ReportTable[]): string {
  return tables.map(tableTsv).join('\n\n') + '\n';
}
