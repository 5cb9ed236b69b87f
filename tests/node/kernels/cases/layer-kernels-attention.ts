// Attention kernels (softmax with padding mask and sliding window, head permutes, rotary, batched matmuls) against the
// float64 references of src/kernels/reference/attention.ts.
import { type AttentionDims } from '../../../../src/kernels/attention.ts';
import { Attention } from '../../../../src/model/gpu/attention.ts';
import {
  attentionBackward,
  attentionForward,
  ropeBackward,
  ropeForward,
  ropeInverseFrequencies,
  ropeTable,
} from '../../../../src/kernels/reference/attention.ts';
import type { KernelCase, KernelFamily } from './kernel-case.ts';

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

function attentionCase(label: string, c: Case): KernelCase {
  return {
    name: `forward (out, probs, rotated q/k) and backward (dqkv) match the reference: ${label}`,
    make: () => {
      const { B, T, NH, hd } = c.dims;
      const d = NH * hd;
      const mask = new Float64Array(B * T);
      c.lengths.forEach((length, b) => mask.fill(1, b * T, b * T + length));
      const accumulate = c.accumulate ?? false;
      return {
        name: `attention ${label}`,
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
      };
    },
  };
}

export const layerKernelsAttention: KernelFamily = {
  family: 'layer-kernels-attention',
  groups: [{ describe: 'attention kernels', cases: CASES.map(([label, c]) => attentionCase(label, c)) }],
};
