// Benchmark section: the host's time to record one training step in BERT-base's layout (12 layers, so its 2,000-odd
// dispatches) at tiny dimensions, so that the GPU's work is small and the figure is the recording's: dispatches,
// compute passes and bind groups as the encoder API sees them, before the step waits for the GPU.
import type { GpuContext } from '../../src/gpu/context.ts';
import { parseModelConfig } from '../../src/model/config.ts';
import { GpuModel } from '../../src/model/gpu-model.ts';
import { makeTinyCheckpoint } from '../../src/model/tiny-model.ts';
import { loadParameters } from '../../src/model/weights.ts';
import { SpladeTrainer, type TripletBatch } from '../../src/train/splade/trainer.ts';
import { paperRecipe } from '../../src/contract/training/recipe.ts';
import type { BenchRow } from './types.ts';

export async function benchHostRecording(ctx: GpuContext, steps = 40): Promise<BenchRow[]> {
  const tiny = makeTinyCheckpoint('bert', {
    seed: 1,
    vocabSize: 300,
    hidden: 16,
    layers: 12,
    heads: 2,
    intermediate: 32,
    headNormScale: 2.5,
    maxPositions: 128,
  });
  const config = parseModelConfig(tiny.config);
  const model = GpuModel.upload(ctx, config, loadParameters(config, tiny.tensors));
  const [B, Tq, Td] = [1, 8, 8];
  const trainer = new SpladeTrainer(ctx, model, paperRecipe(10 * steps, B, { queryLength: Tq, documentLength: Td }));
  const ids = (n: number) => Int32Array.from({ length: n }, (_, i) => 5 + ((i * 7) % 290));
  const batch: TripletBatch = {
    queryIds: ids(B * Tq),
    queryMask: new Uint8Array(B * Tq).fill(1),
    documentIds: ids(2 * B * Td),
    documentMask: new Uint8Array(2 * B * Td).fill(1),
  };
  await trainer.step([batch], true); // compiles every pipeline
  const hostMs: number[] = [];
  const before = ctx.counts.dispatches;
  for (let i = 0; i < steps; i++) {
    const start = performance.now();
    await trainer.step([batch], false); // a step that reports nothing records, submits and returns
    hostMs.push(performance.now() - start);
    await ctx.sync();
  }
  const dispatches = (ctx.counts.dispatches - before) / steps;
  const median = hostMs.sort((a, b) => a - b)[steps >> 1];
  return [
    {
      name: `host recording of a training step (BERT-base layout: 12 layers, d16, V300; 1 triplet, Tq ${Tq}, Td ${Td})`,
      ms: median,
      extra: { dispatchesPerStep: dispatches, microsecondsPerDispatch: (1000 * median) / dispatches, steps },
    },
  ];
}
