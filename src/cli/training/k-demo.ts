// `splade-lab k-demo`: argument adapter over runKDemo, the paper's first finding on synthetic data, offline: a
// large-norm head starts training from a huge loss and dense vectors; dividing it by k tames both.
import { runKDemo } from '../../app/training/k-demo.ts';
import { nodePlatform } from '../../app/platform/platform-node.ts';
import { UsageError, type Command } from '../command.ts';
import { PAPER_LAMBDAS } from '../../contract/training/recipe.ts';

/** The paper's FLOPS weights as the command's texts write them. */
const PAPER_LAMBDAS_TEXT = `lambda_q ${PAPER_LAMBDAS.queries.toExponential()}, lambda_d ${PAPER_LAMBDAS.documents.toExponential()}`;

export const kDemoCommand: Command = {
  spec: {
    name: 'k-demo',
    summary: 'head-only SPLADE training on a synthetic large-norm head for several k (offline teaching demo)',
    options: {
      k: { value: 'K,K,...', help: 'the k values, comma-separated', default: '1,4,16' },
      steps: { value: 'N', help: 'steps per k', default: '60' },
      seed: { value: 'S', help: 'seed of the synthetic head and batch', default: '42' },
      every: { value: 'N', help: 'print the losses every N steps (and at the last)', default: '10' },
      json: { help: 'print one JSON object' },
    },
    notes: `Trains only the head, on seeded random hidden states, once per k, with the paper's loss (tau 1, ${PAPER_LAMBDAS_TEXT} ramped).`,
  },
  async run(args) {
    const raw = args.string('k')!;
    const ks = raw.split(',').map((part) => (part.trim() === '' ? NaN : Number(part)));
    if (ks.some((k) => Number.isNaN(k))) throw new UsageError(`--k takes numbers separated by commas, got "${raw}"`);
    const ctx = await nodePlatform.acquireGpu('k-demo');
    try {
      const result = await runKDemo(ctx, {
        ks,
        steps: args.numberOrDefault('steps'),
        seed: args.number('seed'),
        every: args.numberOrDefault('every'),
      });
      if (args.flag('json')) {
        process.stdout.write(JSON.stringify({ shape: result.shape, runs: result.runs, provenance: result.provenance }) + '\n');
        return 0;
      }
      const { B, d, V } = result.shape;
      process.stdout.write(
        `Synthetic data (random hidden states, ${B} triplets, d ${d}, V ${V}; head rows of mean norm 2.5 divided by k), ` +
          `head-only AdamW, the paper's loss (tau 1, ${PAPER_LAMBDAS_TEXT} ramped):\n`,
      );
      for (const run of result.runs) {
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
