// Scores, contrastive loss and FLOPS: references against finite differences, GPU kernels against references.
import { describe, expect, it } from 'vitest';
import { ContrastiveLoss } from '../../src/kernels/contrastive-loss.ts';
import { FlopsLoss } from '../../src/kernels/flops-loss.ts';
import { contrastiveLossBackward, contrastiveLossForward } from '../../src/kernels/reference/contrastive-loss.ts';
import { flopsLossBackward, flopsLossForward } from '../../src/kernels/reference/flops-loss.ts';
import { sparseScoresBackward, sparseScoresForward } from '../../src/kernels/reference/sparse-scores.ts';
import { SparseScores } from '../../src/kernels/sparse-scores.ts';
import { Random } from '../../src/util/random.ts';
import { expectClose } from '../helpers/compare.ts';
import { checkGradients } from '../helpers/gradcheck.ts';
import { gpuContext } from '../helpers/gpu.ts';

/** Non-negative sparse vectors like pooled SPLADE outputs: about `density` of the entries are positive. */
function sparseVectors(random: Random, rows: number, V: number, density = 0.3): Float64Array {
  const out = new Float64Array(rows * V);
  for (let i = 0; i < out.length; i++) if (random.next() < density) out[i] = 0.05 + 2 * random.next();
  return out;
}

const F32 = { rtol: 2e-5, atol: 1e-5 };

describe('sparse scores', () => {
  it('reference gradient matches finite differences', () => {
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
    const ctx = await gpuContext();
    const random = new Random(B * 1000 + V);
    const q = sparseVectors(random, B, V);
    const d = sparseVectors(random, N, V);
    const dscores = random.normals(B * N);
    const kernel = new SparseScores(ctx, B, N, V);
    const tq = ctx.tensor('q', [B, V], 'f32', q);
    const td = ctx.tensor('d', [N, V], 'f32', d);
    const ts = ctx.tensor('scores', [B, N], 'f32');
    const tdS = ctx.tensor('dscores', [B, N], 'f32', dscores);
    const initial = random.normals(B * V);
    const tdq = ctx.tensor('dq', [B, V], 'f32', initial);
    const tdd = ctx.tensor('dd', [N, V], 'f32');
    await ctx.run('scores', (enc) => {
      kernel.forward(enc, { queries: tq, docs: td, scores: ts });
      kernel.backward(enc, { queries: tq, docs: td, dscores: tdS, dqueries: tdq, ddocs: tdd });
    });
    const tol = { rtol: 1e-4, atol: 1e-4 * Math.sqrt(V) };
    expectClose('scores', await ctx.read(ts), sparseScoresForward(q, d, B, N, V), tol);
    const g = sparseScoresBackward(q, d, new Float64Array(await ctx.read(tdS)), B, N, V);
    expectClose('dqueries (accumulated)', await ctx.read(tdq), g.dqueries.map((x, i) => x + Math.fround(initial[i])), tol);
    expectClose('ddocs', await ctx.read(tdd), g.ddocs, tol);
  });
});

describe('contrastive loss', () => {
  it('reference gradient matches finite differences', () => {
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
    const ctx = await gpuContext();
    const random = new Random(B + N);
    const s = random.normals(B * N, 20); // large scores, as untrained large-norm heads give
    const kernel = new ContrastiveLoss(ctx, B, N, tau, 1);
    kernel.setScale(scale);
    const ts = ctx.tensor('scores', [B, N], 'f32', s);
    const tdS = ctx.tensor('dscores', [B, N], 'f32');
    const losses = ctx.tensor('losses', [4], 'f32');
    await ctx.run('contrastive', (enc) => kernel.forwardBackward(enc, { scores: ts, dscores: tdS, losses }));
    const s32 = new Float64Array(await ctx.read(ts));
    const loss = (await ctx.read(losses))[1];
    expect(loss).toBeCloseTo(contrastiveLossForward(s32, B, N, tau), 2);
    expect(Math.abs(loss - contrastiveLossForward(s32, B, N, tau))).toBeLessThan(1e-4 * Math.max(1, Math.abs(loss)));
    expectClose('dscores', await ctx.read(tdS), contrastiveLossBackward(s32, B, N, tau, scale), { rtol: 1e-4, atol: 1e-6 });
  });
});

describe('FLOPS regulariser', () => {
  it('reference gradient matches finite differences', () => {
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
    const ctx = await gpuContext();
    const random = new Random(N * 7 + V);
    const x = sparseVectors(random, N, V, 0.5);
    const kernel = new FlopsLoss(ctx, N, V, 2);
    kernel.setLambda(lambda);
    const tx = ctx.tensor('x', [N, V], 'f32', x);
    const initial = random.normals(N * V);
    const tdx = ctx.tensor('dx', [N, V], 'f32', initial);
    const losses = ctx.tensor('losses', [4], 'f32');
    await ctx.run('flops', (enc) => {
      kernel.forward(enc, { vectors: tx, losses });
      kernel.backward(enc, { vectors: tx, dvectors: tdx });
    });
    const x32 = new Float64Array(await ctx.read(tx));
    const expected = flopsLossForward(x32, N, V);
    expect(Math.abs((await ctx.read(losses))[2] - expected)).toBeLessThan(1e-5 * Math.max(1, expected));
    const grad = flopsLossBackward(x32, N, V, lambda).map((g, i) => g + Math.fround(initial[i]));
    expectClose('dx (accumulated)', await ctx.read(tdx), grad, F32);
  });
});
