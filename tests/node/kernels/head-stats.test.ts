// Head statistics on the GPU against the float64 reference.
import { histogramBin, histogramCounts, histogramEdges } from '../../../src/util/histogram-range.ts';
import { describe, expect, it } from 'vitest';
import { HeadStats } from '../../../src/kernels/head-stats.ts';
import {
  anisotropy,
  headRowNorms,
  normHistogram,
  sampleRowPairs,
  summarizeNorms,
} from '../../../src/kernels/reference/head-stats.ts';
import { rescaleHead } from '../../../src/kernels/reference/head-division.ts';
import { EXACT } from '../../helpers/allclose.ts';
import { expectKernel } from '../../helpers/expect-kernel.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { makeHead } from '../../helpers/test-heads.ts';

const SUMMARY_KEYS = ['mean', 'std', 'min', 'max', 'p50', 'p90', 'p99'] as const;

/** Writes the bit pattern `bits` into element (row, c) of the f32 head W. */
function poison(W: Float32Array, d: number, row: number, c: number, bits: number): void {
  new Uint32Array(W.buffer)[row * d + c] = bits;
}

/** Head statistics on the GPU against the reference: summary, non-finite rows, anisotropy, and the histogram. */
async function checkStats(name: string, W: ArrayLike<number>, V: number, d: number, k: number): Promise<void> {
  const report = await expectKernel(await gpuContext(), {
    name,
    tensors: { weight: { shape: [V, d], data: W } },
    build: (ctx, t) => {
      const stats = new HeadStats(ctx, V, d, { bins: 17, pairs: 300, seed: 5 });
      return {
        run: async () => {
          const measured = await stats.measure(t.weight, k);
          const { range, counts } = measured.histogram;
          return {
            summary: SUMMARY_KEYS.map((key) => measured.summary[key]),
            nonFiniteRows: [measured.summary.nonFiniteRows],
            anisotropy: [measured.anisotropy],
            range: [range.lo, range.hi],
            counts,
          };
        },
      };
    },
    reference: (h) => {
      const expected = summarizeNorms(headRowNorms(rescaleHead(h.weight, k), V, d));
      return {
        summary: SUMMARY_KEYS.map((key) => expected[key]),
        nonFiniteRows: [expected.nonFiniteRows],
        anisotropy: [anisotropy(h.weight, d, sampleRowPairs(V, 300, 5))],
      };
    },
    checks: {
      summary: { tol: { rtol: 2e-5, atol: 2e-5, combine: 'max' } },
      nonFiniteRows: { tol: EXACT },
      anisotropy: { tol: { rtol: 0, atol: 5e-5 } },
    },
  });
  // The histogram over the GPU's own range: norms within float32 rounding of a bin edge may land either side; rows
  // without a finite norm are in no bin.
  const [lo, hi] = report.gpu.range;
  const counts = normHistogram(headRowNorms(rescaleHead(Float64Array.from(W), k), V, d), { lo, hi, bins: 17, log: false });
  expect(report.gpu.counts.reduce((a, b) => a + b, 0)).toBe(V - report.expected.nonFiniteRows[0]);
  const moved = report.gpu.counts.reduce((sum, c, i) => sum + Math.abs(c - counts[i]), 0);
  expect(moved).toBeLessThanOrEqual(2);
}

describe('head statistics', () => {
  it.each([
    [2, 1, 1],
    [7, 3, 1],
    [257, 16, 4],
    [1000, 33, 16],
    [5000, 8, 2.5],
  ])('GPU equals the reference for V=%i d=%i k=%f', async (V, d, k) => {
    await checkStats(`head stats V=${V} d=${d} k=${k}`, makeHead(V, d, V + d), V, d, k);
  });

  // Rows with a NaN, +Inf or -Inf element, or a finite row whose squared norm passes f32 (1e20² > 3.4e38), have no
  // norm: they are counted, left out of mean/max/percentiles and of anisotropy, and sort after the padding's keys
  // (V = 1000 pads to 1024), which is what made an Inf row read as max 3.4e38 before.
  it.each([
    [257, 16, 1],
    [1000, 33, 4],
  ])('rows with NaN, Inf or out-of-range norms are counted and left out, V=%i d=%i k=%f', async (V, d, k) => {
    const W = Float32Array.from(makeHead(V, d, 11));
    poison(W, d, 3, 0, 0x7fc00000); // NaN
    poison(W, d, 100, d - 1, 0x7f800000); // +Inf
    poison(W, d, V - 1, 5, 0xff800000); // -Inf, last row
    W.fill(1e20, 7 * d, 8 * d); // finite values, norm out of f32 range
    const norms = headRowNorms(rescaleHead(Float64Array.from(W), k), V, d);
    expect(summarizeNorms(norms).nonFiniteRows).toBe(4);
    await checkStats(`head stats with non-finite rows V=${V}`, W, V, d, k);
  });

  it('an all-NaN head reports NaN figures (not 0), every row non-finite, NaN anisotropy', async () => {
    const [V, d] = [7, 3];
    const W = new Float32Array(V * d).fill(NaN);
    const expected = summarizeNorms(headRowNorms(Float64Array.from(W), V, d));
    expect(expected.nonFiniteRows).toBe(V);
    expect(Number.isNaN(expected.mean) && Number.isNaN(expected.max)).toBe(true);
    expect(anisotropy(Float64Array.from(W), d, sampleRowPairs(V, 300, 5))).toBeNaN();
    await checkStats('all-NaN head', W, V, d, 1);
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
