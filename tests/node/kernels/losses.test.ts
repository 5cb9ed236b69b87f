// Scores, contrastive and distillation losses and FLOPS: references against finite differences, GPU kernels against references.
import { describe, expect, it } from 'vitest';
import { ContrastiveLoss } from '../../../src/kernels/contrastive-loss.ts';
import { DistillLoss, teacherWidth } from '../../../src/kernels/distill-loss.ts';
import { FlopsLoss } from '../../../src/kernels/flops-loss.ts';
import {
  klDistillBackward,
  klDistillForward,
  marginMseBackward,
  marginMseForward,
} from '../../../src/kernels/reference/distill-loss.ts';
import { contrastiveLossBackward, contrastiveLossForward } from '../../../src/kernels/reference/contrastive-loss.ts';
import { flopsLossBackward, flopsLossForward } from '../../../src/kernels/reference/flops-loss.ts';
import { sparseScoresBackward, sparseScoresForward } from '../../../src/kernels/reference/sparse-scores.ts';
import { SparseScores } from '../../../src/kernels/sparse-scores.ts';
import { Random } from '../../../src/util/random.ts';
import { expectKernel } from '../../helpers/expect-kernel.ts';
import { checkGradients } from '../../helpers/gradcheck.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { itOnCpu } from '../../helpers/portable-run.ts';

/** Non-negative sparse vectors like pooled SPLADE outputs: about `density` of the entries are positive. */
function sparseVectors(random: Random, rows: number, V: number, density = 0.3): Float64Array {
  const out = new Float64Array(rows * V);
  for (let i = 0; i < out.length; i++) if (random.next() < density) out[i] = 0.05 + 2 * random.next();
  return out;
}

