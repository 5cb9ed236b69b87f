// Benchmark section: one full SPLADE fine-tuning step (encoder + head, forward, backward, AdamW) of a small BERT,
// against the forward-only encoding of the same batch measured in the same run, with what a step records: its
// dispatches, submits and readbacks (plain and report steps) and the host's recording time.
import type { GpuContext } from '../../src/gpu/context.ts';
import { wholeMatrix } from '../../src/gpu/row-parts.ts';
import { parseModelConfig } from '../../src/model/config.ts';
import { GpuModel } from '../../src/model/gpu-model.ts';
import { makeTinyCheckpoint } from '../../src/model/tiny-model.ts';
import { loadParameters } from '../../src/model/weights.ts';
import { SpladeTrainer, type TripletBatch } from '../../src/train/splade/trainer.ts';
import { paperRecipe } from '../../src/contract/training/recipe.ts';
import { Random } from '../../src/util/random.ts';
import { medianMs } from './timing.ts';
import type { BenchRow } from './types.ts';

/** A BERT's size and one step's batch: B triplets, queries of Tq tokens, documents of Td. */
export interface TrainingBenchShape {
  B: number;
  Tq: number;
  Td: number;
  hidden: number;
  layers: number;
  heads: number;
  intermediate: number;
  vocab: number;
}

const SHAPE: TrainingBenchShape = { B: 4, Tq: 16, Td: 64, hidden: 128, layers: 2, heads: 2, intermediate: 512, vocab: 30522 };

export async function benchTraining(ctx: GpuContext, shape = SHAPE, reps = 3): Promise<BenchRow[]> {
  const { B, Tq, Td, hidden, layers, heads, intermediate, vocab } = shape;
  const maxPositions = Math.max(128, Tq, Td);
  const tiny = makeTinyCheckpoint('bert', {
    seed: 1,
    vocabSize: vocab,
    hidden,
    layers,
    heads,
    intermediate,
    headNormScale: 2.5,
    maxPositions,
  });
  const config = parseModelConfig(tiny.config);
  const model = GpuModel.upload(ctx, config, loadParameters(config, tiny.tensors));
  const trainer = new SpladeTrainer(ctx, model, paperRecipe(100, B, { queryLength: Tq, documentLength: Td }));
  const batch = randomBatch(new Random(3), B, Tq, Td, vocab);
  await trainer.step([batch], true); // compiles every pipeline
  const hostMs: number[] = [];
  const stepMs = await medianMs(reps, async () => {
    const recording = performance.now();
    await trainer.step([batch], false); // records and submits; a step that reports nothing waits for no GPU work
    hostMs.push(performance.now() - recording);
    await ctx.sync();
  });
  const plain = await stepCounts(ctx, () => trainer.step([batch], false));
  const report = await stepCounts(ctx, () => trainer.step([batch], true));
  const queries = trainer.queries;
  if (!queries) throw new Error('the training bench trains SPLADE with a query encoder');
  const forwardMs = await medianMs(reps, async () => {
    await ctx.run('bench encode', (encoder) => {
      queries.forward(encoder);
      trainer.documents.forward(encoder);
      trainer.objective.recordForward(encoder, {
        hiddenQueries: queries.headHidden,
        maskQueries: queries.mask,
        hiddenDocuments: trainer.documents.headHidden,
        maskDocuments: trainer.documents.mask,
        weight: wholeMatrix(model.decoderWeight, 'the training bench'),
        bias: model.decoderBias,
      });
    });
  });
  const tag = `BERT d${hidden} L${layers} V${vocab}, ${B} triplets, Tq ${Tq}, Td ${Td}`;
  const bytes = model.bytes + queries.activationBytes + trainer.documents.activationBytes;
  return [
    { name: `encode forward (${tag})`, ms: forwardMs, peakBytes: bytes },
    {
      name: `training step (${tag})`,
      ms: stepMs,
      peakBytes: bytes,
      extra: {
        stepOverForwardTime: stepMs / forwardMs,
        hostRecordingMs: hostMs.sort((a, b) => a - b)[hostMs.length >> 1],
        dispatchesPerStep: plain.dispatches,
        submitsPerStep: plain.submits,
        readbacksPerStep: plain.readbacks,
        dispatchesPerReportStep: report.dispatches,
        readbacksPerReportStep: report.readbacks,
        dispatchesByFamily: familyList(plain.families),
      },
    },
  ];
}

/** The dispatches (also by kernel family), submits and readbacks one step records (its GPU work awaited). */
async function stepCounts(
  ctx: GpuContext,
  step: () => Promise<unknown>,
): Promise<GpuContext['counts'] & { families: Map<string, number> }> {
  const before = { ...ctx.counts };
  const families = new Map<string, number>();
  const dispatch = ctx.dispatch;
  ctx.dispatch = (encoder, spec, ...rest) => {
    const recorded = ctx.counts.dispatches;
    dispatch.call(ctx, encoder, spec, ...rest);
    if (ctx.counts.dispatches > recorded) families.set(spec.family, (families.get(spec.family) ?? 0) + 1);
  };
  try {
    await step();
    await ctx.sync();
  } finally {
    ctx.dispatch = dispatch;
  }
  return {
    dispatches: ctx.counts.dispatches - before.dispatches,
    submits: ctx.counts.submits - before.submits,
    readbacks: ctx.counts.readbacks - before.readbacks,
    families,
  };
}

/** "family count, ..." from the most dispatched down. */
function familyList(families: Map<string, number>): string {
  return [...families]
    .sort((a, b) => b[1] - a[1])
    .map(([family, count]) => `${family} ${count}`)
    .join(', ');
}

function randomBatch(random: Random, B: number, Tq: number, Td: number, V: number): TripletBatch {
  const ids = (rows: number, T: number) => Int32Array.from({ length: rows * T }, () => 1000 + random.int(V - 1000));
  return {
    queryIds: ids(B, Tq),
    queryMask: new Uint8Array(B * Tq).fill(1),
    documentIds: ids(2 * B, Td),
    documentMask: new Uint8Array(2 * B * Td).fill(1),
  };
}
