// One writer per run in the page: a Web Lock per run key; a second writer (another tab, or this one) is refused at once
// with a message about the lock; other runs are free; releasing lets the next writer in.
import { lockRunInBrowser } from '../../src/app/platform/run-lock-browser.ts';
import { expect } from './expect.ts';

describe('run locks in the browser', () => {
  it('refuses a second writer of a run, leaves other runs free, and frees the run on release', async () => {
    const run = `test run ${Date.now()}`;
    const first = await lockRunInBrowser(run);
    let refused = '';
    await lockRunInBrowser(run).then(
      () => undefined,
      (error: Error) => (refused = `${error.name}: ${error.message}`),
    );
    expect(refused, `second writer: ${refused || 'not refused'}`).toMatch(
      /^RunLockedError: .*being trained in another tab or window.*one run takes one writer/,
    );
    const other = await lockRunInBrowser(`${run} (another k)`);
    await other.release();
    await first.release();
    const again = await lockRunInBrowser(run);
    await again.release();
  });

  it('holds against another context of this origin (a second tab) until released', async () => {
    const run = `shared run ${Date.now()}`;
    const held = await lockRunInBrowser(run);
    // A dedicated worker is a separate agent on the same origin, as another tab's worker would be.
    const source = `onmessage = async (e) => { const r = await navigator.locks.request(e.data, { ifAvailable: true }, (lock) => lock !== null); postMessage(r); };`;
    const worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
    const ask = () =>
      new Promise<boolean>(
        (resolve) => ((worker.onmessage = (e) => resolve(e.data as boolean)), worker.postMessage(`splade-lab run: ${run}`)),
      );
    expect(await ask(), 'another agent got the lock while the run was held').toBe(false);
    await held.release();
    expect(await ask(), 'the lock was not freed on release').toBe(true);
    worker.terminate();
  });
});
