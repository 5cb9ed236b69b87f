// The lesson's live training, once for the page and the CLI: the loaded backbone fine-tuned in full for each k side by
// side (the same weights, batches and recipe; only W_head / k differs), one step of every k at a time, so that a
// class can play, pause or step it. Each frame has every k's loss parts, the watched query's vector, and, at the
// measured steps, nDCG@10 and FLOPS on the generated task's held-out queries.
import type { GpuContext, Owned } from '../../gpu/context.ts';
import { memoryTripletSource } from '../../io/triplets/triplet-source.ts';
import { GpuModel } from '../../model/gpu-model.ts';
import { divideModelHead } from '../../model/rescale.ts';
import { SpladeTextEncoder } from '../../model/splade-encoder.ts';
import type { RetrievalDataset } from '../../contract/evaluation/dataset.ts';
import { evaluateEncoder } from '../../retrieval/evaluate.ts';
import { TripletBatches } from '../../train/splade/batches.ts';
import { SpladeTrainer, type StepResult } from '../../train/splade/trainer.ts';
import { paperRecipe, type TrainingRecipe } from '../../contract/training/recipe.ts';
import type { LessonTask } from '../../contract/lesson/lesson-task.ts';
import {
  LESSON_RECIPE,
  checkLessonSettings,
  lessonTaskFor,
  measuredAt,
  type LessonSettings,
} from '../../contract/lesson/lesson-settings.ts';
import { lessonVector } from './lesson-vector.ts';
import { vocabularyOf } from '../model/model-session.ts';
import type { OpenedModel } from '../model/open-model.ts';
import { HeldOutMeasure, LessonFacts, LessonFrame, LessonRunFrame } from '../../contract/lesson/lesson-frames.ts';

interface KTrainer {
  k: number;
  model: GpuModel;
  trainer: SpladeTrainer;
  batches: TripletBatches;
  /** The held-out set's encoder (16 texts a pass) and the watched query's (one text a pass, every step). */
  encoder: SpladeTextEncoder;
  probeEncoder: SpladeTextEncoder;
}

/** The lesson's task as a retrieval set. */
export function lessonDataset(task: LessonTask, seed: number): RetrievalDataset {
  return {
    name: `lesson task (seed ${seed})`,
    corpusIds: task.corpus.map((d) => d.id),
    corpusTexts: task.corpus.map((d) => d.text),
    queryIds: task.queries.map((q) => q.id),
    queryTexts: task.queries.map((q) => q.text),
    qrels: task.qrels,
    warnings: [],
  };
}

/** The lesson's training recipe for `steps` steps: the paper's loss and AdamW, smaller batches, rate and λ. */
export function lessonRecipe(steps: number): TrainingRecipe {
  const { batchSize, queryLength, documentLength, peakLr, lambdaQueries, lambdaDocuments } = LESSON_RECIPE;
  return {
    ...paperRecipe(steps, batchSize, { queryLength, documentLength, peakLr }),
    lambdaQueries,
    lambdaDocuments,
    dropout: 0,
  };
}

export class LessonRun {
  private stepsTaken = 0;

  private constructor(
    private readonly model: OpenedModel,
    readonly facts: LessonFacts,
    private readonly dataset: RetrievalDataset,
    private readonly vocab: readonly string[],
    private readonly runs: Owned<KTrainer>[],
  ) {}

