// A whole masked-LM training run, browser-safe: the masked-LM task of the shared step loop (step-loop.ts), its events
// with the head's row norms and anisotropy measured before the first step and at every report (what grows, how fast).
import type { GpuContext } from '../../gpu/context.ts';
import { HeadStats } from '../../kernels/head-stats.ts';
import { anisotropy, headRowNorms, sampleRowPairs, summarizeNorms } from '../../kernels/host/head-norms.ts';
import type { GpuModel } from '../../model/gpu-model.ts';
import { decoderWeightName } from '../../model/layout.ts';
import type { MlmRecipe } from '../../contract/training/mlm-recipe.ts';
import type { DataFingerprint, DataPosition } from '../../contract/training/training-report.ts';
import { learningRate } from '../../contract/training/schedule.ts';
import type { Backbone } from '../../model/backbone.ts';
import { MlmTrainer, type MlmBatch, type MlmStepResult } from './mlm-trainer.ts';
import type { HeadGrowth, MlmStepReport } from '../../contract/training/mlm-report.ts';
import type { CheckpointStore } from '../training-checkpoint.ts';
import { runSteps, type BatchStream, type StepEvent, type StepLoopOptions } from '../step-loop.ts';

/** The run's sequences: where they come from, and their batches from a data position. */
export interface MlmData {
  fingerprint: DataFingerprint;
  /** The run's batches from `position` (masking drawn from the run's seed, the step and the micro-batch). */
  batches(position: DataPosition): BatchStream<MlmBatch>;
}

export interface MlmRunOptions extends Omit<StepLoopOptions, 'inspectEvery'> {
  recipe: MlmRecipe;
  /** Measure the head's growth (a `head` event) before the first step and after every report step (and the last). */
  measureHead?: boolean;
}

/** The events of a masked-LM run: the step loop's, with the head's growth where the loop asks for an inspection. */
export type MlmStepEvent =
  | Exclude<StepEvent<MlmStepReport, MlmTrainer>, { kind: 'inspect-due' }>
  | { kind: 'head'; growth: HeadGrowth };

/** A masked-LM run's steps, as events: iterate them to train (the run waits while each event is handled). */
export async function* mlmSteps(
  ctx: GpuContext,
  backbone: Backbone,
  data: MlmData,
  store: CheckpointStore,
  options: MlmRunOptions,
): AsyncGenerator<MlmStepEvent, void, undefined> {
  const { recipe, seed } = options;
  const meter = headMeterFor(ctx, backbone);
  const steps = runSteps<MlmRecipe, MlmBatch, MlmStepResult, MlmStepReport, MlmTrainer>(
    ctx,
    backbone,
    data.fingerprint,
    store,
    {
      recipe,
      trainer: async (model) => new MlmTrainer(ctx, model, recipe, seed),
      batches: async (position) => data.batches(position),
      tokens: (batch) => batch.attentionMask.reduce((sum, m) => sum + m, 0),
      losses: (result) => [['masked-LM loss', result.loss]],
      report: (result, t, timing, position) => ({
        ...result,
        step: t,
        steps: recipe.schedule.totalSteps,
        lr: learningRate(recipe.schedule, t),
        perplexity: Math.exp(result.loss),
        ...timing,
        position,
      }),
    },
    { ...options, inspectEvery: options.measureHead ? options.reportEvery : 0 },
  );
  for await (const event of steps) {
    if (event.kind !== 'inspect-due') yield event;
    else yield { kind: 'head', growth: { step: event.step, ...(await meter(event.model)) } };
  }
}

/** Measures a model's head: on the GPU when it is one binding, on the host (float64) when it is held in row parts. */
function headMeterFor(ctx: GpuContext, backbone: Backbone): (model: GpuModel) => Promise<Omit<HeadGrowth, 'step'>> {
  const { vocabSize: V, embeddingSize: d } = backbone.config;
  let stats: HeadStats | null = null;
  return async (model) => {
    if (model.decoderParts.length === 1 && !Array.isArray(model.decoderWeight)) {
      stats ??= new HeadStats(ctx, V, d, { bins: 8 });
      const { summary, anisotropy: cosine } = await stats.measure(model.decoderWeight as Parameters<HeadStats['measure']>[0]);
      return { meanRowNorm: summary.mean, maxRowNorm: summary.max, p99RowNorm: summary.p99, anisotropy: cosine };
    }
    const head = (await model.download()).get(decoderWeightName(model.config))!;
    const W = Float64Array.from(head.data);
    const summary = summarizeNorms(headRowNorms(W, V, d));
    return {
      meanRowNorm: summary.mean,
      maxRowNorm: summary.max,
      p99RowNorm: summary.p99,
      anisotropy: anisotropy(W, d, sampleRowPairs(V, 2000, 1)),
    };
  };
}
