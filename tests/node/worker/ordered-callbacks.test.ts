// Issue 28's race: a worker call's progress callback and its result travel on different MessagePorts, so the last
// progress could land after the result and overwrite the panel's "Done". The worker now answers only after the page
// has run every callback (withOrderedCallbacks), and a job's progress report is dropped once its job has ended.
import { MessageChannel } from 'node:worker_threads';
import * as Comlink from 'comlink';
import { afterEach, describe, expect, it } from 'vitest';
import { JobController, type JobOptions } from '../../../src/ui/common/job-controller.ts';
import { withOrderedCallbacks } from '../../../src/worker/ordered-callbacks.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const OPTIONS: JobOptions = {
  starting: 'Starting…',
  cancel: () => undefined,
  cancelled: () => 'Cancelled.',
  failed: (f) => f.message,
};

const LAST_PROGRESS = 'NanoSciFact: searching 12 of 12 · 0 ms left in this stage';

const DONE = 'Done: NanoSciFact at k = 1.';

/** A JobController on the least a Lit element offers a controller. */
function jobOnHost(): JobController {
  return new JobController({
    addController: () => undefined,
    removeController: () => undefined,
    requestUpdate: () => undefined,
    updateComplete: Promise.resolve(true),
  });
}

/** The page's side of a proxied callback whose messages arrive late: the page runs `handler` `ms` later, and the
 *  worker's call of it resolves then (as a comlink call resolves once the page has answered). */
function deliveredLate<A extends unknown[]>(handler: (...args: A) => void, ms: number): (...args: A) => Promise<void> {
  return (...args) => new Promise((resolve) => setTimeout(() => resolve(handler(...args)), ms));
}

/** The worker's evaluation as the page sees it: a last progress message, then the result. */
const evaluation = {
  async evaluate(onProgress: (status: string) => unknown) {
    void onProgress(LAST_PROGRESS);
    return ['NanoSciFact'];
  },
};

const unordered = evaluation;

const ordered = withOrderedCallbacks(evaluation);

/** How the panel's progress handler sets the status line, given its job and the job's progress report. */
type ProgressHandler = (job: JobController, progress: (status: string) => void) => (status: string) => void;

/** The evaluation panel: runs the job, its progress delivered late, sets "Done" once run() returned, then waits. */
async function evaluateOnPanel(worker: typeof evaluation, handler: ProgressHandler): Promise<JobController> {
  const job = jobOnHost();
  const results = await job.run(OPTIONS, (progress) => worker.evaluate(deliveredLate(handler(job, progress), 30)));
  expect(results).toEqual(['NanoSciFact']);
  job.setStatus(DONE);
  await sleep(60);
  return job;
}

describe('a progress message that would arrive after the result', () => {
  it('cannot overwrite the panel\'s "Done"', async () => {
    const job = await evaluateOnPanel(ordered, (_, progress) => progress);
    expect(job.status).toBe(DONE);
  });

  it('the worker alone prevents it: the call answers once the page has run the callback', async () => {
    const job = await evaluateOnPanel(ordered, (job) => (status) => job.setStatus(status));
    expect(job.status).toBe(DONE);
  });

  it("the page alone prevents it: the job's progress report drops a report that comes after its job", async () => {
    const job = await evaluateOnPanel(unordered, (_, progress) => progress);
    expect(job.status).toBe(DONE);
  });

  it('waits for every call of a callback, not only its latest (answers may come out of order)', async () => {
    const handled: string[] = [];
    const worker = withOrderedCallbacks({
      async run(onStep: (step: string) => Promise<void>) {
        void onStep('slow');
        void onStep('fast');
        return 'answer';
      },
    });
    const delays: Record<string, number> = { slow: 40, fast: 5 };
    handled.push(await worker.run((step) => deliveredLate(() => void handled.push(step), delays[step])()));
    expect(handled).toEqual(['fast', 'slow', 'answer']);
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
});

describe("a job's progress report", () => {
  it("keeps its own job's lines and drops those that come after it, also during a later job", async () => {
    const job = jobOnHost();
    const shown: string[] = [];
    let firstJobsReport: (status: string) => void = () => undefined;
    await job.run(OPTIONS, async (progress) => {
      firstJobsReport = progress;
      progress('first job: step 1 of 2');
      shown.push(job.status);
    });
    job.setStatus('Done: the first job.');
    firstJobsReport('first job: step 2 of 2');
    shown.push(job.status);
    // (an assertion inside run's work would be caught by run as the job's failure, so the lines are checked after it)
    await job.run(OPTIONS, async (progress) => {
      progress('second job: step 1 of 2');
      firstJobsReport('first job: step 2 of 2');
      shown.push(job.status);
    });
    expect(shown).toEqual(['first job: step 1 of 2', 'Done: the first job.', 'second job: step 1 of 2']);
    expect(job.error).toBe('');
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
    const answer = await remote.run(
      200,
      Comlink.proxy((step: number) => void seen.push(`step ${step}`)),
    );
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
