// Dawn's event pump in Node: the pacing sends a wait's polls to the timer queue after a short spin
// (src/gpu/dawn-node-polling.ts), Dawn's pump is the callback it recognises, and nothing else is moved.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isDawnPump, pacedImmediate } from '../../../src/gpu/dawn-node-polling.ts';
import { gpuContext } from '../../helpers/gpu.ts';

afterEach(() => vi.restoreAllMocks());

/** The pacing with a fake clock and queues: which queue each call went to. */
function fakePacing() {
  let clock = 0;
  const queued: string[] = [];
  const pump = () => undefined;
  const paced = pacedImmediate({
    immediate: () => queued.push('immediate'),
    timer: () => queued.push('timer'),
    now: () => clock,
    isPump: (callback) => callback === pump,
  });
  /** A poll of the pump at `ms` on the fake clock. */
  const pollAt = (ms: number) => {
    clock = ms;
    paced(pump);
  };
  return { paced, queued, pump, pollAt, at: (ms: number) => (clock = ms) };
}

describe("Dawn's event pump in Node", () => {
  it('polls a wait at once for its first half millisecond, then through the timer queue; a pause starts a new wait', () => {
    const { queued, pollAt } = fakePacing();
    for (const ms of [0, 0.1, 0.4, 0.6, 1.6, 2.6]) pollAt(ms);
    expect(queued).toEqual(['immediate', 'immediate', 'immediate', 'timer', 'timer', 'timer']);
    queued.length = 0;
    for (const ms of [10, 10.2, 10.7]) pollAt(ms); // more than 4 ms after the last poll
    expect(queued).toEqual(['immediate', 'immediate', 'timer']);
  });

  it('leaves every other callback in the immediate queue, however long a wait lasts', () => {
    const { paced, queued, pump, at } = fakePacing();
    at(0);
    paced(pump);
    at(5);
    paced(() => undefined);
    expect(queued).toEqual(['immediate', 'immediate']);
  });

  it('tells the pump (a nameless native function without parameters) from every other callback', () => {
    expect(isDawnPump(() => undefined)).toBe(false);
    expect(isDawnPump(function () {})).toBe(false);
    expect(isDawnPump(Math.max)).toBe(false); // native, named
    let resolve: unknown;
    void new Promise((r) => (resolve = r));
    expect(isDawnPump(resolve)).toBe(false); // native, nameless, one parameter
    expect(isDawnPump('function () { [native code] }')).toBe(false);
  });

  it('Dawn hands the global setImmediate a callback the pacing recognises while it waits for a read', async () => {
    const ctx = await gpuContext(); // the pacing is installed with the first device
    const owned = ctx.owned(() => ctx.tensor('data', [4], 'f32', [1, 2, 3, 4]));
    const immediates = vi.spyOn(globalThis, 'setImmediate');
    expect([...(await ctx.read(owned.value))]).toEqual([1, 2, 3, 4]);
    const polls = immediates.mock.calls.filter(([callback]) => isDawnPump(callback)).length;
    expect(polls, "Dawn's polls through setImmediate").toBeGreaterThan(0);
    owned.destroy();
  });
});
