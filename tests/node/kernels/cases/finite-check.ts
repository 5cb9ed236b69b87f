// Non-finite flags: a NaN or an Inf injected into a gradient or a loss slot sets exactly its bit and the step; finite
// data (extremes, -0, subnormals) sets none.
import { decodeFlags, FiniteMonitor } from '../../../../src/kernels/finite-check.ts';
import { finiteCheckForward } from '../../../../src/kernels/reference/finite-check.ts';
import { Random } from '../../../../src/util/random.ts';
import type { KernelCase, KernelFamily } from './kernel-case.ts';

export const LOSS_PARTS = ['ranking loss', 'FLOPS of queries', 'FLOPS of documents'];

/** f32 values from raw bit patterns (NaN payloads, signs and subnormals kept exactly). */
function fromBits(...words: number[]): Float32Array {
  return new Float32Array(Uint32Array.from(words).buffer);
}

/** Finite values that must never raise a flag: the largest finite f32, -0, subnormals. */
const EXTREMES = fromBits(0x7f7fffff, 0xff7fffff, 0x80000000, 0x00000001, 0x807fffff, 0x3f800000);

interface Injection {
  tensor: string;
  at: number;
  /** the bit pattern written there */
  bits: number;
}

// Gradient sizes 1, 7, 257 and 70001 (5 workgroups of 256 invocations, each walking up to 64 elements with the grid's
// stride); the loss parts are three named scalars.
const SIZES: Record<string, number> = { dweight: 70001, dbias: 257, dnorm: 7, dscale: 1 };

function finiteCheckCase(name: string, injections: Injection[]): KernelCase {
  const step = 12;
  const order = ['losses', 'dweight', 'dbias', 'dnorm', 'dscale'];
  return {
    name,
    make: () => {
      const random = new Random(3);
      const data: Record<string, Float32Array> = { losses: Float32Array.from([0.7, 12.5, 3.25]) };
      for (const [tensor, n] of Object.entries(SIZES)) {
        data[tensor] = Float32Array.from(random.normals(n));
        data[tensor].set(EXTREMES.subarray(0, Math.min(n, EXTREMES.length)));
      }
      for (const { tensor, at, bits } of injections) new Uint32Array(data[tensor].buffer)[at] = bits;
      return {
        name: `finite check: ${name}`,
        tensors: Object.fromEntries(order.map((tensor) => [tensor, { shape: [data[tensor].length], data: data[tensor] }])),
        build: (ctx, t) => {
          const monitor = new FiniteMonitor(ctx, [
            { name: 'loss parts', tensor: t.losses, elements: LOSS_PARTS },
            ...order.slice(1).map((tensor) => ({ name: tensor, tensor: t[tensor] })),
          ]);
          return { record: (enc) => monitor.record(enc, step), tensors: { flags: monitor.flags } };
        },
        reference: (h) => ({
          flags: finiteCheckForward(
            [{ values: h.losses, perElement: true }, ...order.slice(1).map((tensor) => ({ values: h[tensor] }))],
            step,
          ),
        }),
        checks: { flags: {} },
      };
    },
    // the flags decode to exactly the injected parts and the step
    then: (report, expect) => {
      const health = decodeFlags(report.gpu.flags, [...LOSS_PARTS, ...order.slice(1)]);
      const named = (i: Injection) => (i.tensor === 'losses' ? LOSS_PARTS[i.at] : i.tensor);
      const expected = [...LOSS_PARTS, ...order.slice(1)].filter((part) => injections.some((i) => named(i) === part));
      expect(health).toEqual({ finite: injections.length === 0, parts: expected, firstStep: injections.length ? step : null });
    },
  };
}

export const finiteCheck: KernelFamily = {
  family: 'finite-check',
  groups: [
    {
      describe: 'finite check',
      cases: [
        finiteCheckCase('finite data (extremes, -0, subnormals) sets no flag', []),
        finiteCheckCase('a quiet NaN in the largest gradient', [{ tensor: 'dweight', at: 40000, bits: 0x7fc00000 }]),
        finiteCheckCase("a NaN at the last element of the largest gradient (the last step of an invocation's walk)", [
          { tensor: 'dweight', at: 70000, bits: 0x7fc00001 },
        ]),
        finiteCheckCase('+Inf at the last element of a gradient and a negative NaN in the loss of queries', [
          { tensor: 'dbias', at: 256, bits: 0x7f800000 },
          { tensor: 'losses', at: 1, bits: 0xffc00001 },
        ]),
        finiteCheckCase('-Inf in the one-element gradient and a signalling NaN in the ranking loss', [
          { tensor: 'dscale', at: 0, bits: 0xff800000 },
          { tensor: 'losses', at: 0, bits: 0x7f800001 },
        ]),
        finiteCheckCase(
          'every gradient bad in every element',
          Object.entries(SIZES).flatMap(([tensor, n]) =>
            Array.from({ length: n }, (_, at) => ({ tensor, at, bits: 0x7fc00000 })),
          ),
        ),
      ],
    },
  ],
};
