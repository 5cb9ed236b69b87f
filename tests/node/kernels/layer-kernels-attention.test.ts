// Attention kernels (softmax with padding mask and sliding window, head permutes, rotary, batched matmuls) against the
// float64 references of src/kernels/reference/attention.ts.
import { describe, expect, it } from 'vitest';
import { Attention } from '../../../src/model/gpu/attention.ts';
import { Random } from '../../../src/util/random.ts';
import { expectClose } from '../../helpers/compare.ts';
import { describeKernelFamily } from '../../helpers/expect-kernel.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { layerKernelsAttention } from './cases/layer-kernels-attention.ts';

const f32 = (a: Float64Array) => a.map(Math.fround);

describeKernelFamily(layerKernelsAttention);

describe('attention kernels', () => {
  it('recomputes probs in backward (recomputeProbs) and gives the saved-probs results bit for bit, across two layers', async () => {
    const ctx = await gpuContext();
    const dims = { B: 2, T: 9, NH: 2, hd: 6 };
    const d = dims.NH * dims.hd;
    const random = new Random(21);
    const mask = ctx.tensor('mask', [2, 9], 'u32', [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0]);
    const layers = [0, 1].map((i) => ({
      qkv: ctx.tensor(`qkv ${i}`, [2, 9, 3 * d], 'f32', random.normals(2 * 9 * 3 * d)),
      dout: ctx.tensor(`dout ${i}`, [2, 9, d], 'f32', random.normals(2 * 9 * d)),
      out: ctx.tensor(`out ${i}`, [2, 9, d], 'f32'),
      dqkv: ctx.tensor(`dqkv ${i}`, [2, 9, 3 * d], 'f32'),
    }));
    const results: Float32Array[][] = [];
    for (const recomputeProbs of [false, true]) {
      const attention = new Attention(ctx, dims, { halfWindow: 3, rope: 10000, recomputeProbs });
      const states = layers.map((_, i) => attention.createState(`layer ${i}`));
      expect(states[0].probs === states[1].probs, 'probs shared between layers').toBe(recomputeProbs);
      await ctx.run('two layers', (enc) => {
        layers.forEach((l, i) => attention.forward(enc, { out: l.out, qkv: l.qkv, mask, state: states[i] }));
        for (const i of [1, 0]) attention.backward(enc, { dqkv: layers[i].dqkv, dout: layers[i].dout, state: states[i] });
      });
      results.push(await Promise.all(layers.flatMap((l) => [ctx.read(l.out), ctx.read(l.dqkv)])));
    }
    results[1].forEach((values, i) => expectClose(`tensor ${i}`, values, results[0][i], { rtol: 0, atol: 0 }));
  });

  it('accumulates into dqkv with accumulate: true', async () => {
    const ctx = await gpuContext();
    const dims = { B: 2, T: 5, NH: 2, hd: 4 };
    const d = dims.NH * dims.hd;
    const random = new Random(11);
    const qkv = ctx.tensor('qkv', [2, 5, 3 * d], 'f32', random.normals(2 * 5 * 3 * d));
    const mask = ctx.tensor('mask', [2, 5], 'u32', [1, 1, 1, 1, 1, 1, 1, 1, 0, 0]);
    const dout = ctx.tensor('dout', [2, 5, d], 'f32', random.normals(2 * 5 * d));
    const out = ctx.tensor('out', [2, 5, d], 'f32');
    const start = f32(random.normals(2 * 5 * 3 * d));
    const results: Float32Array[] = [];
    for (const accumulate of [false, true]) {
      const attention = new Attention(ctx, dims, { halfWindow: 1, rope: 10000, accumulate });
      const state = attention.createState('layer');
      const dqkv = ctx.tensor('dqkv', [2, 5, 3 * d], 'f32', start);
      await ctx.run('attention', (enc) => {
        attention.forward(enc, { out, qkv, mask, state });
        attention.backward(enc, { dqkv, dout, state });
      });
      results.push(await ctx.read(dqkv));
    }
    expectClose(
      'accumulated - overwritten = start',
      results[1].map((x, i) => x - results[0][i]),
      start,
      { rtol: 1e-5, atol: 1e-5 },
    );
  });

  it('gives a query with no visible key all-zero probabilities and output (no NaN)', async () => {
    const ctx = await gpuContext();
    const dims = { B: 1, T: 9, NH: 1, hd: 4 };
    const random = new Random(2);
    // 3 real tokens, window ±1: query 3 still sees key 2, queries 4..8 see only padding.
    const attention = new Attention(ctx, dims, { halfWindow: 1, rope: null });
    const state = attention.createState('layer');
    const qkv = ctx.tensor('qkv', [1, 9, 12], 'f32', random.normals(9 * 12));
    const mask = ctx.tensor('mask', [1, 9], 'u32', [1, 1, 1, 0, 0, 0, 0, 0, 0]);
    const out = ctx.tensor('out', [1, 9, 4], 'f32');
    const dqkv = ctx.tensor('dqkv', [1, 9, 12], 'f32');
    const dout = ctx.tensor('dout', [1, 9, 4], 'f32', random.normals(9 * 4));
    await ctx.run('attention', (enc) => {
      attention.forward(enc, { out, qkv, mask, state });
      attention.backward(enc, { dqkv, dout, state });
    });
    const probs = await ctx.read(state.probs);
    const rowSum = (i: number) => probs.slice(i * 9, i * 9 + 9).reduce((a, b) => a + b, 0);
    for (let i = 0; i < 9; i++) expect(rowSum(i), `row ${i}`).toBeCloseTo(i < 4 ? 1 : 0, 6);
    expect([...(await ctx.read(out)).slice(4 * 4)].every((x) => x === 0)).toBe(true);
    expect([...(await ctx.read(dqkv))].every(Number.isFinite)).toBe(true);
  });
});
