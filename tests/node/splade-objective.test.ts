// The composed SPLADE objective on the GPU equals its float64 twin; head-only training makes the loss fall.
import { describe, expect, it } from 'vitest';
import type { GpuContext } from '../../src/gpu/context.ts';
import { HeadOnlyTrainer } from '../../src/train/head-only-trainer.ts';
import { PAPER_ADAMW } from '../../src/train/trainer.ts';
import { SpladeObjective, type SpladeObjectiveDims } from '../../src/train/splade-objective.ts';
import { spladeObjectiveReference } from '../../src/train/splade-objective-reference.ts';
import { Random } from '../../src/util/random.ts';
import { expectClose } from '../helpers/compare.ts';
import { gpuContext } from '../helpers/gpu.ts';

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
  it.each([
    [{ B: 1, Tq: 1, Td: 7, d: 8, V: 37 }],
    [{ B: 3, Tq: 5, Td: 7, d: 12, V: 301 }],
  ])('GPU losses and gradients equal the float64 composition for %o', async (dims) => {
    const ctx = await gpuContext();
    const host = synthetic(dims, dims.V, 2);
    const inputs = upload(ctx, dims, host);
    const objective = new SpladeObjective(ctx, dims, 1);
    const [lq, ld] = [0.05, 0.003];
    objective.setLambdas(lq, ld);
    const grads = {
      dweight: ctx.tensor('dweight', [dims.V, dims.d], 'f32'),
      dbias: ctx.tensor('db', [dims.V], 'f32'),
      dhiddenQueries: ctx.tensor('dhq', [dims.B, dims.Tq, dims.d], 'f32'),
      dhiddenDocuments: ctx.tensor('dhd', [2 * dims.B, dims.Td, dims.d], 'f32'),
    };
    await ctx.run('objective', (enc) => objective.record(enc, inputs, grads));
    const expected = spladeObjectiveReference(host, dims, 1, lq, ld);
    const losses = await objective.readLosses();
    expect(losses.rank).toBeCloseTo(expected.rank, 4);
    expect(losses.flopsQueries).toBeCloseTo(expected.flopsQueries, 4);
    expect(losses.flopsDocuments).toBeCloseTo(expected.flopsDocuments, 4);
    const active = await objective.readActiveDims();
    const meanPositive = (x: Float32Array, rows: number) => x.filter((v) => v > 0).length / rows;
    expect(active.queries).toBe(meanPositive(await ctx.read(objective.pooledQueries), dims.B));
    expect(active.documents).toBe(meanPositive(await ctx.read(objective.pooledDocuments), 2 * dims.B));
    const tol = { rtol: 1e-3, atol: 1e-5 };
    expectClose('dweight', await ctx.read(grads.dweight), expected.dweight, tol);
    expectClose('dbias', await ctx.read(grads.dbias), expected.dbias, tol);
    expectClose('dhiddenQueries', await ctx.read(grads.dhiddenQueries), expected.dhiddenQueries, tol);
    expectClose('dhiddenDocuments', await ctx.read(grads.dhiddenDocuments), expected.dhiddenDocuments, tol);
  });

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
  });
});
