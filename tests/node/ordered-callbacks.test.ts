// Issue 28's race: a worker call's progress callback and its result travel on different MessagePorts, so the last
// progress could land after the result and overwrite the panel's "Done". The worker now answers only after the page
// has run every callback (withOrderedCallbacks), and the job controller drops a report that comes after its job.
import { MessageChannel } from 'node:worker_threads';
import * as Comlink from 'comlink';
import { afterEach, describe, expect, it } from 'vitest';
import { JobController, type JobOptions } from '../../src/ui/job-controller.ts';
import { withOrderedCallbacks } from '../../src/worker/ordered-callbacks.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const OPTIONS: JobOptions = { starting: 'Starting…', cancel: () => undefined, cancelled: () => 'Cancelled.', failed: (f) => f.message };

/** A JobController on a host that only counts updates, as a Lit element would host it. */
function jobOnHost(): JobController {
  return new JobController({ addController: () => undefined, removeController: () => undefined, requestUpdate: () => undefined, updateComplete: Promise.resolve(true) });
}

/** The page's side of a proxied callback whose messages arrive late: the page runs `handler` `ms` later, and the
 *  worker's call of it resolves then (as a comlink call resolves once the page has answered). */
function deliveredLate<A extends unknown[]>(handler: (...args: A) => void, ms: number): (...args: A) => Promise<void> {
  return (...args) => new Promise((resolve) => setTimeout(() => resolve(handler(...args)), ms));
}

describe('a progress message that would arrive after the result', () => {
  it("cannot overwrite the panel's Done: the worker answers once the page has run the callback", async () => {
    const worker = withOrderedCallbacks({
      async evaluate(onProgress: (status: string) => unknown) {
        onProgress('NanoSciFact: searching 12 of 12 · 0 ms left in this stage');
        return ['NanoSciFact'];
      },
    });
    const job = jobOnHost();
    // the panel as it was: its progress handler sets the status line
    const results = await job.run(OPTIONS, () => worker.evaluate(deliveredLate((status: string) => job.setStatus(status), 30)));
    expect(results).toEqual(['NanoSciFact']);
    job.setStatus('Done: NanoSciFact at k = 1.');
    await sleep(60);
    expect(job.status).toBe('Done: NanoSciFact at k = 1.');
  });

  it('a failing call also waits for its callbacks, and a callback that fails does not fail the call', async () => {
    const seen: string[] = [];
    const worker = withOrderedCallbacks({
      async fails(onProgress: (status: string) => Promise<void>) {
        void onProgress('before the error');
        throw new Error('out of memory');
      },
      async succeeds(onProgress: (status: string) => Promise<void>) {
        void onProgress('a page that went away');
        return 'ok';
      },
    });
    await expect(worker.fails(deliveredLate((s: string) => void seen.push(s), 20))).rejects.toThrow('out of memory');
    expect(seen).toEqual(['before the error']);
    await expect(worker.succeeds(() => Promise.reject(new Error('closed port')))).resolves.toBe('ok');
  });

  it("the job controller drops a report that comes after its job, and keeps the job's own reports", async () => {
    const job = jobOnHost();
    let report: (status: string) => void = () => undefined;
    await job.run(OPTIONS, async () => {
      report = (status) => job.progress(status);
      report('step 1 of 2');
      expect(job.status).toBe('step 1 of 2');
      return true;
    });
    job.setStatus('Done: step 2 of 2.');
    report('step 2 of 2');
    expect(job.status).toBe('Done: step 2 of 2.');
  });
});

describe('through comlink over a real MessageChannel', () => {
  const channels: MessageChannel[] = [];
  afterEach(() => channels.splice(0).forEach((c) => (c.port1.close(), c.port2.close())));

  /** A page-side handle on `api` exposed at the other end of a fresh channel, wrapped as worker.ts wraps it. */
  function connect<Api extends object>(api: Api): Comlink.Remote<Api> {
    const channel = new MessageChannel();
    channels.push(channel);
    Comlink.expose(withOrderedCallbacks(api), channel.port1 as unknown as Comlink.Endpoint);
    return Comlink.wrap<Api>(channel.port2 as unknown as Comlink.Endpoint);
  }

  it('every progress message is handled before the call answers', async () => {
    const remote = connect({
      async run(steps: number, onStep: (step: number) => void) {
        for (let step = 1; step <= steps; step++) onStep(step);
        return 'finished';
      },
    });
    const seen: string[] = [];
    const answer = await remote.run(200, Comlink.proxy((step: number) => void seen.push(`step ${step}`)));
    seen.push(answer);
    expect(seen).toHaveLength(201);
    expect(seen.at(-2)).toBe('step 200');
    expect(seen.at(-1)).toBe('finished');
  });

  it('a listener called after its registration answered (onDeviceLost) still reaches the page', async () => {
    const listeners: ((message: string) => void)[] = [];
    const remote = connect({
      onDeviceLost(listener: (message: string) => void) {
        listeners.push(listener);
      },
      lose() {
        for (const listener of listeners) listener('device lost: destroyed');
      },
    });
    const heard: string[] = [];
    await remote.onDeviceLost(Comlink.proxy((message: string) => void heard.push(message)));
    await remote.lose();
    for (let i = 0; i < 50 && heard.length === 0; i++) await sleep(10);
    expect(heard).toEqual(['device lost: destroyed']);
  });
});
