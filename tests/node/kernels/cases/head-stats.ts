// Head statistics against the float64 reference: summary, non-finite rows, anisotropy, and the histogram, on clean heads
// and on heads with NaN, Inf or out-of-range rows.
import { HeadStats } from '../../../../src/kernels/head-stats.ts';
import {
  anisotropy,
  headRowNorms,
  normHistogram,
  sampleRowPairs,
  summarizeNorms,
} from '../../../../src/kernels/reference/head-stats.ts';
import { rescaleHead } from '../../../../src/kernels/reference/head-division.ts';
import { EXACT } from '../../../helpers/allclose.ts';
import { makeHead } from '../../../helpers/test-heads.ts';
import type { CaseExpect, KernelCase, KernelFamily } from './kernel-case.ts';

const SUMMARY_KEYS = ['mean', 'std', 'min', 'max', 'p50', 'p90', 'p99'] as const;

/** Writes the bit pattern `bits` into element (row, c) of the f32 head W. */
function poison(W: Float32Array, d: number, row: number, c: number, bits: number): void {
  new Uint32Array(W.buffer)[row * d + c] = bits;
}

/**
 * Head statistics on the GPU against the reference: summary, non-finite rows, anisotropy, and the histogram;
 * `before` checks the reference itself on the same head.
 */
function statsCase(
  test: string,
  name: string,
  head: () => ArrayLike<number>,
  V: number,
  d: number,
  k: number,
  before?: (W: ArrayLike<number>, expect: CaseExpect) => void,
): KernelCase {
  let W: ArrayLike<number> = [];
  return {
    name: test,
    make: () => {
      W = head();
      return {
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
      };
    },
    then: (report, expect) => {
      before?.(W, expect);
      // The histogram over the GPU's own range: norms within float32 rounding of a bin edge may land either side; rows
      // without a finite norm are in no bin.
      const [lo, hi] = report.gpu.range;
      const counts = normHistogram(headRowNorms(rescaleHead(Float64Array.from(W), k), V, d), { lo, hi, bins: 17, log: false });
      expect(report.gpu.counts.reduce((a, b) => a + b, 0)).toBe(V - report.expected.nonFiniteRows[0]);
      const moved = report.gpu.counts.reduce((sum, c, i) => sum + Math.abs(c - counts[i]), 0);
      expect(moved).toBeLessThanOrEqual(2);
    },
  };
}

function cleanHeadCase(V: number, d: number, k: number): KernelCase {
  return statsCase(
    `GPU equals the reference for V=${V} d=${d} k=${k}`,
    `head stats V=${V} d=${d} k=${k}`,
    () => makeHead(V, d, V + d),
    V,
    d,
    k,
  );
}

// Rows with a NaN, +Inf or -Inf element, or a finite row whose squared norm passes f32 (1e20² > 3.4e38), have no
// norm: they are counted, left out of mean/max/percentiles and of anisotropy, and sort after the padding's keys
// (V = 1000 pads to 1024), which is what made an Inf row read as max 3.4e38 before.
function poisonedHeadCase(V: number, d: number, k: number): KernelCase {
  const head = () => {
    const W = Float32Array.from(makeHead(V, d, 11));
    poison(W, d, 3, 0, 0x7fc00000); // NaN
    poison(W, d, 100, d - 1, 0x7f800000); // +Inf
    poison(W, d, V - 1, 5, 0xff800000); // -Inf, last row
    W.fill(1e20, 7 * d, 8 * d); // finite values, norm out of f32 range
    return W;
  };
  return statsCase(
    `rows with NaN, Inf or out-of-range norms are counted and left out, V=${V} d=${d} k=${k}`,
    `head stats with non-finite rows V=${V}`,
    head,
    V,
    d,
    k,
    (W, expect) => expect(summarizeNorms(headRowNorms(rescaleHead(Float64Array.from(W), k), V, d)).nonFiniteRows).toBe(4),
  );
}

function allNaNCase(): KernelCase {
  const [V, d] = [7, 3];
  return statsCase(
    'an all-NaN head reports NaN figures (not 0), every row non-finite, NaN anisotropy',
    'all-NaN head',
    () => new Float32Array(V * d).fill(NaN),
    V,
    d,
    1,
    (W, expect) => {
      const expected = summarizeNorms(headRowNorms(Float64Array.from(W), V, d));
      expect(expected.nonFiniteRows).toBe(V);
      expect(Number.isNaN(expected.mean) && Number.isNaN(expected.max)).toBe(true);
      expect(anisotropy(Float64Array.from(W), d, sampleRowPairs(V, 300, 5))).toBeNaN();
    },
  );
}

export const headStats: KernelFamily = {
  family: 'head-stats',
  groups: [
    {
      describe: 'head statistics',
      cases: [
        cleanHeadCase(2, 1, 1),
        cleanHeadCase(7, 3, 1),
        cleanHeadCase(257, 16, 4),
        cleanHeadCase(1000, 33, 16),
        cleanHeadCase(5000, 8, 2.5),
        poisonedHeadCase(257, 16, 1),
        poisonedHeadCase(1000, 33, 4),
        allNaNCase(),
      ],
    },
  ],
};