const F32 = { rtol: 2e-5, atol: 1e-5 };

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

  it.each([
    [1, 2, 1],
    [1, 1, 257],
    [3, 6, 1000],
    [7, 14, 523],
    [70, 140, 33],
  ])('GPU forward and backward match the reference for B=%i N=%i V=%i', async (B, N, V) => {
    const random = new Random(B * 1000 + V);
    const tol = { rtol: 1e-4, atol: 1e-4 * Math.sqrt(V) };
    await expectKernel(await gpuContext(), {
      name: `sparse scores B=${B} N=${N} V=${V}`,
      tensors: {
        queries: { shape: [B, V], data: sparseVectors(random, B, V) },
        docs: { shape: [N, V], data: sparseVectors(random, N, V) },
        scores: { shape: [B, N] },
        dscores: { shape: [B, N] },
        dqueries: { shape: [B, V] },
        ddocs: { shape: [N, V], data: new Float64Array(N * V) },
      },
      build: (ctx, t) => {
        const kernel = new SparseScores(ctx, B, N, V);
        const { queries, docs, dscores, dqueries, ddocs } = t;
        return {
          record: (enc) => {
            kernel.forward(enc, { queries, docs, scores: t.scores });
            kernel.backward(enc, { queries, docs, dscores, dqueries, ddocs });
          },
        };
      },
      reference: (h) => {
        const g = sparseScoresBackward(h.queries, h.docs, h.dscores, B, N, V);
        return { scores: sparseScoresForward(h.queries, h.docs, B, N, V), dqueries: g.dqueries, ddocs: g.ddocs };
      },
      tolerance: tol,
      checks: { scores: {}, dqueries: { accumulates: true }, ddocs: { accumulates: true } },
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

  it.each([
    [1, 2, 1.0, 1],
    [5, 10, 1.0, 0.5],
    [7, 7, 0.05, 1],
    [300, 600, 1.0, 2],
  ])('GPU matches the reference for B=%i N=%i tau=%f scale=%f', async (B, N, tau, scale) => {
    await expectKernel(await gpuContext(), {
      name: `contrastive B=${B} N=${N} tau=${tau}`,
      tensors: {
        scores: { shape: [B, N], data: new Random(B + N).normals(B * N, 20) }, // large scores, as untrained large-norm heads give
        dscores: { shape: [B, N] },
        losses: { shape: [4] },
      },
      build: (ctx, t) => {
        const kernel = new ContrastiveLoss(ctx, B, N, tau, 1);
        kernel.setScale(scale);
        return { record: (enc) => kernel.forwardBackward(enc, { scores: t.scores, dscores: t.dscores, losses: t.losses }) };
      },
      // only slot 1 is written
      reference: (h) => ({
        losses: [h.losses[0], contrastiveLossForward(h.scores, B, N, tau), h.losses[2], h.losses[3]],
        dscores: contrastiveLossBackward(h.scores, B, N, tau, scale),
      }),
      checks: { losses: { tol: { rtol: 1e-4, atol: 1e-4, combine: 'max' } }, dscores: { tol: { rtol: 1e-4, atol: 1e-6 } } },
    });
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

  it.each([
    [1, 1, 0.05],
    [2, 257, 3e-3],
    [14, 1000, 1],
    [300, 33, 0.5],
  ])('GPU matches the reference for N=%i V=%i lambda=%f', async (N, V, lambda) => {
    await expectKernel(await gpuContext(), {
      name: `flops N=${N} V=${V}`,
      tensors: {
        vectors: { shape: [N, V], data: sparseVectors(new Random(N * 7 + V), N, V, 0.5) },
        dvectors: { shape: [N, V] },
        losses: { shape: [4] },
      },
      build: (ctx, t) => {
        const kernel = new FlopsLoss(ctx, N, V, 2);
        kernel.setLambda(lambda);
        return {
          record: (enc) => {
            kernel.forward(enc, { vectors: t.vectors, losses: t.losses });
            kernel.backward(enc, { vectors: t.vectors, dvectors: t.dvectors });
          },
        };
      },
      // only slot 2 is written
      reference: (h) => ({
        losses: [h.losses[0], h.losses[1], flopsLossForward(h.vectors, N, V), h.losses[3]],
        dvectors: flopsLossBackward(h.vectors, N, V, lambda),
      }),
      checks: { losses: { tol: { rtol: 1e-5, atol: 1e-5, combine: 'max' } }, dvectors: { tol: F32, accumulates: true } },
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

  it.each([
    ['marginmse', 1, 1, 1, 1],
    ['marginmse', 7, 3, 1, 0.5],
    ['marginmse', 300, 2, 1, 2],
    ['kl', 1, 1, 1, 1],
    ['kl', 7, 3, 0.3, 1],
    ['kl', 300, 2, 2, 0.5],
  ] as const)('GPU %s matches the reference for B=%i n=%i T=%f scale=%f', async (kind, B, n, T, scale) => {
    const N = (1 + n) * B;
    const width = teacherWidth(kind, n);
    const random = new Random(B * 31 + n);
    await expectKernel(await gpuContext(), {
      name: `${kind} B=${B} n=${n}`,
      tensors: {
        scores: { shape: [B, N], data: random.normals(B * N, 20) },
        teacher: { shape: [B, width], data: random.normals(B * width, 5) },
        dscores: { shape: [B, N], data: random.normals(B * N) }, // stale values: the kernel overwrites every entry
        losses: { shape: [4] },
      },
      build: (ctx, t) => {
        const kernel = new DistillLoss(ctx, kind, B, n, T, 2);
        kernel.setScale(scale);
        const { scores, teacher, dscores, losses } = t;
        return { record: (enc) => kernel.forwardBackward(enc, { scores, teacher, dscores, losses }) };
      },
      reference: (h) => {
        const forward =
          kind === 'kl' ? klDistillForward(h.scores, h.teacher, B, n, T) : marginMseForward(h.scores, h.teacher, B, n);
        const dscores =
          kind === 'kl'
            ? klDistillBackward(h.scores, h.teacher, B, n, T, scale)
            : marginMseBackward(h.scores, h.teacher, B, n, scale);
        return { losses: [h.losses[0], h.losses[1], forward, h.losses[3]], dscores };
      },
      checks: { losses: { tol: { rtol: 1e-4, atol: 1e-4, combine: 'max' } }, dscores: { tol: { rtol: 1e-4, atol: 1e-6 } } },
    });
  });
});
