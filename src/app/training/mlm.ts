// Masked-LM training, once for the page and the CLI: `mlmRun` opens a TrainingRun (the lock), plans the request,
// trains (new, or continuing its newest checkpoint) through train/mlm/mlm-loop.ts's events, tells progress and the head's
// growth as events, and saves the trained backbone as a transformers masked-LM folder where the platform keeps models.
import type { GpuContext } from '../../gpu/context.ts';
import type { OpenedModel } from '../model/open-model.ts';
import type { Platform } from '../platform/platform.ts';
import { maskedLmFiles } from '../model/save-model.ts';
import { checkLengthsFit } from '../../contract/model/max-tokens.ts';
import { MLM_DEFAULTS, planMlm, type MlmPlan, type MlmRequest } from '../../contract/training/mlm-request.ts';
import { maskingRateNote, type MlmRecipe } from '../../contract/training/mlm-recipe.ts';
import type { HeadGrowth, MlmEvent } from '../../contract/training/mlm-report.ts';
import type { DataFingerprint } from '../../contract/training/training-report.ts';
import { describeOptimizer } from '../../contract/training/optimizer-settings.ts';
import { describeDropout } from '../../contract/training/recipe-facts.ts';
import { mlmSteps, type MlmData } from '../../train/mlm/mlm-loop.ts';
import { TrainingRun } from './training-run.ts';
import { listCheckpoints } from '../../train/training-checkpoint.ts';

/** What a masked-LM run trains on: its sequences per epoch, what was skipped, and its batches for a recipe. */
export interface MlmSource {
  fingerprint: DataFingerprint;
  /** Sequences per epoch (after grouping into blocks, or one per document). */
  sequences: number;
  /** Tokens per sequence: the request's (a text's default), or pre-masked batches' longest sequence. */
  maxLength: number;
  /** The batches of a recipe and seed (masking included). */
  data(recipe: MlmRecipe, seed: number): MlmData;
}

export interface MlmOptions {
  /** The backbone, or how to open it: opened only once the run's lock is held. */
  model: OpenedModel | (() => Promise<OpenedModel>);
  /** The text (or pre-masked batches) as the request's layout and length make it, once the model is open. */
  source: (request: MlmRequest, model: OpenedModel) => Promise<MlmSource>;
  /** The run: its folder in Node, its key in the page. */
  run: string;
  request: MlmRequest;
  /** A new run where checkpoints already are: refused (the CLI's run folder) or they are discarded first (the page). */
  existing?: 'refuse' | 'replace';
  signal?: AbortSignal;
  onEvent?: (event: MlmEvent) => void;
}

export interface MlmOutcome {
  startStep: number;
  step: number;
  msPerStep: number;
  /** The head's growth over this process's reports. */
  growth: HeadGrowth[];
  saved: { where: string; files: string[] };
}

