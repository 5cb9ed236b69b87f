// Scores, contrastive and distillation losses and FLOPS: the GPU kernels against their float64 references.
import { ContrastiveLoss } from '../../../../src/kernels/contrastive-loss.ts';
import { DistillLoss, teacherWidth } from '../../../../src/kernels/distill-loss.ts';
import { FlopsLoss } from '../../../../src/kernels/flops-loss.ts';
import {
  klDistillBackward,
  klDistillForward,
  marginMseBackward,
  marginMseForward,
} from '../../../../src/kernels/reference/distill-loss.ts';
import { contrastiveLossBackward, contrastiveLossForward } from '../../../../src/kernels/reference/contrastive-loss.ts';
import { flopsLossBackward, flopsLossForward } from '../../../../src/kernels/reference/flops-loss.ts';
import { sparseScoresBackward, sparseScoresForward } from '../../../../src/kernels/reference/sparse-scores.ts';
import { SparseScores } from '../../../../src/kernels/sparse-scores.ts';
import { Random } from '../../../../src/util/random.ts';
import type { KernelCase, KernelFamily } from './kernel-case.ts';

/** Non-negative sparse vectors like pooled SPLADE outputs: about `density` of the entries are positive. */
function sparseVectors(random: Random, rows: number, V: number, density = 0.3): Float64Array {
  const out = new Float64Array(rows * V);
  for (let i = 0; i < out.length; i++) if (random.next() < density) out[i] = 0.05 + 2 * random.next();
  return out;
}

const F32 = { rtol: 2e-5, atol: 1e-5 };

function scoresCase(B: number, N: number, V: number): KernelCase {
  return {
    name: `GPU forward and backward match the reference for B=${B} N=${N} V=${V}`,
    make: () => {
      const random = new Random(B * 1000 + V);
      const tol = { rtol: 1e-4, atol: 1e-4 * Math.sqrt(V) };
      return {
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
      };
    },
  };
}

function contrastiveCase(B: number, N: number, tau: number, scale: number): KernelCase {
  return {
    name: `GPU matches the reference for B=${B} N=${N} tau=${tau} scale=${scale}`,
    make: () => ({
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
    }),
  };
}

function flopsCase(N: number, V: number, lambda: number): KernelCase {
  return {
    name: `GPU matches the reference for N=${N} V=${V} lambda=${lambda}`,
    make: () => ({
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
    }),
  };
}

function distillCase(kind: 'marginmse' | 'kl', B: number, n: number, T: number, scale: number): KernelCase {
  return {
    name: `GPU ${kind} matches the reference for B=${B} n=${n} T=${T} scale=${scale}`,
    make: () => {
      const N = (1 + n) * B;
      const width = teacherWidth(kind, n);
      const random = new Random(B * 31 + n);
      return {
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
      };
    },
  };
}

export const losses: KernelFamily = {
  family: 'losses',
  groups: [
    {
      describe: 'sparse scores',
      cases: [
        scoresCase(1, 2, 1),
        scoresCase(1, 1, 257),
        scoresCase(3, 6, 1000),
        scoresCase(7, 14, 523),
        scoresCase(70, 140, 33),
      ],
    },
    {
      describe: 'contrastive loss',
      cases: [
        contrastiveCase(1, 2, 1.0, 1),
        contrastiveCase(5, 10, 1.0, 0.5),
        contrastiveCase(7, 7, 0.05, 1),
        contrastiveCase(300, 600, 1.0, 2),
      ],
    },
    {
      describe: 'FLOPS regulariser',
      cases: [flopsCase(1, 1, 0.05), flopsCase(2, 257, 3e-3), flopsCase(14, 1000, 1), flopsCase(300, 33, 0.5)],
    },
    {
      describe: 'distillation losses',
      cases: [
        distillCase('marginmse', 1, 1, 1, 1),
        distillCase('marginmse', 7, 3, 1, 0.5),
        distillCase('marginmse', 300, 2, 1, 2),
        distillCase('kl', 1, 1, 1, 1),
        distillCase('kl', 7, 3, 0.3, 1),
        distillCase('kl', 300, 2, 2, 0.5),
      ],
    },
  ],
};
