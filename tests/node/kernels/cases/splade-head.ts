// Fused SPLADE head: the GPU kernels against the float64 reference on odd shapes (padding, fully masked rows, V past
// 65535, the tiled forward), gradients added into what is there.
import { NO_TOKEN, SpladeHead, type SpladeHeadDims, type SpladeHeadTuning } from '../../../../src/kernels/splade-head.ts';
import { spladeHeadBackward, spladeHeadForward } from '../../../../src/kernels/reference/splade-head.ts';
import { Random } from '../../../../src/util/random.ts';
import type { KernelCase, KernelFamily } from './kernel-case.ts';

/** Token counts per sequence: `lengths[b]` real tokens, then padding (0 = a fully masked row). */
export function maskOf(dims: SpladeHeadDims, lengths: number[]): Float64Array {
  const mask = new Float64Array(dims.B * dims.T);
  for (let b = 0; b < dims.B; b++) for (let t = 0; t < lengths[b]; t++) mask[b * dims.T + t] = 1;
  return mask;
}

interface Case {
  dims: SpladeHeadDims;
  lengths: number[];
  tuning?: Partial<SpladeHeadTuning>;
}

/** Dyadic inputs: every logit is exact in f32, so GPU and float64 agree on every max and tie (ties are frequent). */
export function dyadicInputs(dims: SpladeHeadDims, lengths: number[], seed: number) {
  const random = new Random(seed);
  const q = (n: number, scale: number, lo: number, hi: number) =>
    Float64Array.from({ length: n }, () => (lo + random.int(hi - lo + 1)) / scale);
  return {
    hidden: q(dims.B * dims.T * dims.d, 8, -4, 4),
    weight: q(dims.V * dims.d, 8, -4, 4),
    bias: q(dims.V, 64, -64, 16),
    mask: maskOf(dims, lengths),
  };
}

const T257 = Array.from({ length: 5 }, (_, b) => [257, 200, 0, 1, 256][b]);

const CASES: Case[] = [
  { dims: { B: 1, T: 1, d: 16, V: 1000 }, lengths: [1] },
  { dims: { B: 3, T: 7, d: 32, V: 523 }, lengths: [7, 4, 0] },
  { dims: { B: 5, T: 257, d: 16, V: 523 }, lengths: T257 },
  { dims: { B: 70, T: 7, d: 16, V: 1000 }, lengths: Array.from({ length: 70 }, (_, b) => b % 8) },
  // V over 65535, one invocation per workgroup: the weight gradient's 70001 workgroups fold into a 2-D grid
  { dims: { B: 1, T: 3, d: 4, V: 70_001 }, lengths: [3], tuning: { backwardWorkgroup: 1 } },
  // the GPU-shaped forward (workgroup tiles of W and H): odd shapes, d not a multiple of its slice, padding tiles skipped
  { dims: { B: 1, T: 1, d: 16, V: 1000 }, lengths: [1], tuning: { forwardVariant: 'tiled' } },
  { dims: { B: 3, T: 9, d: 12, V: 600 }, lengths: [9, 4, 0], tuning: { forwardVariant: 'tiled' } },
  { dims: { B: 5, T: 257, d: 16, V: 523 }, lengths: T257, tuning: { forwardVariant: 'tiled' } },
  { dims: { B: 4, T: 17, d: 4, V: 70_001 }, lengths: [17, 8, 1, 16], tuning: { forwardVariant: 'tiled', forwardWorkgroup: 32 } },
];

/** The tuning as the tests' names show it (Vitest's `$tuning`: past 40 characters, the first key and a count). */
function shownTuning(tuning?: Partial<SpladeHeadTuning>): string {
  if (!tuning) return 'undefined';
  const entries = Object.entries(tuning).map(([key, value]) => `${key}: ${typeof value === 'string' ? `'${value}'` : value}`);
  const all = `{ ${entries.join(', ')} }`;
  return all.length <= 40 ? all : `{ ${entries[0]}, …(${entries.length - 1}) }`;
}

function headCase({ dims, lengths, tuning }: Case): KernelCase {
  let active = 0;
  return {
    name: `forward and accumulating backward, B=${dims.B} T=${dims.T} d=${dims.d} V=${dims.V} ${shownTuning(tuning)}`,
    make: () => {
      const { B, T, d, V } = dims;
      const x = dyadicInputs(dims, lengths, B * 1000 + T);
      const ref = spladeHeadForward(x, dims);
      active = ref.argmax.filter((t) => t !== NO_TOKEN).length;
      const random = new Random(5);
      const tol = { rtol: 1e-5, atol: 1e-5 };
      return {
        name: `splade head B=${B} T=${T} d=${d} V=${V}`,
        tensors: {
          hidden: { shape: [B, T, d], data: x.hidden },
          weight: { shape: [V, d], data: x.weight },
          bias: { shape: [V], data: x.bias },
          mask: { shape: [B, T], dtype: 'u32', data: x.mask },
          pooled: { shape: [B, V] },
          argmax: { shape: [B, V], dtype: 'u32' },
          // backward adds into gradients that already hold values
          dpooled: { shape: [B, V], data: random.normals(B * V) },
          dhidden: { shape: [B, T, d], data: random.normals(B * T * d) },
          dweight: { shape: [V, d], data: random.normals(V * d) },
          dbias: { shape: [V], data: random.normals(V) },
        },
        build: (ctx, t) => {
          const head = new SpladeHead(ctx, dims, tuning);
          const { hidden, weight, bias, mask, pooled, argmax, dpooled, dhidden, dweight, dbias } = t;
          return {
            record: (enc) => {
              head.forward(enc, { hidden, weight, bias, mask, pooled, argmax });
              head.backward(enc, { hidden, weight, pooled, argmax, dpooled, dhidden, dweight, dbias });
            },
          };
        },
        reference: (h, gpu) => {
          // the reference's dlogit from the GPU's own f32 pooled values isolates the backward from forward rounding
          const grads = spladeHeadBackward(x, { pooled: gpu.pooled, argmax: ref.argmax }, h.dpooled, dims);
          return { pooled: ref.pooled, argmax: ref.argmax, ...grads };
        },
        checks: {
          argmax: {},
          pooled: { tol: { rtol: 2e-6, atol: 1e-7 } },
          // a token's dhidden is an f32 sum over its bucket: ~V / T terms (23k when V = 70001, T = 3) round further
          dhidden: { tol: V / T > 1000 ? { rtol: 1e-4, atol: 1e-4 } : tol, accumulates: true },
          dweight: { tol, accumulates: true },
          dbias: { tol, accumulates: true },
        },
      };
    },
    then: (_, expect) => {
      // the reference's inputs exercise both branches
      expect(active, 'some columns are active').toBeGreaterThan(0);
      expect(active, 'some columns are zero').toBeLessThan(dims.B * dims.V);
    },
  };
}

export const spladeHead: KernelFamily = {
  family: 'splade-head',
  groups: [{ describe: 'splade head on the GPU vs the float64 reference', cases: CASES.map(headCase) }],
};
