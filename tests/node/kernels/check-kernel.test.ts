// The kernel-test helper itself: it passes a correct kernel and names each kind of fault in a broken one.
import { describe, expect, it } from 'vitest';
import type { GpuContext, KernelSpec } from '../../../src/gpu/context.ts';
import type { Tensor } from '../../../src/gpu/tensor.ts';
import { checkKernel, type KernelTest } from '../../helpers/check-kernel.ts';
import { gpuContext } from '../../helpers/gpu.ts';

const SOURCE = /* wgsl */ `
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<storage, read_write> runs: array<f32>;
// y += 2 x
@compute @workgroup_size(64) fn add_twice(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < arrayLength(&y)) { y[id.x] += 2.0 * x[id.x]; }
}
// y += 2 x + (how many times this ran before): a kernel whose result depends on stale state
@compute @workgroup_size(64) fn add_twice_drifting(@builtin(global_invocation_id) id: vec3u) {
  if (id.x < arrayLength(&y)) { y[id.x] += 2.0 * x[id.x] + runs[0]; }
}
@compute @workgroup_size(1) fn count_run() { runs[0] += 1.0; }`;

const N = 70;

const spec = (entryPoint: string): KernelSpec => ({ family: 'test-check-kernel', source: SOURCE, entryPoint });

/** y (+)= 2x checked against `factor`·x; `fault` breaks the kernel or the test in one way. */
function addTwice(fault: 'none' | 'drift' | 'allocates', factor = 2, accumulates = true): KernelTest {
  return {
    name: `add twice (${fault})`,
    tensors: { x: { shape: [N] }, y: { shape: [N] } },
    build: (ctx: GpuContext, t: Record<string, Tensor>) => {
      const runs = ctx.tensor('runs', [1], 'f32');
      const entry = fault === 'drift' ? 'add_twice_drifting' : 'add_twice';
      return {
        record: (enc) => {
          if (fault === 'allocates') ctx.tensor('scratch made per run', [16], 'f32');
          ctx.dispatch(enc, spec(entry), [t.x, t.y, entry === 'add_twice' ? null : runs], [2], 'x[70]');
          if (fault === 'drift') ctx.dispatch(enc, spec('count_run'), [null, null, runs], [1], 'runs[1]');
        },
      };
    },
    reference: (h) => ({ y: h.x.map((v) => factor * v) }),
    checks: { y: { tol: { rtol: 1e-6, atol: 1e-6 }, accumulates } },
  };
}

describe('checkKernel', () => {
  it('passes a kernel that matches its reference, repeats and frees its memory', async () => {
    const report = await checkKernel(await gpuContext(), addTwice('none'));
    expect(report.failures).toEqual([]);
    expect(report.expected.y.length).toBe(N);
  });

  it.each([
    ['a wrong value', addTwice('none', 3), /y: element \d+ is .* expected .*70 of 70 elements outside/],
    ['an overwrite where the kernel adds (initial contents are not zero)', addTwice('none', 2, false), /y: element/],
    ['a result that changes from run to run', addTwice('drift'), /y differs between two identical runs/],
    ['an allocation per run, never freed', addTwice('allocates'), /running allocated 64 bytes[\s\S]*allocatedBytes is \d+ after/],
  ])('reports %s', async (_, test, message) => {
    const ctx = await gpuContext();
    const before = ctx.allocatedBytes;
    const report = await checkKernel(ctx, test);
    expect(report.failures.join('\n')).toMatch(message);
    if (test.name.includes('allocates')) expect(ctx.allocatedBytes - before).toBe(2 * 64); // what the faulty kernel leaked
  });

  it('refuses a test that checks nothing or a name the reference does not give', async () => {
    const ctx = await gpuContext();
    const none = await checkKernel(ctx, { ...addTwice('none'), checks: {} });
    expect(none.failures.join('\n')).toMatch(/checks nothing/);
    const missing = await checkKernel(ctx, { ...addTwice('none'), checks: { z: {} } });
    expect(missing.failures.join('\n')).toMatch(/check "z" names no tensor/);
  });
});
