// The composed SPLADE objective on the GPU equals its float64 twin; head-only training makes the loss fall.
import { describe, expect, it } from 'vitest';
import type { GpuContext } from '../../../src/gpu/context.ts';
import { HeadOnlyTrainer } from '../../../src/train/splade/head-only-trainer.ts';
import { PAPER_ADAMW } from '../../../src/contract/training/recipe.ts';
import { SpladeObjective, type SpladeObjectiveDims } from '../../../src/train/splade/splade-objective.ts';
import { spladeObjectiveReference } from '../../../src/train/splade/splade-objective-reference.ts';
import { rowSquares } from '../../../src/kernels/reference/active-dims.ts';
import { Random } from '../../../src/util/random.ts';
import { expectKernel } from '../../helpers/expect-kernel.ts';
import { gpuContext } from '../../helpers/gpu.ts';

function maskWithPadding(random: Random, rows: number, T: number): Float64Array {
  const mask = new Float64Array(rows * T);
  for (let r = 0; r < rows; r++) {
    const length = 1 + random.int(T);
    for (let t = 0; t < length; t++) mask[r * T + t] = 1;
  }
  return mask;
}

function synthetic(dims: SpladeObjectiveDims, seed: number, weightScale: number) {
  const random = new Random(seed);
  const { B, Tq, Td, d, V } = dims;
  return {
    hiddenQueries: random.normals(B * Tq * d).map(Math.fround),
    maskQueries: maskWithPadding(random, B, Tq),
    hiddenDocuments: random.normals(2 * B * Td * d).map(Math.fround),
    maskDocuments: maskWithPadding(random, 2 * B, Td),
    weight: random.normals(V * d, weightScale / Math.sqrt(d)).map(Math.fround),
    bias: random.normals(V, 0.1).map(Math.fround),
  };
}

function upload(ctx: GpuContext, dims: SpladeObjectiveDims, host: ReturnType<typeof synthetic>) {
  const { B, Tq, Td, d, V } = dims;
  return {
    hiddenQueries: ctx.tensor('hq', [B, Tq, d], 'f32', host.hiddenQueries),
    maskQueries: ctx.tensor('mq', [B, Tq], 'u32', host.maskQueries),
    hiddenDocuments: ctx.tensor('hd', [2 * B, Td, d], 'f32', host.hiddenDocuments),
    maskDocuments: ctx.tensor('md', [2 * B, Td], 'u32', host.maskDocuments),
    weight: ctx.tensor('W', [V, d], 'f32', host.weight),
    bias: ctx.tensor('b', [V], 'f32', host.bias),
  };
}

