// Head statistics on the GPU against the float64 reference.
import { histogramBin, histogramCounts, histogramEdges } from '../../../src/util/histogram-range.ts';
import { describe, expect, it } from 'vitest';
import { HeadStats } from '../../../src/kernels/head-stats.ts';
import { headRowNorms, normHistogram } from '../../../src/kernels/reference/head-stats.ts';
import { describeKernelFamily } from '../../helpers/expect-kernel.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { makeHead } from '../../helpers/test-heads.ts';
import { headStats } from './cases/head-stats.ts';

describeKernelFamily(headStats);

describe('head statistics', () => {
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

  it('the anisotropy of rows with tiny norms (1e-15) is finite and exact: no product of squared norms underflows (ni · nj = 1e-60 is 0 in f32)', async () => {
    const ctx = await gpuContext();
    const [V, d] = [2, 8];
    const W = Float32Array.from({ length: V * d }, (_, i) => (i < d ? 1e-15 : 3e-15) * (1 + ((i % d) % 3)));
    const measured = await new HeadStats(ctx, V, d, { pairs: 3 }).measure(ctx.tensor('W', [V, d], 'f32', W));
    expect(measured.anisotropy).toBeCloseTo(1, 5); // the two rows are parallel
  });

  it('bins by edges computed once on the host: an edge value opens its bin, the top edge is in the last bin, counts add up', async () => {
    const range = { lo: 0.5, hi: 8, bins: 4, log: true };
    const edges = histogramEdges(range);
    expect([...edges]).toEqual([0.5, 1, 2, 4, 8]);
    expect([0.5, 0.99, 1, 3.9, 4, 8, 8.01, 0.49].map((x) => histogramBin(x, range))).toEqual([0, 0, 1, 2, 3, 3, -1, -1]);
    // the GPU counts with the same edges: norms on the edges fall where the host puts them
    const ctx = await gpuContext();
    const norms = [0.5, 1, 2, 4, 8, 3, 0.25, 9];
    const W = Float32Array.from(norms); // d = 1: each row's norm is its one weight
    const measured = await new HeadStats(ctx, norms.length, 1, { bins: 4 }).measure(
      ctx.tensor('W', [norms.length, 1], 'f32', W),
      1,
      range,
    );
    expect(measured.histogram.counts).toEqual(histogramCounts(norms, range));
    expect(measured.histogram.counts).toEqual([1, 1, 2, 2]);
  });
});
