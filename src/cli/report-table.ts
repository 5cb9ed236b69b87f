// A titled table of a report, printed two ways: aligned text for a terminal (numbers formatted per column) and TSV
// for a file (a header row, then raw numbers to 6 significant digits). Every string cell is printed escaped.
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

/** The text form: the title, the header, then rows; the first column left-aligned, the others right-aligned. */
export function tableText(table: ReportTable): string {
  const cells = table.rows.map((row) =>
    row.map((value, i) => {
      const { format = String, maxWidth = Infinity } = table.columns[i];
      if (typeof value === 'number') return format(value);
      const text = printable(value);
      return text.length > maxWidth ? text.slice(0, maxWidth - 1) + '…' : text;
    }),
  );
  const header = table.columns.map((c) => c.name);
  const widths = header.map((name, i) => Math.max(name.length, ...cells.map((row) => row[i].length)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  return [table.title, line(header), ...cells.map(line)].join('\n');
}

/** The TSV form: one header row of column names, then one row per table row. */
export function tableTsv(table: ReportTable): string {
  const cell = (value: string | number) => (typeof value === 'number' ? String(Number(value.toPrecision(6))) : printable(value));
  return [table.columns.map((c) => c.name), ...table.rows.map((row) => row.map(cell))].map((row) => row.join('\t')).join('\n');
}

/** Tables as one TSV file: blocks separated by one empty line, each its own header row then its rows. */
export function tablesTsv(tables: readonly ReportTable[]): string {
  return tables.map(tableTsv).join('\n\n') + '\n';
}