  /**
   * Uploads the model once per k (its head divided by k) with a trainer, batches and an encoder each. `probe` picks
   * the watched query among the held-out ones (default the first). Everything is freed by destroy().
   */
  static async open(ctx: GpuContext, model: OpenedModel, request: Partial<LessonSettings> = {}, probe = 0): Promise<LessonRun> {
    const settings = checkLessonSettings(request);
    const task = lessonTaskFor(settings.seed);
    const dataset = lessonDataset(task, settings.seed);
    if (!Number.isInteger(probe) || probe < 0 || probe >= task.queries.length)
      throw new RangeError(`the watched query must be 0 to ${task.queries.length - 1}, got ${probe}`);
    const recipe = lessonRecipe(settings.steps);
    const source = memoryTripletSource(task.triplets.map(([query, positive, negative]) => ({ query, positive, negative })));
    const runs: Owned<KTrainer>[] = [];
    try {
      for (const k of settings.ks) {
        runs.push(
          await ctx.ownedAsync(async () => {
            const gpuModel = GpuModel.upload(ctx, model.config, model.params);
            await divideModelHead(ctx, gpuModel, k);
            return {
              k,
              model: gpuModel,
              trainer: new SpladeTrainer(ctx, gpuModel, recipe, settings.seed),
              batches: new TripletBatches(source, model.tokenizer, recipe, settings.seed),
              encoder: new SpladeTextEncoder(ctx, gpuModel, model.tokenizer, 16),
              probeEncoder: new SpladeTextEncoder(ctx, gpuModel, model.tokenizer, 1),
            };
          }),
        );
      }
    } catch (error) {
      for (const run of runs) run.destroy();
      throw error;
    }
    const vocab = vocabularyOf(model);
    const facts = {
      settings,
      probe: task.queries[probe].text,
      queries: task.queries.length,
      documents: task.corpus.length,
      triplets: task.triplets.length,
      recipe: LESSON_RECIPE,
    };
    return new LessonRun(model, facts, dataset, vocab, runs);
  }

  get step(): number {
    return this.stepsTaken;
  }

  get finished(): boolean {
    return this.stepsTaken >= this.facts.settings.steps;
  }

  /** The frame before any training: the heads as divided, the watched vector and the held-out measure. */
  async begin(): Promise<LessonFrame> {
    if (this.stepsTaken !== 0) throw new Error('the lesson has already begun');
    return { step: 0, runs: await Promise.all(this.runs.map(({ value }) => this.frameOf(value, null))) };
  }

  /** One training step of every k, then their frames. */
  async advance(): Promise<LessonFrame> {
    if (this.finished) throw new Error(`the lesson's ${this.facts.settings.steps} steps are done`);
    const results: StepResult[] = [];
    for (const { value } of this.runs) {
      const { batch } = await value.batches.next();
      const result = await value.trainer.step([batch], true);
      if (!result) throw new Error('a lesson step read back no losses');
      results.push(result);
    }
    this.stepsTaken++;
    return { step: this.stepsTaken, runs: await Promise.all(this.runs.map(({ value }, i) => this.frameOf(value, results[i]))) };
  }

  private async frameOf(run: KTrainer, result: StepResult | null): Promise<LessonRunFrame> {
    const { queryLength, documentLength, topTerms } = LESSON_RECIPE;
    const [vector] = await run.probeEncoder.encode([this.facts.probe], { maxLength: queryLength });
    const heldOut = measuredAt(this.stepsTaken, this.facts.settings)
      ? await this.measure(run, queryLength, documentLength)
      : null;
    return {
      k: run.k,
      losses: result
        ? { rank: result.rank, flopsQueries: result.flopsQueries, flopsDocuments: result.flopsDocuments, total: result.total }
        : null,
      active: result ? { queries: result.batch.activeQueries, documents: result.batch.activeDocuments } : null,
      probe: lessonVector(this.facts.probe, run.k, vector, this.model.tokenizer, topTerms),
      heldOut,
    };
  }

  private async measure(run: KTrainer, queryLength: number, documentLength: number): Promise<HeldOutMeasure> {
    const report = await evaluateEncoder(
      {
        vocab: this.vocab,
        encodeQueries: (texts) => run.encoder.encode(texts, { maxLength: queryLength }),
        encodeDocuments: (texts) => run.encoder.encode(texts, { maxLength: documentLength }),
      },
      this.dataset,
      { topK: 100, complete: true },
    );
    return {
      ndcg10: report.metrics.ndcg_cut_10,
      recall10: report.metrics.recall_10,
      queryActiveDims: report.efficiency.query_active_dims,
      documentActiveDims: report.efficiency.corpus_active_dims,
      flops: report.efficiency.avg_flops,
    };
  }

  /** Frees every k's model, trainer and encoder. */
  destroy(): void {
    for (const run of this.runs) {
      run.value.encoder.destroy();
      run.value.probeEncoder.destroy();
      run.destroy();
    }
    this.runs.length = 0;
  }
}
