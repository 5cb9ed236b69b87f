// The IndexedDB checkpoint store in Chromium: listing, reading, whole-checkpoint replacement, removal, runs kept apart.
import { createIdbCheckpointStore } from '../../src/train/checkpoint-store-idb.ts';
import { expect } from './expect.ts';

const bytes = (...values: number[]) => Uint8Array.from(values);

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
    expect(names.join(), `listed ${names.join()}`).toBe('step-1,step-2');
    expect(await run.read('step-1', 'model.safetensors'), 'step-1 model not read back').toEqual(bytes(1, 2, 3));
    expect(await other.read('step-1', 'state.json'), 'runs are not kept apart').toEqual(bytes(7));
    // Replacing a checkpoint drops the files it no longer has.
    await run.write('step-1', new Map([['state.json', bytes(8)]]));
    expect(await run.read('step-1', 'model.safetensors'), 'a replaced checkpoint kept an old file').toBeNull();
    expect(await run.read('step-1', 'state.json'), 'replacement not written').toEqual(bytes(8));
    await run.remove('step-1');
    expect((await run.list()).join(), `after remove: ${(await run.list()).join()}`).toBe('step-2');
    expect((await other.list()).join(), 'removing in one run touched another').toBe('step-1');
  });
});
