// The IndexedDB checkpoint store in Chromium: listing, reading, whole-checkpoint replacement, removal, runs kept apart.
import { createIdbCheckpointStore } from '../../src/train/checkpoint-store-idb.ts';

const bytes = (...values: number[]) => Uint8Array.from(values);
const same = (a: Uint8Array | null, b: Uint8Array) => a !== null && a.length === b.length && a.every((x, i) => x === b[i]);

describe('IndexedDB checkpoint store', () => {
  it('writes, lists, reads, replaces whole checkpoints and removes them, per run', async () => {
    const db = `splade-lab-test-${Date.now()}`;
    const run = createIdbCheckpointStore('run-a', db);
    const other = createIdbCheckpointStore('run-b', db);
    await run.write(
      'step-1',
      new Map([
        ['model.safetensors', bytes(1, 2, 3)],
        ['state.json', bytes(9)],
      ]),
    );
    await run.write(
      'step-2',
      new Map([
        ['model.safetensors', bytes(4)],
        ['optimizer.safetensors', bytes(5)],
      ]),
    );
    await other.write('step-1', new Map([['state.json', bytes(7)]]));
    const names = (await run.list()).sort();
    if (names.join() !== 'step-1,step-2') throw new Error(`listed ${names.join()}`);
    if (!same(await run.read('step-1', 'model.safetensors'), bytes(1, 2, 3))) throw new Error('step-1 model not read back');
    if (!same(await other.read('step-1', 'state.json'), bytes(7))) throw new Error('runs are not kept apart');
    // Replacing a checkpoint drops the files it no longer has.
    await run.write('step-1', new Map([['state.json', bytes(8)]]));
    if ((await run.read('step-1', 'model.safetensors')) !== null) throw new Error('a replaced checkpoint kept an old file');
    if (!same(await run.read('step-1', 'state.json'), bytes(8))) throw new Error('replacement not written');
    await run.remove('step-1');
    if ((await run.list()).join() !== 'step-2') throw new Error(`after remove: ${(await run.list()).join()}`);
    if ((await other.list()).join() !== 'step-1') throw new Error('removing in one run touched another');
  });
});
