// Non-finite flags on the GPU: a NaN or an Inf injected into a gradient or a loss slot sets exactly its bit and the
// step; finite data (extremes, -0, subnormals) sets none; the flags are sticky until reset.
import { describe, expect, it } from 'vitest';
import { FiniteMonitor, NO_STEP } from '../../../src/kernels/finite-check.ts';
import { describeKernelFamily } from '../../helpers/expect-kernel.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { finiteCheck, LOSS_PARTS } from './cases/finite-check.ts';

describeKernelFamily(finiteCheck);

describe('finite check', () => {
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
