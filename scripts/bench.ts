// `npm run bench -- [--out file.json] [--only matmul,splade-head,training,bert-base-step,host-recording,batch-cache]`: kernel benchmark table, printed and saved as JSON.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { GpuContext } from '../src/gpu/context.ts';
import { nodeGpuContext } from '../src/gpu/webgpu-node.ts';
import { benchBatchCache } from './bench/batch-cache.ts';
import { benchMatmul } from './bench/matmul.ts';
import { benchSpladeHead } from './bench/splade-head.ts';
import { benchTraining } from './bench/training.ts';
import { benchHostRecording } from './bench/host-recording.ts';
import { printTable } from './bench/print-table.ts';
import type { BenchRow } from './bench/types.ts';

const SECTIONS: Record<string, (ctx: GpuContext) => Promise<BenchRow[]>> = {
  matmul: (ctx) => benchMatmul(ctx),
  'splade-head': (ctx) => benchSpladeHead(ctx),
  training: (ctx) => benchTraining(ctx),
  // BERT-base's layout (its tensors, hence its dispatches) with a batch small enough for a CPU adapter
  'bert-base-step': (ctx) =>
    benchTraining(ctx, { B: 1, Tq: 8, Td: 8, hidden: 768, layers: 12, heads: 12, intermediate: 3072, vocab: 30522 }, 1),
  'host-recording': (ctx) => benchHostRecording(ctx),
  'batch-cache': benchBatchCache,
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { out: { type: 'string' }, only: { type: 'string' } },
    strict: true,
  });
  const only = values.only?.split(',') ?? Object.keys(SECTIONS);
  for (const name of only)
    if (!SECTIONS[name]) throw new Error(`unknown section "${name}" (${Object.keys(SECTIONS).join(', ')})`);
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

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
