// Prints one benchmark section's rows as an aligned table (name, time, GFLOP/s, bytes, then every extra figure).
import type { BenchRow } from './types.ts';

export function printTable(section: string, rows: BenchRow[]): void {
  const extraKeys = [...new Set(rows.flatMap((r) => Object.keys(r.extra ?? {})))];
  const header = ['name', 'ms', 'GFLOP/s', 'peak bytes', ...extraKeys];
  const body = rows.map((r) => [
    r.name,
    r.ms.toFixed(3),
    r.gflops === undefined ? '' : r.gflops.toFixed(2),
    r.peakBytes === undefined ? '' : String(r.peakBytes),
    ...extraKeys.map((k) => {
      const v = r.extra?.[k];
      return typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(3)) : (v ?? '');
    }),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(`## ${section}`);
  console.log(line(header));
  for (const row of body) console.log(line(row));
}
