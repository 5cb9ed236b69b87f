// Dawn's event pump in Node, kept from spinning a core: a short spin, then about one poll per millisecond.
//
// Dawn in Node (npm `webgpu`) waits for the GPU (mapAsync, onSubmittedWorkDone) by passing its event pump to the
// global setImmediate again and again until the work is done: a busy loop that holds one core at 100% for as long as
// the GPU works. On a GPU that costs a laptop's battery; on SwiftShader it takes the very core the GPU work runs on
// (a Node test file of the lesson: 28 CPU seconds spinning, 20 with the timer queue). Here the pump keeps the
// immediate queue for the first half millisecond of a wait (a short job is still read at once), then goes to the
// timer queue. Only the pump is moved: a native function without name or parameters, which is how Node-API makes it;
// every other setImmediate (a promise's resolve has one parameter) is untouched.

/** How long a wait polls at once before it yields to the timer queue, in milliseconds. */
const SPIN_MS = 0.5;
/** A pump poll this long after the one before it starts a new wait. */
const NEW_WAIT_MS = 4;
const INSTALLED = Symbol.for('splade-lab.dawnPumpThrottled');

type Immediate = typeof globalThis.setImmediate;

/** Whether `callback` is Dawn's event pump: a Node-API function (native, no name, no declared parameter). */
export function isDawnPump(callback: unknown): boolean {
  return (
    typeof callback === 'function' &&
    callback.name === '' &&
    callback.length === 0 &&
    /\{\s*\[native code\]\s*\}$/.test(Function.prototype.toString.call(callback))
  );
}

/** What the pacing schedules with; Node's own by default, a test's fakes in a test. */
export interface PumpScheduling {
  immediate: (callback: (...args: unknown[]) => void, ...args: unknown[]) => unknown;
  timer: (callback: (...args: unknown[]) => void, ...args: unknown[]) => unknown;
  now: () => number;
  isPump: (callback: unknown) => boolean;
}

/**
 * A setImmediate that sends the pump's polls to the immediate queue for the first SPIN_MS of a wait (a poll more than
 * NEW_WAIT_MS after the one before starts a new wait) and to the timer queue after; every other callback is untouched.
 */
export function pacedImmediate(scheduling: PumpScheduling) {
  const { immediate, timer, now, isPump } = scheduling;
  let waitStarted = 0;
  let lastPoll = Number.NEGATIVE_INFINITY;
  return function (callback: (...args: unknown[]) => void, ...args: unknown[]) {
    if (isPump(callback)) {
      const at = now();
      if (at - lastPoll > NEW_WAIT_MS) waitStarted = at;
      lastPoll = at;
      // the pump ignores what is returned: a timer stands in for the immediate
      if (at - waitStarted >= SPIN_MS) return timer(callback, 0, ...args);
    }
    return immediate(callback, ...args);
  };
}

/** Routes Dawn's pump through the timer queue after a short spin; once per process, before the first device. */
export function throttleDawnPolling(): void {
  const scope = globalThis as typeof globalThis & { [INSTALLED]?: true };
  if (scope[INSTALLED]) return;
  const immediate = scope.setImmediate;
  const paced = pacedImmediate({
    immediate: (callback, ...args) => immediate(callback, ...args),
    timer: (callback, ...args) => setTimeout(callback, ...(args as [number, ...unknown[]])),
    now: () => performance.now(),
    isPump: isDawnPump,
  });
  // keeps setImmediate's own properties (util.promisify's custom form, __promisify__)
  Object.defineProperties(paced, Object.getOwnPropertyDescriptors(immediate));
  scope.setImmediate = paced as unknown as Immediate;
  scope[INSTALLED] = true;
}
