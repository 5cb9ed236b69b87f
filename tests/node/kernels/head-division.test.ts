// The head division W <- W / k on the GPU: against the float64 reference, bit for bit against the f32 product every
// device computes, and what it does to the head's statistics (norms divided by k, anisotropy kept).
import { describe, expect, it } from 'vitest';
import { HeadDivision } from '../../../src/kernels/head-division.ts';
import { HeadStats } from '../../../src/kernels/head-stats.ts';
import { rescaleHead, rescaleHeadF32 } from '../../../src/kernels/reference/head-division.ts';
import { expectClose } from '../../helpers/compare.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { makeHead } from '../../helpers/test-heads.ts';

describe('head division on the GPU', () => {
  it('rescale(k) divides every row norm by k and leaves anisotropy unchanged', async () => {
    const ctx = await gpuContext();
    const [V, d, k] = [300, 20, 4];
    const W = makeHead(V, d, 9);
    const weight = ctx.tensor('W', [V, d], 'f32', W);
    const stats = new HeadStats(ctx, V, d);
    const division = new HeadDivision(ctx, V, d);
    const before = await stats.measure(weight);
    await ctx.run('rescale', (enc) => division.record(enc, weight, k));
    expectClose('W / k', await ctx.read(weight), rescaleHead(W, k), { rtol: 1e-7, atol: 0 });
    const after = await stats.measure(weight);
    expect(after.summary.mean).toBeCloseTo(before.summary.mean / k, 5);
    expect(after.summary.max).toBeCloseTo(before.summary.max / k, 5);
    expect(after.anisotropy).toBeCloseTo(before.anisotropy, 5);
  });

  it.each([3, 1.7, 6, 0.3])(
    'k = %d (not a power of two): W / k is W times f32(1/k), bit for bit, within an ulp of W / k',
    async (k) => {
      const ctx = await gpuContext();
      const [V, d] = [257, 13];
      const W = makeHead(V, d, 4);
      const weight = ctx.tensor('W', [V, d], 'f32', W);
      const division = new HeadDivision(ctx, V, d);
      await ctx.run('rescale', (enc) => division.record(enc, weight, k));
      const got = await ctx.read(weight);
      const expected = rescaleHeadF32(W, k);
      const differing = got.findIndex((x, i) => Object.is(x, expected[i]) === false);
      expect(differing, `element ${differing}: ${got[differing]} vs ${expected[differing]}`).toBe(-1);
      expectClose('W / k within an ulp', got, rescaleHead(Float64Array.from(W, Math.fround), k), { rtol: 1.2e-7, atol: 0 });
    },
  );

  it('refuses a non-positive k', async () => {
    const ctx = await gpuContext();
    const division = new HeadDivision(ctx, 4, 2);
    const weight = ctx.tensor('W', [4, 2], 'f32');
    expect(() => division.record(ctx.encoder('x'), weight, 0)).toThrow(/positive/);
  });
});
