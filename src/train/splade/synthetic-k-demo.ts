// A self-contained teaching run: head-only SPLADE training on a seeded synthetic batch whose head has large row
// norms (mean 2.5, like ModernBERT's), once per k, to show how dividing the head by k changes the start of training.
import type { GpuContext } from '../../gpu/context.ts';
import { K_DEMO_SHAPE } from '../../contract/training/k-demo-results.ts';
import { HeadDivision } from '../../kernels/head-division.ts';
import { recordHeadDivision } from '../../model/rescale.ts';
import { Random } from '../../util/random.ts';
import { HeadOnlyTrainer } from './head-only-trainer.ts';
import { type StepLosses } from '../../contract/training/training-report.ts';
import { PAPER_ADAMW, PAPER_LAMBDAS } from '../../contract/training/recipe.ts';

export interface KDemoOptions {
  ks: number[];
  steps: number;
  /** Mean L2 norm of the synthetic head's rows before dividing by k. */
  headNorm?: number;
  seed?: number;
  /** Steps whose losses are read back (always includes the first and the last). */
  every?: number;
  /** Called after each read-back with the losses of the current k so far. */
  onLosses?: (k: number, losses: readonly StepLosses[]) => void;
  /** Checked between steps: aborts the run with the signal's reason. */
  signal?: AbortSignal;
}

export interface KDemoRun {
  k: number;
  losses: StepLosses[];
}

const DIMS = K_DEMO_SHAPE;

export async function runSyntheticKDemo(ctx: GpuContext, options: KDemoOptions): Promise<KDemoRun[]> {
  const { steps, headNorm = 2.5, seed = 42, every = 10 } = options;
  const { B, Tq, Td, d, V } = DIMS;
  const runs: KDemoRun[] = [];
  for (const k of options.ks) {
    const random = new Random(seed); // the same batch and head for every k
    const ones = (n: number) => new Uint32Array(n).fill(1);
    // Everything this k allocates (batch, head, trainer) is freed when its run ends.
    const { value: built, destroy } = ctx.owned(() => {
      const inputs = {
        hiddenQueries: ctx.tensor('demo hidden queries', [B, Tq, d], 'f32', random.normals(B * Tq * d)),
        maskQueries: ctx.tensor('demo mask queries', [B, Tq], 'u32', ones(B * Tq)),
        hiddenDocuments: ctx.tensor('demo hidden documents', [2 * B, Td, d], 'f32', random.normals(2 * B * Td * d)),
        maskDocuments: ctx.tensor('demo mask documents', [2 * B, Td], 'u32', ones(2 * B * Td)),
        weight: ctx.tensor('demo head', [V, d], 'f32', random.normals(V * d, headNorm / Math.sqrt(d))),
        bias: ctx.tensor('demo bias', [V], 'f32'),
      };
      const divider = new HeadDivision(ctx, V, d);
      const trainer = new HeadOnlyTrainer(ctx, DIMS, inputs, {
        optimizer: PAPER_ADAMW,
        schedule: { peakLr: 1e-2, totalSteps: steps, warmupRatio: 0.1 },
        lambdaQueries: PAPER_LAMBDAS.queries,
        lambdaDocuments: PAPER_LAMBDAS.documents,
        tau: 1,
      });
      return { trainer, divider, weight: inputs.weight };
    });
    const { trainer } = built;
    const losses: StepLosses[] = [];
    try {
      await ctx.run(`demo head / ${k}`, (encoder) => recordHeadDivision(encoder, built.divider, k, built.weight));
      for (let step = 0; step < steps; step++) {
        options.signal?.throwIfAborted();
        const l = await trainer.step(step % every === 0 || step === steps - 1);
        if (l) {
          losses.push(l);
          options.onLosses?.(k, losses);
        }
      }
    } finally {
      await ctx.sync().catch(() => undefined); // the last step's GPU work must finish before its buffers go
      destroy();
    }
    runs.push({ k, losses });
  }
  return runs;
}
