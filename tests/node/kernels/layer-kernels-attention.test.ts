// Attention kernels (softmax with padding mask and sliding window, head permutes, rotary, batched matmuls) against the
// float64 references of src/kernels/reference/attention.ts.
import { describe, expect, it } from 'vitest';
import { type AttentionDims } from '../../../src/kernels/attention.ts';
import { Attention } from '../../../src/model/gpu/attention.ts';
import {
  attentionBackward,
  attentionForward,
  ropeBackward,
  ropeForward,
  ropeInverseFrequencies,
  ropeTable,
} from '../../../src/kernels/reference/attention.ts';
import { Random } from '../../../src/util/random.ts';
import { expectClose } from '../../helpers/compare.ts';
import { expectKernel } from '../../helpers/expect-kernel.ts';
import { gpuContext } from '../../helpers/gpu.ts';

const f32 = (a: Float64Array) => a.map(Math.fround);

interface Case {
  dims: AttentionDims;
  /** real tokens per sequence (the rest is padding at the end) */
  lengths: number[];
  halfWindow: number | null;
  rope: number | Float64Array | null;
  maskType: 'u32' | 'f32';
  /** lanes per softmax row; absent: the adapter's default (4 on SwiftShader) */
  softmaxWorkgroup?: number;
  /** backward adds into dqkv */
  accumulate?: boolean;
}

// Padding never exceeds the half window, so every query (padded ones too) sees a real key, as the reference requires.
const CASES: [string, Case][] = [
  ['T=1, one head', { dims: { B: 1, T: 1, NH: 1, hd: 4 }, lengths: [1], halfWindow: null, rope: null, maskType: 'u32' }],
  [
    'T=7 global with padding',
    { dims: { B: 2, T: 7, NH: 2, hd: 6 }, lengths: [7, 4], halfWindow: null, rope: null, maskType: 'f32' },
  ],
  [
    'T=7 window ±2 with rotary',
    { dims: { B: 2, T: 7, NH: 2, hd: 6 }, lengths: [5, 7], halfWindow: 2, rope: 10000, maskType: 'u32' },
  ],
  [
    'T=33 global with rotary and padding',
    {
      dims: { B: 3, T: 33, NH: 3, hd: 8 },
      lengths: [33, 20, 1],
      halfWindow: null,
      rope: 160000,
      maskType: 'u32',
      softmaxWorkgroup: 16,
    },
  ],
  // B·NH·T = 70000 softmax rows (one workgroup each) fold into y past 65535 workgroups.
  [
    '70000 rows, folded grid',
    {
      dims: { B: 2500, T: 7, NH: 4, hd: 2 },
      lengths: Array.from({ length: 2500 }, (_, b) => 7 - (b % 4)),
      halfWindow: null,
      rope: 10000,
      maskType: 'u32',
    },
  ],
  [
    'T=33 window ±4 with rotary and padding',
    {
      dims: { B: 2, T: 33, NH: 2, hd: 10 },
      lengths: [30, 33],
      halfWindow: 4,
      rope: 10000,
      maskType: 'f32',
      softmaxWorkgroup: 64,
    },
  ],
  [
    'T=9 global with NTK-scaled rotary (GTE)',
    {
      dims: { B: 2, T: 9, NH: 3, hd: 6 },
      lengths: [9, 5],
      halfWindow: null,
      rope: ropeInverseFrequencies(6, 500000, { factor: 2, mixedB: null }),
      maskType: 'u32',
    },
  ],
  [
    'T=5 window ±1, accumulating dqkv',
    { dims: { B: 2, T: 5, NH: 2, hd: 4 }, lengths: [5, 3], halfWindow: 1, rope: 10000, maskType: 'u32', accumulate: true },
  ],
];

/** (B, T, S·NH·hd) section s -> (B, NH, T, hd), on the host. */
function headsOf(tokens: Float64Array, dims: AttentionDims, S: number, s: number): Float64Array {
  const { B, T, NH, hd } = dims;
  const out = new Float64Array(B * NH * T * hd);
  for (let b = 0; b < B; b++)
    for (let h = 0; h < NH; h++)
      for (let t = 0; t < T; t++)
        for (let c = 0; c < hd; c++) out[((b * NH + h) * T + t) * hd + c] = tokens[((b * T + t) * S + s) * NH * hd + h * hd + c];
  return out;
}

describe('attention kernels', () => {
  it.each(CASES)('forward (out, probs, rotated q/k) and backward (dqkv) match the reference: %s', async (_, c) => {
    const { B, T, NH, hd } = c.dims;
    const d = NH * hd;
    const mask = new Float64Array(B * T);
    c.lengths.forEach((length, b) => mask.fill(1, b * T, b * T + length));
    const accumulate = c.accumulate ?? false;
    await expectKernel(await gpuContext(), {
      name: `attention ${_}`,
      seed: B * 1000 + T * 10 + hd,
      tensors: {
        qkv: { shape: [B, T, 3 * d] },
        mask: { shape: [B, T], dtype: c.maskType, data: mask },
        out: { shape: [B, T, d] },
        dout: { shape: [B, T, d] },
        dqkv: { shape: [B, T, 3 * d] }, // overwritten (added into with accumulate)
      },
      build: (ctx, t) => {
        const options = { halfWindow: c.halfWindow, rope: c.rope, softmaxWorkgroup: c.softmaxWorkgroup, accumulate };
        const attention = new Attention(ctx, c.dims, options);
        const state = attention.createState('layer 0');
        return {
          record: (enc) => {
            attention.forward(enc, { out: t.out, qkv: t.qkv, mask: t.mask, state });
            attention.backward(enc, { dqkv: t.dqkv, dout: t.dout, state });
          },
          tensors: { q: state.q, k: state.k, probs: state.probs },
        };
      },
      reference: (h) => {
        // rotary (if any) on q and k, then attention; backward in the opposite order
        const table = c.rope === null ? null : ropeTable(T, hd, c.rope);
        const rotated = table ? new Float64Array(h.qkv.length) : h.qkv;
        if (table) ropeForward(rotated, h.qkv, table, B, T, NH);
        const out = new Float64Array(B * T * d);
        const probs = new Float64Array(B * NH * T * T);
        attentionForward(out, probs, rotated, c.dims, { mask, halfWindow: c.halfWindow });
        const drotated = new Float64Array(h.qkv.length);
        attentionBackward(drotated, h.dout, probs, rotated, c.dims);
        let dqkv = drotated;
        if (table) {
          dqkv = new Float64Array(h.qkv.length);
          ropeBackward(dqkv, drotated, table, B, T, NH);
        }
        return { q: headsOf(rotated, c.dims, 3, 0), k: headsOf(rotated, c.dims, 3, 1), probs, out, dqkv };
      },
      checks: {
        q: { tol: { rtol: 1e-5, atol: 1e-6 } },
        k: { tol: { rtol: 1e-5, atol: 1e-6 } },
        probs: { tol: { rtol: 1e-5, atol: 1e-6 } },
        out: { tol: { rtol: 1e-5, atol: 1e-5 } },
        dqkv: { tol: { rtol: 1e-4, atol: 1e-5 }, accumulates: accumulate },
      },
    });
  });

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