describe('SPLADE objective', () => {
  it.each([[{ B: 1, Tq: 1, Td: 7, d: 8, V: 37 }], [{ B: 3, Tq: 5, Td: 7, d: 12, V: 301 }]])(
    'GPU losses and gradients equal the float64 composition for %o',
    async (dims) => {
      const { B, Tq, Td, d, V } = dims;
      const host = synthetic(dims, dims.V, 2);
      const [lq, ld] = [0.05, 0.003];
      const tol = { rtol: 1e-3, atol: 1e-5 };
      await expectKernel(await gpuContext(), {
        name: `objective ${JSON.stringify(dims)}`,
        tensors: {
          hiddenQueries: { shape: [B, Tq, d], data: host.hiddenQueries },
          maskQueries: { shape: [B, Tq], dtype: 'u32', data: host.maskQueries },
          hiddenDocuments: { shape: [2 * B, Td, d], data: host.hiddenDocuments },
          maskDocuments: { shape: [2 * B, Td], dtype: 'u32', data: host.maskDocuments },
          weight: { shape: [V, d], data: host.weight },
          bias: { shape: [V], data: host.bias },
          // gradients hold values already: the objective adds into them
          dweight: { shape: [V, d] },
          dbias: { shape: [V] },
          dhiddenQueries: { shape: [B, Tq, d] },
          dhiddenDocuments: { shape: [2 * B, Td, d] },
        },
        build: (ctx, t) => {
          const objective = new SpladeObjective(ctx, dims, { tau: 1 });
          objective.setLambdas(lq, ld);
          const { hiddenQueries, maskQueries, hiddenDocuments, maskDocuments, weight, bias } = t;
          const { dweight, dbias, dhiddenQueries, dhiddenDocuments } = t;
          return {
            record: (enc) =>
              objective.record(
                enc,
                { hiddenQueries, maskQueries, hiddenDocuments, maskDocuments, weight, bias },
                { dweight, dbias, dhiddenQueries, dhiddenDocuments },
              ),
            tensors: {
              losses: objective.losses,
              activeCounts: objective.activeCounts,
              squaredNorms: objective.squaredNorms,
              pooledQueries: objective.pooledQueries,
              pooledDocuments: objective.pooledDocuments,
            },
          };
        },
        reference: (_, gpu) => {
          const expected = spladeObjectiveReference(host, dims, 1, lq, ld);
          const positives = (pooled: Float64Array, rows: number) =>
            Array.from({ length: rows }, (__, r) => pooled.subarray(r * V, (r + 1) * V).filter((v) => v > 0).length);
          return {
            losses: [expected.rank, expected.flopsQueries, expected.flopsDocuments],
            // the active dimensions counted on the GPU are those of its own pooled vectors
            activeCounts: [...positives(gpu.pooledQueries, B), ...positives(gpu.pooledDocuments, 2 * B)],
            squaredNorms: [...rowSquares(expected.pooledQueries, B, V), ...rowSquares(expected.pooledDocuments, 2 * B, V)],
            dweight: expected.dweight,
            dbias: expected.dbias,
            dhiddenQueries: expected.dhiddenQueries,
            dhiddenDocuments: expected.dhiddenDocuments,
          };
        },
        checks: {
          // each score is an f32 sum of V products (a relative error of a few 1e-7 · sqrt(V)); with weights of scale 2 the
          // scores reach the hundreds and the rank loss (~55 at V = 301) carries that error relative to its size
          losses: { tol: { rtol: 1e-5, atol: 5e-5 } },
          activeCounts: {},
          squaredNorms: { tol: { rtol: 1e-4, atol: 1e-5 } },
          dweight: { tol, accumulates: true },
          dbias: { tol, accumulates: true },
          dhiddenQueries: { tol, accumulates: true },
          dhiddenDocuments: { tol, accumulates: true },
        },
      });
    },
  );

  it('head-only training (frozen hidden states, AdamW on W and b) lowers the loss', async () => {
    const ctx = await gpuContext();
    const dims = { B: 4, Tq: 6, Td: 10, d: 16, V: 500 };
    const inputs = upload(ctx, dims, synthetic(dims, 42, 2));
    const steps = 40;
    const trainer = new HeadOnlyTrainer(ctx, dims, inputs, {
      optimizer: PAPER_ADAMW,
      schedule: { peakLr: 2e-2, totalSteps: steps, warmupRatio: 0.1 },
      lambdaQueries: 5e-2,
      lambdaDocuments: 3e-3,
      tau: 1,
    });
    const history = [];
    for (let s = 0; s < steps; s++) {
      const losses = await trainer.step(s === 0 || s === steps - 1 || s % 10 === 0);
      if (losses) history.push(losses);
    }
    const first = history[0];
    const last = history[history.length - 1];
    expect(Number.isFinite(last.total)).toBe(true);
    expect(last.rank).toBeLessThan(0.5 * first.rank);
    expect(await trainer.readHealth()).toEqual({ finite: true, parts: [], firstStep: null });
  });

  it('head-only training at lr 1e9 raises the health flags of the updated decoder', async () => {
    const ctx = await gpuContext();
    const dims = { B: 2, Tq: 3, Td: 4, d: 8, V: 60 };
    const inputs = upload(ctx, dims, synthetic(dims, 7, 2));
    const trainer = new HeadOnlyTrainer(ctx, dims, inputs, {
      // the decoupled decay (lr x 0.01 x w per step) is what overflows the weights at this learning rate
      optimizer: { ...PAPER_ADAMW, weightDecay: 0.01 },
      schedule: { peakLr: 1e9, totalSteps: 20, warmupRatio: 0 },
      lambdaQueries: 5e-2,
      lambdaDocuments: 3e-3,
      tau: 1,
    });
    for (let s = 0; s < 20; s++) await trainer.step(false);
    const health = await trainer.readHealth();
    expect(health.finite).toBe(false);
    expect(health.parts).toContain('decoder weight after the update');
    expect(health.firstStep).toBeGreaterThanOrEqual(0);
    expect((await ctx.read(inputs.weight)).some((x) => !Number.isFinite(x))).toBe(true);
  });
});
