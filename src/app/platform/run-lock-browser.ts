// One writer per run in the page: a Web Lock (navigator.locks) per run key, held until the run ends; a second tab
// asking for the same run is refused at once instead of waiting.
import { RunLockedError } from '../../contract/errors.ts';
import type { RunLock } from './platform.ts';

export function lockRunInBrowser(run: string): Promise<RunLock> {
  const locks = (globalThis.navigator as Navigator | undefined)?.locks;
  if (!locks)
    throw new Error(
      'This browser has no Web Locks (navigator.locks), which keep two tabs from writing one run; open the page over https or on localhost.',
    );
  return new Promise<RunLock>((resolve, reject) => {
    locks
      .request(`splade-lab run: ${run}`, { ifAvailable: true }, (lock) => {
        if (!lock) {
          reject(
            new RunLockedError(
              `Run "${run}" is being trained in another tab or window of this browser: one run takes one writer. Wait for it to finish there, or cancel it.`,
            ),
          );
          return undefined;
        }
        return new Promise<void>((released) => resolve({ release: async () => released() }));
      })
      .catch(reject);
  });
}
