// `npm run bench -- [--out file.json] [--only matmul,splade-head,training,batch-cache]`: kernel benchmark table, printed and saved as JSON.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { nodeGpuContext } from '../src/gpu/node-gpu.ts';
import { benchBatchCache } from './bench/batch-cache.ts';
import { benchMatmul } from './bench/matmul.ts';
import { benchSpladeHead } from './bench/splade-head.ts';
import { benchTraining } from './bench/training.ts';
import type { BenchRow } from './bench/types.ts';

const SECTIONS: Record<string, typeof benchMatmul> = {
  matmul: benchMatmul,
  'splade-head': benchSpladeHead,
  training: benchTraining,
  'batch-cache': benchBatchCache,
};

async function main(): Promise<void> {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { out: { type: 'string' }, only: { type: 'string' } }, strict: true });
  const only = values.only?.split(',') ?? Object.keys(SECTIONS);
  for (const name of only) if (!SECTIONS[name]) throw new Error(`unknown section "${name}" (${Object.keys(SECTIONS).join(', ')})`);
  const ctx = await nodeGpuContext('bench');
  const { vendor, architecture, description, isFallbackAdapter } = ctx.adapter;
  console.log(`adapter: ${vendor} ${architecture} ${description}${isFallbackAdapter ? ' (fallback/CPU adapter)' : ''}`);
  const rows: BenchRow[] = [];
  for (const name of only) {
    const started = performance.now();
    const sectionRows = await SECTIONS[name](ctx);
    rows.push(...sectionRows);
    printTable(name, sectionRows);
    console.log(`(${name}: ${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
  }
  const out = values.out;
  if (out) {
    writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), adapter: ctx.adapter, rows }, null, 2) + '\n');
    console.log(`wrote ${out}`);
  }
  ctx.destroy();
}

function printTable(section: string, rows: BenchRow[]): void {
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

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
