// The page's run and sweep stores check what they read back, as the CLI's run.json and sweep.json are checked (issue
// 33, item 8): a record of another shape in IndexedDB is refused naming the run and the field, not used half-read.
import { createStore, del, set } from 'idb-keyval';
import { idbRunCatalog } from '../../src/app/platform/run-store-idb.ts';
import { idbSweepStore } from '../../src/app/platform/sweep-store-idb.ts';
import { expect } from './expect.ts';

/** The message `read` is refused with, or a sentence saying that it was not refused. */
async function refusal(read: () => Promise<unknown>): Promise<string> {
  try {
    await read();
  } catch (error) {
    return (error as Error).message;
  }
  return 'a malformed record was read without an error';
}

describe('IndexedDB run and sweep stores', () => {
  it('refuse a stored record of another shape, naming it and the field', async () => {
    const id = `malformed run ${Date.now()}`;
    const runs = createStore('splade-lab-runs', 'runs');
    await set(id, { id, reports: 'none' }, runs);
    const message = await refusal(() => idbRunCatalog.get(id));
    expect(message, message).toContain(`run "${id}" in this browser's storage: "sweep" is missing`);
    await del(id, runs);

    const sweeps = createStore('splade-lab-sweeps', 'sweeps');
    await set(
      id,
      { id, createdAt: 'now', modelKey: 'm', data: { name: 'd', triplets: 1, crc32: 1 }, runs: [], finished: [3] },
      sweeps,
    );
    const plan = await refusal(() => idbSweepStore.get(id));
    expect(plan, plan).toContain('"finished[0]" is 3, expected the index of one of its 0 runs');
    await del(id, sweeps);
  });
});
