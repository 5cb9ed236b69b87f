// Head statistics on the GPU against the float64 reference; rescaling divides norms by k and keeps anisotropy.
import { describe, expect, it } from 'vitest';
import { HeadStats } from '../../src/kernels/head-stats.ts';
import {
  anisotropy,
  headRowNorms,
  normHistogram,
  rescaleHead,
  sampleRowPairs,
  summarizeNorms,
} from '../../src/kernels/reference/head-stats.ts';
import { Random } from '../../src/util/random.ts';
import { expectClose } from '../helpers/compare.ts';
import { expectKernel } from '../helpers/expect-kernel.ts';
import { gpuContext } from '../helpers/gpu.ts';

/** A head whose rows have varied norms (per-row scale) and a shared direction (some anisotropy). */
function makeHead(V: number, d: number, seed: number): Float64Array {
  const random = new Random(seed);
  const shared = random.normals(d);
  const W = new Float64Array(V * d);
  for (let v = 0; v < V; v++) {
    const scale = 0.2 + 2 * random.next();
    for (let c = 0; c < d; c++) W[v * d + c] = Math.fround(scale * (random.normal() + 0.5 * shared[c]) / Math.sqrt(d));
  }
  return W;
}

const SUMMARY_KEYS = ['mean', 'std', 'min', 'max', 'p50', 'p90', 'p99'] as const;

describe('head statistics', () => {
  it.each([
    [2, 1, 1],
    [7, 3, 1],
    [257, 16, 4],
    [1000, 33, 16],
    [5000, 8, 2.5],
  ])('GPU equals the reference for V=%i d=%i k=%f', async (V, d, k) => {
    const W = makeHead(V, d, V + d);
    const report = await expectKernel(await gpuContext(), {
      name: `head stats V=${V} d=${d} k=${k}`,
      tensors: { weight: { shape: [V, d], data: W } },
      build: (ctx, t) => {
        const stats = new HeadStats(ctx, V, d, { bins: 17, pairs: 300, seed: 5 });
        return {
          run: async () => {
            const measured = await stats.measure(t.weight, k);
            const { range, counts } = measured.histogram;
            return { summary: SUMMARY_KEYS.map((key) => measured.summary[key]), anisotropy: [measured.anisotropy], range: [range.lo, range.hi], counts };
          },
        };
      },
      reference: (h) => {
        const expected = summarizeNorms(headRowNorms(rescaleHead(h.weight, k), V, d));
        return { summary: SUMMARY_KEYS.map((key) => expected[key]), anisotropy: [anisotropy(h.weight, d, sampleRowPairs(V, 300, 5))] };
      },
      checks: { summary: { tol: { rtol: 2e-5, atol: 2e-5, combine: 'max' } }, anisotropy: { tol: { rtol: 0, atol: 5e-5 } } },
    });
    // The histogram over the GPU's own range: norms within float32 rounding of a bin edge may land either side.
    const [lo, hi] = report.gpu.range;
    const counts = normHistogram(headRowNorms(rescaleHead(W, k), V, d), { lo, hi, bins: 17, log: false });
    expect(report.gpu.counts.reduce((a, b) => a + b, 0)).toBe(V);
    const moved = report.gpu.counts.reduce((sum, c, i) => sum + Math.abs(c - counts[i]), 0);
    expect(moved).toBeLessThanOrEqual(2);
  });

  it('log-spaced bins count the same norms as the reference', async () => {
    const ctx = await gpuContext();
    const [V, d] = [999, 12];
    const W = makeHead(V, d, 3);
    const stats = new HeadStats(ctx, V, d, { bins: 23 });
    const range = { lo: 0.05, hi: 3, log: true };
    const measured = await stats.measure(ctx.tensor('W', [V, d], 'f32', W), 1, range);
    const expected = normHistogram(headRowNorms(W, V, d), { ...range, bins: 23 });
    const moved = measured.histogram.counts.reduce((s, c, i) => s + Math.abs(c - expected[i]), 0);
    expect(moved).toBeLessThanOrEqual(2);
    expect(measured.histogram.counts.reduce((a, b) => a + b, 0)).toBe(expected.reduce((a, b) => a + b, 0));
  });

  it('rescale(k) divides every row norm by k and leaves anisotropy unchanged', async () => {
    const ctx = await gpuContext();
    const [V, d, k] = [300, 20, 4];
    const W = makeHead(V, d, 9);
    const weight = ctx.tensor('W', [V, d], 'f32', W);
    const stats = new HeadStats(ctx, V, d);
    const before = await stats.measure(weight);
    await ctx.run('rescale', (enc) => stats.rescale(enc, weight, k));
    expectClose('W / k', await ctx.read(weight), rescaleHead(W, k), { rtol: 1e-7, atol: 0 });
    const after = await stats.measure(weight);
    expect(after.summary.mean).toBeCloseTo(before.summary.mean / k, 5);
    expect(after.summary.max).toBeCloseTo(before.summary.max / k, 5);
    expect(after.anisotropy).toBeCloseTo(before.anisotropy, 5);
  });

  it('refuses a non-positive k', async () => {
    const ctx = await gpuContext();
    const stats = new HeadStats(ctx, 4, 2);
    const weight = ctx.tensor('W', [4, 2], 'f32');
    expect(() => stats.rescale(ctx.encoder('x'), weight, 0)).toThrow(/positive/);
  });
});
