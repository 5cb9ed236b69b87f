// A report's table printed as aligned text for a terminal (numbers formatted per column); the table itself and its TSV
// form are in contract/report-table.ts, which the page shares.
import { printable } from '../util/printable.ts';
import type { ReportTable } from '../contract/report-table.ts';

export { fixed, percent, tableTsv, tablesTsv, type ReportColumn, type ReportTable } from '../contract/report-table.ts';

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
