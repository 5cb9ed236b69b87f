// Dawn's event pump in Node: after a short spin it polls through the timer queue (src/gpu/dawn-node-polling.ts), and
// nothing else that goes through setImmediate is moved.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isDawnPump } from '../../../src/gpu/dawn-node-polling.ts';
import { gpuContext } from '../../helpers/gpu.ts';

/** A loop long enough that the wait for it outlasts the spin: each of 256 x 64 invocations sums 4,000 terms. */
const SLOW = /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> data: array<f32>;
@compute @workgroup_size(64) fn slow(@builtin(global_invocation_id) id: vec3u) {
  var s = 0.0;
  for (var i = 0u; i < 4000u; i++) { s += sin(f32(i + id.x)); }
  data[id.x] = s;
}`;

afterEach(() => vi.restoreAllMocks());

describe("Dawn's event pump in Node", () => {
  it('tells the pump (a nameless native function without parameters) from every other callback', () => {
    expect(isDawnPump(() => undefined)).toBe(false);
    expect(isDawnPump(function () {})).toBe(false);
    expect(isDawnPump(Math.max)).toBe(false); // native, named
    let resolve: unknown;
    void new Promise((r) => (resolve = r));
    expect(isDawnPump(resolve)).toBe(false); // native, nameless, one parameter
    expect(isDawnPump('function () { [native code] }')).toBe(false);
  });

  it('a wait on the GPU polls through the timer queue after its spin, and reads the right values', async () => {
    const ctx = await gpuContext();
    const owned = ctx.owned(() => ctx.tensor('data', [256 * 64], 'f32', new Float32Array(256 * 64)));
    const t = owned.value;
    const timers = vi.spyOn(globalThis, 'setTimeout');
    await ctx.run('slow', (enc) =>
      ctx.dispatch(enc, { family: 'test-slow', source: SLOW, entryPoint: 'slow' }, [t], [256], 'slow'),
    );
    const values = await ctx.read(t);
    const pumped = timers.mock.calls.filter(([callback]) => isDawnPump(callback)).length;
    expect(pumped, 'polls of the pump that went to the timer queue').toBeGreaterThan(0);
    let expected = 0;
    for (let i = 0; i < 4000; i++) expected += Math.sin(i + 5);
    expect(values[5]).toBeCloseTo(expected, 1);
    owned.destroy();
  });

  it("leaves a promise's setImmediate in the immediate queue", async () => {
    const timers = vi.spyOn(globalThis, 'setTimeout');
    await gpuContext(); // the pacing is installed with the first device
    await new Promise((resolve) => setImmediate(resolve));
    expect(timers).not.toHaveBeenCalled();
  });
});