export async function mlmRun(ctx: GpuContext, platform: Platform, options: MlmOptions): Promise<MlmOutcome> {
  planMlm(options.request, 1); // a request that cannot run is refused before any file is read
  const run = await TrainingRun.open<MlmEvent>(platform, options.run, options.model, options.onEvent);
  try {
    const { model } = run;
    const asked = options.request;
    // pre-masked batches without a length take their own (the reader holds them to what the model takes)
    if (asked.layout !== 'pre-masked' || asked.maxLength !== undefined)
      checkLengthsFit(model.config, { 'The sequence length': asked.maxLength ?? MLM_DEFAULTS.maxLength });
    const source = await options.source(asked, model);
    const plan = planMlm({ ...asked, maxLength: source.maxLength }, source.sequences);
    await run.clear(plan.resume, options.existing ?? 'refuse');
    // said once, before the first step: a masking rate off the backbone's pretraining recipe (pre-masked batches have none)
    const masking =
      plan.recipe.layout === 'pre-masked' ? undefined : maskingRateNote(model.config.architecture, plan.recipe.mlmProbability);
    if (masking) run.emit({ kind: 'note', note: masking });
    const growth: HeadGrowth[] = [];
    const { recipe, k, seed, checkpointEvery, reportEvery, resume } = plan;
    const settings = { recipe, k, seed, checkpointEvery, reportEvery, resume, signal: options.signal, measureHead: true };
    const steps = mlmSteps(ctx, model, source.data(recipe, seed), run.store, settings);
    const done = await run.drive(ctx, steps, (event) => {
      switch (event.kind) {
        case 'start': {
          const { startStep, resumedFrom } = event;
          return run.emit({
            kind: 'start',
            startStep,
            resumedFrom,
            recipe,
            seed,
            provenance: mlmProvenance(model, plan, source),
          });
        }
        case 'head':
          growth.push(event.growth);
          return run.emit(event);
        case 'checkpoint':
          return run.emit({ ...event, store: run.store.label });
        case 'report':
        case 'note':
          return run.emit(event);
      }
    });
    const { trainer, startStep, msPerStep } = done;
    const files = await maskedLmFiles(model, await trainer.model.download(), mlmCard(model, plan, trainer.t, source));
    return { startStep, step: trainer.t, msPerStep, growth, saved: await run.save(files) };
  } catch (error) {
    await run.fail(error);
    throw error;
  } finally {
    await run.close();
  }
}

/** What a masked-LM run's figures are captioned with: the model, its division, the data. */
function mlmProvenance(model: OpenedModel, plan: MlmPlan, source: MlmSource): string {
  const divided = plan.k === 1 ? '' : `, its head divided by k = ${plan.k} first`;
  return `${model.name} (${model.config.hfArchitecture})${divided} trained as a masked LM on ${source.sequences} sequences of ${source.fingerprint.name}`;
}

/** The step of a run's newest checkpoint, or null when it has none. */
export async function mlmCheckpointStep(platform: Platform, run: string): Promise<number | null> {
  return (await listCheckpoints(platform.checkpointStore(run))).at(-1)?.step ?? null;
}

/** The README of a masked-LM trained folder: what it started from, on what, and how. */
function mlmCard(model: OpenedModel, plan: MlmPlan, steps: number, source: MlmSource): string {
  const { recipe, seed, k } = plan;
  const { schedule } = recipe;
  return [
    '---',
    'library_name: transformers',
    'pipeline_tag: fill-mask',
    'tags: [splade-lab, masked-lm]',
    '---',
    '',
    `# ${model.name}, trained as a masked language model by splade-lab`,
    '',
    `- Started from: ${model.name} (${model.config.hfArchitecture})${k === 1 ? '' : `, its MLM head divided by k = ${k} (rows ${k} times shorter)`}`,
    `- Data: ${source.fingerprint.name} (${source.sequences} sequences of ${recipe.maxLength} tokens or fewer, CRC-32 ${source.fingerprint.crc32.toString(16)})`,
    `- Steps: ${steps} of ${recipe.batchSize}${recipe.gradAccum ? ` x ${recipe.gradAccum}` : ''} sequences; ${recipe.layout === 'grouped' ? 'texts concatenated and cut into full blocks' : recipe.layout === 'line-by-line' ? 'one text per sequence' : 'pre-masked batches'}`,
    `- Masking: ${recipe.layout === 'pre-masked' ? 'as given in the batches file' : `${recipe.mlmProbability} of the non-special tokens predicted; of those 80% [MASK], 10% a random token, 10% kept`}`,
    `- ${describeOptimizer(recipe.optimizer)}; peak lr ${schedule.peakLr}, warm-up ${schedule.warmupRatio}, linear decay; ${recipe.maxGradNorm ? `clipped to ${recipe.maxGradNorm}` : 'no clipping'}; ${describeDropout(recipe, model.config)}; seed ${seed}`,
    '',
  ].join('\n');
}
