// Training memory, known before a run starts: the buffers listed without allocating them (GpuContext.measure) add up
// to what the trainer really allocates; over a budget or the device's per-buffer limit the run is refused before it starts
// with the largest batch that fits and the accumulation that keeps the step; the advised flags then train.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createFolderSource } from '../../../src/io/file-source-node.ts';
import { GpuModel } from '../../../src/model/gpu-model.ts';
import { loadModel, type LoadedModel } from '../../../src/model/load-model.ts';
import { SpladeTrainer } from '../../../src/train/splade/trainer.ts';
import { paperRecipe } from '../../../src/contract/training/recipe.ts';
import { TrainingTooLargeError, checkTrainingFits } from '../../../src/train/splade/training-memory.ts';
import { runCli } from '../../helpers/cli.ts';
import { gpuContext } from '../../helpers/gpu.ts';
import { generatedTriplets } from '../../helpers/generated-data.ts';
import { tinyCliWorkspace } from '../../helpers/tiny-cli-workspace.ts';

let loaded: LoadedModel;
const workspace = tinyCliWorkspace('splade-memory-');
beforeAll(async () => {
  loaded = await loadModel(createFolderSource(workspace.model));
});

describe('training memory', () => {
  it.each([7, 24])('the estimate for a batch of %i equals the bytes the trainer allocates', async (B) => {
    const ctx = await gpuContext();
    const model = ctx.owned(() => GpuModel.upload(ctx, loaded.config, loaded.params));
    try {
      const recipe = { ...paperRecipe(10, B, { queryLength: 8, documentLength: 16 }), gradAccum: 2, negatives: 2 };
      const memory = checkTrainingFits(ctx, model.value, recipe);
      const real = ctx.owned(() => new SpladeTrainer(ctx, model.value, recipe));
      real.destroy();
      expect(memory.trainerBytes).toBe(real.bytes);
      expect(memory.largestBufferBytes).toBe(Math.max(...real.sizes));
      expect(memory.perTripletBytes).toBeGreaterThan(0);
      expect(memory.heldBytes).toBe(ctx.allocatedBytes);
    } finally {
      model.destroy();
    }
  });

  it("refuses a batch whose largest buffer is over the device's limit, naming the largest batch under it", async () => {
    const ctx = await gpuContext();
    const model = ctx.owned(() => GpuModel.upload(ctx, loaded.config, loaded.params));
    try {
      // attention probabilities of 2B documents: 2B x heads x T x T floats
      const limit = Math.min(ctx.limits.maxStorageBufferBindingSize, ctx.limits.maxBufferSize);
      const T = Math.min(128, loaded.config.maxPositions);
      const perTriplet = 2 * loaded.config.heads * T * T * 4;
      const B = Math.ceil((1.5 * limit) / perTriplet);
      const error = (() => {
        try {
          checkTrainingFits(ctx, model.value, paperRecipe(10, B, { queryLength: 8, documentLength: T }));
        } catch (e) {
          return e;
        }
      })() as TrainingTooLargeError;
      expect(error).toBeInstanceOf(TrainingTooLargeError);
      expect(error.message).toContain("over the device's");
      // the advised batch is the largest that fits: it passes, one more does not
      const recipeAt = (b: number) => paperRecipe(10, b, { queryLength: 8, documentLength: T });
      expect(() => checkTrainingFits(ctx, model.value, recipeAt(error.fits!.batchSize))).not.toThrow();
      expect(() => checkTrainingFits(ctx, model.value, recipeAt(error.fits!.batchSize + 1))).toThrow(TrainingTooLargeError);
      expect(error.fits!.batchSize).toBeLessThanOrEqual(Math.floor(limit / perTriplet));
      expect(error.fits!.gradAccum).toBe(Math.ceil(B / error.fits!.batchSize));
      expect(error.message).toContain(`--batch ${error.fits!.batchSize} --grad-accum ${error.fits!.gradAccum}`);
    } finally {
      model.destroy();
    }
  });

  it('refuses rows with so many negatives that a micro-batch passes the sequences a kernel takes, before any buffer', async () => {
    const ctx = await gpuContext();
    const model = ctx.owned(() => GpuModel.upload(ctx, loaded.config, loaded.params));
    try {
      const most = ctx.limits.maxComputeWorkgroupsPerDimension;
      const recipe = (B: number, negatives: number) => ({
        ...paperRecipe(10, B, { queryLength: 8, documentLength: 8 }),
        negatives,
      });
      const caught = (B: number, negatives: number) => {
        try {
          checkTrainingFits(ctx, model.value, recipe(B, negatives));
        } catch (error) {
          return error as TrainingTooLargeError;
        }
        throw new Error('not refused');
      };
      const tooMany = caught(1, most);
      expect(tooMany).toBeInstanceOf(TrainingTooLargeError);
      expect(tooMany.message).toContain(`keep at most ${most - 1} negatives per row`);
      expect(tooMany.fits).toBeNull();
      const big = caught(100, 1000);
      const fits = Math.floor(most / 1001);
      expect(big.message).toContain(`100 rows with 1000 negatives each is 100100 documents per micro-batch`);
      expect(big.fits).toEqual({ batchSize: fits, gradAccum: Math.ceil(100 / fits) });
      expect(big.message).toContain(`--batch ${fits} --grad-accum ${Math.ceil(100 / fits)}`);
    } finally {
      model.destroy();
    }
  });

  it('the CLI refuses a run over --gpu-memory before it starts; the advised batch and accumulation train within it', async () => {
    const triplets = generatedTriplets();
    const common = [
      '--model',
      workspace.model,
      '--triplets',
      triplets,
      '--steps',
      '1',
      '--query-length',
      '16',
      '--doc-length',
      '64',
      '--probe-every',
      '0',
    ];
    const budget = '0.0012'; // GiB: about 1.3 MB, a few triplets' worth of activations
    const refused = await runCli(
      'train',
      ...common,
      '--out',
      join(workspace.root, 'big'),
      '--batch',
      '32',
      '--gpu-memory',
      budget,
    );
    expect(refused.code).not.toBe(0);
    const advice = /--batch (\d+) --grad-accum (\d+)/.exec(refused.stderr);
    expect(refused.stderr, refused.stderr).toContain('A batch of 32 does not fit: it needs about');
    expect(advice).not.toBeNull();
    const [batch, accum] = [Number(advice![1]), Number(advice![2])];
    expect(batch).toBeGreaterThan(0);
    expect(batch).toBeLessThan(32);
    expect(batch * accum).toBeGreaterThanOrEqual(32);
    const fits = await runCli(
      'train',
      ...common,
      '--out',
      join(workspace.root, 'fits'),
      '--batch',
      String(batch),
      '--grad-accum',
      String(accum),
      '--gpu-memory',
      budget,
    );
    expect(fits.stderr).toBe('');
    expect(fits.code).toBe(0);
  });
});
