// The GPU worker frees what it no longer needs: loading a model again, a preview at a new length, the teaching demo
// and a training run all leave the worker's GPU memory where the loaded model alone puts it.
import { startWorkerClient } from '../../src/worker/client.ts';
import { expect } from './expect.ts';

const DEMO = () => ({ kind: 'demo' as const, url: new URL('/public/demo/', location.href).href });

describe('GPU worker memory', () => {
  it('returns to the loaded model alone after a reload, the k demo and a training run', async () => {
    const client = startWorkerClient();
    try {
      await client.init();
      await client.load(DEMO(), () => undefined);
      const loaded = await client.gpuMemory();
      expect(loaded, `the demo model should hold megabytes, holds ${loaded} bytes`).toBeGreaterThan(1_000_000);
      await client.load(DEMO(), () => undefined);
      const reloaded = await client.gpuMemory();
      expect(reloaded, `after loading the model again: ${reloaded} bytes, first load ${loaded}`).toBe(loaded);
      await client.preview('a query', 'a document', 4, 3);
      const withPasses = await client.gpuMemory();
      await client.kDemo({ ks: [1, 16], steps: 2 }, () => undefined);
      expect(await client.gpuMemory(), 'the k demo left GPU buffers behind').toBe(withPasses);
      const tsv = 'what is a cat\ta cat is an animal\tthe sun is a star\nwhere is paris\tparis is in france\tdogs bark\n';
      await client.readTriplets(new File([tsv], 'tiny.tsv'));
      await client.train(
        { k: 2, steps: 1, batchSize: 2, queryLength: 8, documentLength: 16, checkpointEvery: 50, resume: false },
        () => undefined,
      );
      const afterTraining = await client.gpuMemory();
      expect(afterTraining, `a finished training run left ${afterTraining - withPasses} bytes behind`).toBe(withPasses);
    } finally {
      client.terminate();
    }
  });
});
