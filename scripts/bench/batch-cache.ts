// Benchmark section: a training step whose batch is tokenized on the fly against the same step whose batch is read
// from the batch cache (a folder, as the CLI keeps it), in the same run: the demo backbone's tokenizer on texts of
// its own words, the small BERT of the training section.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GpuContext } from '../../src/gpu/context.ts';
import { createFolderSource } from '../../src/io/file-source-node.ts';
import { loadTokenizer } from '../../src/io/tokenizer/tokenizer-load.ts';
import { tokenizerFingerprint } from '../../src/io/tokenizer/tokenizer-fingerprint.ts';
import { memoryTripletSource } from '../../src/io/triplets/triplet-source.ts';
import type { Triplet } from '../../src/io/triplets/triplets.ts';
import { parseModelConfig } from '../../src/model/config.ts';
import { GpuModel } from '../../src/model/gpu-model.ts';
import { makeTinyCheckpoint } from '../../src/model/tiny-model.ts';
import { loadParameters } from '../../src/model/weights.ts';
import { CachedBatches } from '../../src/train/splade/batch-cache.ts';
import { createFolderBatchCache } from '../../src/train/splade/batch-cache-node.ts';
import { TripletBatches } from '../../src/train/splade/batches.ts';
import { SpladeTrainer } from '../../src/train/splade/trainer.ts';
import { paperRecipe } from '../../src/contract/training/recipe.ts';
import { Random } from '../../src/util/random.ts';
import { median } from './timing.ts';
import type { BenchRow } from './types.ts';

const SHAPE = { B: 4, Tq: 16, Td: 64, hidden: 128, layers: 2, heads: 2, intermediate: 512 };
const STEPS = 4;

/** Triplets of random vocabulary words: queries of 8 words, passages of 90 (truncated to Td tokens). */
function randomTriplets(words: string[], count: number, random: Random): Triplet[] {
  const text = (n: number) => Array.from({ length: n }, () => words[random.int(words.length)]).join(' ');
  return Array.from({ length: count }, () => ({ query: text(8), positive: text(90), negative: text(90) }));
}

export async function benchBatchCache(ctx: GpuContext): Promise<BenchRow[]> {
  const { B, Tq, Td, hidden, layers, heads, intermediate } = SHAPE;
  const tokenizer = await loadTokenizer(createFolderSource(new URL('../../public/demo', import.meta.url).pathname));
  const words = Array.from({ length: tokenizer.vocabSize }, (_, id) => tokenizer.idToToken(id) ?? '').filter((w) =>
    /^[a-z]{3,}$/.test(w),
  );
  const source = memoryTripletSource(randomTriplets(words, B * STEPS * 2, new Random(7)));
  const tiny = makeTinyCheckpoint('bert', {
    seed: 1,
    vocabSize: tokenizer.vocabSize,
    hidden,
    layers,
    heads,
    intermediate,
    headNormScale: 2.5,
    maxPositions: 256,
  });
  const config = parseModelConfig(tiny.config);
  const model = GpuModel.upload(ctx, config, loadParameters(config, tiny.tensors));
  const recipe = paperRecipe(100, B, { queryLength: Tq, documentLength: Td });
  const trainer = new SpladeTrainer(ctx, model, recipe);
  const folder = await mkdtemp(join(tmpdir(), 'splade-bench-cache-'));
  try {
    const identity = {
      data: { name: 'bench', triplets: source.count, crc32: 1 },
      shape: recipe,
      seed: 1,
      tokenizer: tokenizerFingerprint(tokenizer),
    };
    const filled = new CachedBatches(
      createFolderBatchCache(folder),
      new TripletBatches(source, tokenizer, recipe, 1),
      true,
      identity,
      null,
    );
    await filled.fill(STEPS);
    await trainer.step([(await new TripletBatches(source, tokenizer, recipe, 1).next()).batch], true); // compiles every pipeline

    /** Per step: ms to have the batch, and ms of the whole step (batch, then the GPU step awaited). */
    const time = async (next: () => Promise<{ batch: Parameters<SpladeTrainer['step']>[0][number] }>) => {
      const prepare: number[] = [];
      const whole: number[] = [];
      for (let i = 0; i < STEPS; i++) {
        const start = performance.now();
        const { batch } = await next();
        prepare.push(performance.now() - start);
        await trainer.step([batch], false);
        await ctx.sync();
        whole.push(performance.now() - start);
      }
      return { prepare: median(prepare), whole: median(whole) };
    };
    const tokenizing = new TripletBatches(source, tokenizer, recipe, 1);
    const onTheFly = await time(() => tokenizing.next());
    const cached = new CachedBatches(
      createFolderBatchCache(folder),
      new TripletBatches(source, tokenizer, recipe, 1),
      false,
      identity,
      null,
    );
    const fromCache = await time(() => cached.next());
    const tag = `BERT d${hidden} L${layers}, ${B} triplets, Tq ${Tq}, Td ${Td}, bert-base-uncased tokenizer`;
    return [
      { name: `training step, batch tokenized on the fly (${tag})`, ms: onTheFly.whole, extra: { batchMs: onTheFly.prepare } },
      {
        name: `training step, batch read from the batch cache (${tag})`,
        ms: fromCache.whole,
        extra: {
          batchMs: fromCache.prepare,
          batchOverTokenized: fromCache.prepare / onTheFly.prepare,
          stepOverTokenized: fromCache.whole / onTheFly.whole,
        },
      },
    ];
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
