// Scores, contrastive and distillation losses and FLOPS: references against finite differences, GPU kernels against references.
import { describe, expect, it } from 'vitest';
import {
  klDistillBackward,
  klDistillForward,
  marginMseBackward,
  marginMseForward,
} from '../../../src/kernels/reference/distill-loss.ts';
import { contrastiveLossBackward, contrastiveLossForward } from '../../../src/kernels/reference/contrastive-loss.ts';
import { flopsLossBackward, flopsLossForward } from '../../../src/kernels/reference/flops-loss.ts';
import { sparseScoresBackward, sparseScoresForward } from '../../../src/kernels/reference/sparse-scores.ts';
import { Random } from '../../../src/util/random.ts';
import { describeKernelFamily } from '../../helpers/expect-kernel.ts';
import { checkGradients } from '../../helpers/gradcheck.ts';
import { itOnCpu } from '../../helpers/portable-run.ts';
import { losses } from './cases/losses.ts';

describeKernelFamily(losses);

describe('sparse scores', () => {
  itOnCpu('reference gradient matches finite differences', () => {
    const random = new Random(1);
    const [B, N, V] = [3, 6, 11];
    checkGradients({
      inputs: { q: random.normals(B * V), d: random.normals(N * V) },
      forward: ({ q, d }) => sparseScoresForward(q, d, B, N, V),
      backward: ({ q, d }, dout) => {
        const g = sparseScoresBackward(q, d, dout, B, N, V);
        return { q: g.dqueries, d: g.ddocs };
      },
      wrt: ['q', 'd'],
    });
  });
});

describe('contrastive loss', () => {
  itOnCpu('reference gradient matches finite differences', () => {
    const random = new Random(2);
    const [B, N] = [4, 8];
    checkGradients({
      inputs: { s: random.normals(B * N, 3) },
      forward: ({ s }) => Float64Array.of(contrastiveLossForward(s, B, N, 0.7)),
      backward: ({ s }, dout) => ({ s: contrastiveLossBackward(s, B, N, 0.7, dout[0]) }),
      wrt: ['s'],
    });
  });

  it('reference equals the formula on a hand-computed case', () => {
    // B = 1, N = 2, tau = 1: L = log(e^2 + e^0) - 2.
    expect(contrastiveLossForward(Float64Array.of(2, 0), 1, 2, 1)).toBeCloseTo(Math.log(Math.exp(2) + 1) - 2, 12);
  });
});

describe('FLOPS regulariser', () => {
  itOnCpu('reference gradient matches finite differences', () => {
    const random = new Random(3);
    const [N, V] = [5, 9];
    checkGradients({
      inputs: { x: random.uniforms(N * V, 0.1, 2) },
      forward: ({ x }) => Float64Array.of(flopsLossForward(x, N, V)),
      backward: ({ x }, dout) => ({ x: flopsLossBackward(x, N, V, dout[0]) }),
      wrt: ['x'],
    });
  });
});

describe('distillation losses', () => {
  // query i's documents: positive at column i, negative c at (1 + c)·B + i; other columns belong to other queries
  itOnCpu.each([1, 3])('MarginMSE reference gradient matches finite differences (%i negatives)', (n) => {
    const random = new Random(10 + n);
    const B = 3;
    const N = (1 + n) * B;
    const margins = random.normals(B * n, 2);
    checkGradients({
      inputs: { s: random.normals(B * N, 3) },
      forward: ({ s }) => Float64Array.of(marginMseForward(s, margins, B, n)),
      backward: ({ s }, dout) => ({ s: marginMseBackward(s, margins, B, n, dout[0]) }),
      wrt: ['s'],
    });
  });

  it.each([
    [1, 1],
    [3, 0.5],
    [3, 4],
  ])('KL reference gradient matches finite differences (%i negatives, T = %f)', (n, T) => {
    const random = new Random(20 + n);
    const B = 3;
    const N = (1 + n) * B;
    const teacher = random.normals(B * (n + 1), 3);
    checkGradients({
      inputs: { s: random.normals(B * N, 3) },
      forward: ({ s }) => Float64Array.of(klDistillForward(s, teacher, B, n, T)),
      backward: ({ s }, dout) => ({ s: klDistillBackward(s, teacher, B, n, T, dout[0]) }),
      wrt: ['s'],
    });
  });

  it('references equal the formulas on hand-computed cases', () => {
    // B = 1, n = 1: scores [s_pos, s_neg] = [3, 1], margin 0.5: (3 - 1 - 0.5)² = 2.25
    expect(marginMseForward(Float64Array.of(3, 1), [0.5], 1, 1)).toBeCloseTo(2.25, 12);
    // B = 1, n = 1, T = 1: teacher [0, 0] (uniform), student [ln 3, 0]: KL = ln(1/2) - 0.5 ln(3/4) - 0.5 ln(1/4)
    const kl = 0.5 * Math.log(0.5 / 0.75) + 0.5 * Math.log(0.5 / 0.25);
    expect(klDistillForward(Float64Array.of(Math.log(3), 0), [0, 0], 1, 1, 1)).toBeCloseTo(kl, 12);
    // equal distributions: zero loss and gradient, whatever the shift
    expect(klDistillForward(Float64Array.of(5, 2), [13, 10], 1, 1, 1)).toBeCloseTo(0, 12);
    // a teacher probability that underflows to 0 adds nothing (no NaN from 0 · log 0)
    expect(Number.isFinite(klDistillForward(Float64Array.of(1, 2), [0, -2000], 1, 1, 1))).toBe(true);
  });
});
