// `splade-lab k-demo [--k 1,4,16] [--steps 60] [--json]`: the paper's first finding on synthetic data, offline:
// a large-norm head starts training from a huge loss and dense vectors; dividing it by k tames both.
import { nodeGpuContext } from '../gpu/node-gpu.ts';
import { K_DEMO_SHAPE, runSyntheticKDemo } from '../train/synthetic-k-demo.ts';
import { numberOption, parseArgs, stringOption, type Command } from './command.ts';

export const kDemoCommand: Command = {
  summary: 'head-only SPLADE training on a synthetic large-norm head for several k (offline teaching demo)',
  usage:
    'usage: splade-lab k-demo [--k 1,4,16] [--steps 60] [--seed 42] [--json]\n' +
    'Trains only the head, on seeded random hidden states, once per k, and prints the loss parts every 10 steps.',
  async run(argv) {
    const args = parseArgs(argv, ['k', 'steps', 'seed'], ['json']);
    const ks = (stringOption(args, 'k') ?? '1,4,16').split(',').map(Number);
    if (ks.some((k) => !(k > 0))) throw new Error(`--k takes positive numbers separated by commas, got "${stringOption(args, 'k')}"`);
    const steps = numberOption(args, 'steps', 60);
    const ctx = await nodeGpuContext('k-demo');
    try {
      const runs = await runSyntheticKDemo(ctx, { ks, steps, seed: numberOption(args, 'seed', 42) });
      if (args.options.has('json')) {
        process.stdout.write(JSON.stringify({ shape: K_DEMO_SHAPE, runs }) + '\n');
        return 0;
      }
      const { B, d, V } = K_DEMO_SHAPE;
      process.stdout.write(
        `Synthetic data (random hidden states, ${B} triplets, d ${d}, V ${V}; head rows of mean norm 2.5 divided by k), ` +
          `head-only AdamW, the paper's loss (tau 1, lambda_q 5e-2, lambda_d 3e-3 ramped):\n`,
      );
      for (const run of runs) {
        process.stdout.write(`k = ${run.k}\n`);
        for (const l of run.losses) {
          process.stdout.write(
            `  step ${String(l.step).padStart(4)}  ranking loss ${l.rank.toFixed(3).padStart(9)}  ` +
              `FLOPS(queries) ${l.flopsQueries.toFixed(1).padStart(8)}  total ${l.total.toFixed(3).padStart(9)}\n`,
          );
        }
      }
      return 0;
    } finally {
      ctx.destroy();
    }
  },
};
