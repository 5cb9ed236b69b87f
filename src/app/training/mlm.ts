// Masked-LM training, once for the page and the CLI: `mlmRun` takes the run's lock, plans the request, trains (new,
// or continuing its newest checkpoint) through train/mlm-loop.ts, reports progress and the head's growth as events,
// and saves the trained backbone as a transformers masked-LM folder where the platform keeps models.
import type { GpuContext } from '../../gpu/context.ts';
import type { OpenedModel } from '../model/open-model.ts';
import type { Platform } from '../platform/platform.ts';
import { maskedLmFiles } from '../model/save-model.ts';
import { checkLengthsFit } from '../../contract/max-tokens.ts';
import { MLM_DEFAULTS, planMlm, type MlmPlan, type MlmRequest } from '../../contract/mlm-request.ts';
import { maskingRateNote, type MlmRecipe } from '../../contract/mlm-recipe.ts';
import type { HeadGrowth, MlmEvent } from '../../contract/mlm-report.ts';
import type { DataFingerprint } from '../../contract/training-report.ts';
import { describeOptimizer } from '../../contract/optimizer-settings.ts';
import { describeDropout } from '../../contract/recipe-facts.ts';
import { runMlmLoop, type MlmData } from '../../train/mlm-loop.ts';
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
  const lock = await platform.lockRun(options.run);
  try {
    const model = typeof options.model === 'function' ? await options.model() : options.model;
    const asked = options.request;
    // pre-masked batches without a length take their own (the reader holds them to what the model takes)
    if (asked.layout !== 'pre-masked' || asked.maxLength !== undefined)
      checkLengthsFit(model.config, { 'The sequence length': asked.maxLength ?? MLM_DEFAULTS.maxLength });
    const source = await options.source(asked, model);
    const plan = planMlm({ ...asked, maxLength: source.maxLength }, source.sequences);
    const store = platform.checkpointStore(options.run);
    if (!plan.resume && options.existing === 'replace')
      for (const { name } of await listCheckpoints(store)) await store.remove(name);
    const divided = plan.k === 1 ? '' : `, its head divided by k = ${plan.k} first`;
    const provenance = `${model.name} (${model.config.hfArchitecture})${divided} trained as a masked LM on ${source.sequences} sequences of ${source.fingerprint.name}`;
    const growth: HeadGrowth[] = [];
    const emit = (event: MlmEvent) => options.onEvent?.(event);
    // said once, before the first step: a masking rate off the backbone's pretraining recipe (pre-masked batches have none)
    const masking =
      plan.recipe.layout === 'pre-masked' ? undefined : maskingRateNote(model.config.architecture, plan.recipe.mlmProbability);
    if (masking) emit({ kind: 'note', note: masking });
    const owned = await ctx.ownedAsync(() =>
      runMlmLoop(ctx, model, source.data(plan.recipe, plan.seed), store, {
        recipe: plan.recipe,
        k: plan.k,
        seed: plan.seed,
        checkpointEvery: plan.checkpointEvery,
        reportEvery: plan.reportEvery,
        resume: plan.resume,
        signal: options.signal,
        onStart: (startStep, resumedFrom) =>
          emit({ kind: 'start', startStep, resumedFrom, recipe: plan.recipe, seed: plan.seed, provenance }),
        onReport: (report) => emit({ kind: 'report', report }),
        onHead: (measured) => {
          growth.push(measured);
          emit({ kind: 'head', growth: measured });
        },
        onCheckpoint: (name, step) => emit({ kind: 'checkpoint', name, step, store: store.label }),
      }),
    );
    try {
      await ctx.sync();
      const { trainer, startStep, msPerStep } = owned.value;
      const files = await maskedLmFiles(model, await trainer.model.download(), mlmCard(model, plan, trainer.t, source));
      const where = await platform.writeModel(options.run, files);
      return { startStep, step: trainer.t, msPerStep, growth, saved: { where, files: [...files.keys()] } };
    } finally {
      owned.destroy();
    }
  } finally {
    await lock.release();
  }
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
