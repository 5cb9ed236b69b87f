// Non-finite flags on the GPU: a NaN or an Inf injected into a gradient or a loss slot sets exactly its bit and the
// step; finite data (extremes, -0, subnormals) sets none; the flags are sticky until reset.
import { describe, expect, it } from 'vitest';
import { decodeFlags, FiniteMonitor, NO_STEP } from '../../../src/kernels/finite-check.ts';
import { finiteCheckForward } from '../../../src/kernels/reference/finite-check.ts';
import { Random } from '../../../src/util/random.ts';
import { expectKernel } from '../../helpers/expect-kernel.ts';
import { gpuContext } from '../../helpers/gpu.ts';

const LOSS_PARTS = ['ranking loss', 'FLOPS of queries', 'FLOPS of documents'];

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

const CASES: [string, Injection[]][] = [
  ['finite data (extremes, -0, subnormals) sets no flag', []],
  ['a quiet NaN in the largest gradient', [{ tensor: 'dweight', at: 40000, bits: 0x7fc00000 }]],
  [
    "a NaN at the last element of the largest gradient (the last step of an invocation's walk)",
    [{ tensor: 'dweight', at: 70000, bits: 0x7fc00001 }],
  ],
  [
    '+Inf at the last element of a gradient and a negative NaN in the loss of queries',
    [
      { tensor: 'dbias', at: 256, bits: 0x7f800000 },
      { tensor: 'losses', at: 1, bits: 0xffc00001 },
    ],
  ],
  [
    '-Inf in the one-element gradient and a signalling NaN in the ranking loss',
    [
      { tensor: 'dscale', at: 0, bits: 0xff800000 },
      { tensor: 'losses', at: 0, bits: 0x7f800001 },
    ],
  ],
  [
    'every gradient bad in every element',
    Object.entries(SIZES).flatMap(([tensor, n]) => Array.from({ length: n }, (_, at) => ({ tensor, at, bits: 0x7fc00000 }))),
  ],
];

describe('finite check', () => {
  it.each(CASES)('%s', async (_, injections) => {
    const random = new Random(3);
    const data: Record<string, Float32Array> = { losses: Float32Array.from([0.7, 12.5, 3.25]) };
    for (const [name, n] of Object.entries(SIZES)) {
      data[name] = Float32Array.from(random.normals(n));
      data[name].set(EXTREMES.subarray(0, Math.min(n, EXTREMES.length)));
    }
    for (const { tensor, at, bits } of injections) new Uint32Array(data[tensor].buffer)[at] = bits;
    const step = 12;
    const order = ['losses', 'dweight', 'dbias', 'dnorm', 'dscale'];
    const report = await expectKernel(await gpuContext(), {
      name: `finite check: ${_}`,
      tensors: Object.fromEntries(order.map((name) => [name, { shape: [data[name].length], data: data[name] }])),
      build: (ctx, t) => {
        const monitor = new FiniteMonitor(ctx, [
          { name: 'loss parts', tensor: t.losses, elements: LOSS_PARTS },
          ...order.slice(1).map((name) => ({ name, tensor: t[name] })),
        ]);
        return { record: (enc) => monitor.record(enc, step), tensors: { flags: monitor.flags } };
      },
      reference: (h) => ({
        flags: finiteCheckForward(
          [{ values: h.losses, perElement: true }, ...order.slice(1).map((name) => ({ values: h[name] }))],
          step,
        ),
      }),
      checks: { flags: {} },
    });
    const health = decodeFlags(report.gpu.flags, [...LOSS_PARTS, ...order.slice(1)]);
    const named = (i: Injection) => (i.tensor === 'losses' ? LOSS_PARTS[i.at] : i.tensor);
    const expected = [...LOSS_PARTS, ...order.slice(1)].filter((name) => injections.some((i) => named(i) === name));
    expect(health).toEqual({ finite: injections.length === 0, parts: expected, firstStep: injections.length ? step : null });
  });

  it('keeps its flags and the first bad step across later steps until reset', async () => {
    const ctx = await gpuContext();
    const scope = ctx.owned(() => {
      const values = ctx.tensor('gradient', [5], 'f32', [1, 2, NaN, 4, 5]);
      return { values, monitor: new FiniteMonitor(ctx, [{ name: 'gradient', tensor: values }]) };
    });
    const { values, monitor } = scope.value;
    await ctx.run('step 3', (enc) => monitor.record(enc, 3));
    ctx.upload(values, [1, 2, 3, 4, 5]);
    await ctx.run('step 4', (enc) => monitor.record(enc, 4));
    expect(await monitor.read()).toEqual({ finite: false, parts: ['gradient'], firstStep: 3 });
    monitor.resetNow();
    await ctx.run('step 5', (enc) => monitor.record(enc, 5));
    expect(await monitor.read()).toEqual({ finite: true, parts: [], firstStep: null });
    expect([...(await ctx.read(monitor.flags))]).toEqual([NO_STEP, 0]);
    scope.destroy();
  });

  it('refuses what it cannot watch', async () => {
    const ctx = await gpuContext();
    expect(() => new FiniteMonitor(ctx, [])).toThrow(/nothing to watch/);
    const ids = ctx.tensor('ids', [4], 'u32');
    expect(() => new FiniteMonitor(ctx, [{ name: 'ids', tensor: ids }])).toThrow(/not f32/);
    const losses = ctx.tensor('losses', [2], 'f32');
    expect(() => new FiniteMonitor(ctx, [{ name: 'losses', tensor: losses, elements: LOSS_PARTS }])).toThrow(/3 element names/);
  });
});
