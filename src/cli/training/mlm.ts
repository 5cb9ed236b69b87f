// `splade-lab mlm`: argument adapter over the application layer's mlmRun; prints progress and the head's growth (text
// or JSON lines), and saves the trained backbone as a transformers masked-LM folder in <out>/model.
import { join, resolve } from 'node:path';
import { openModelRef, type OpenedModel } from '../../app/model/open-model.ts';
import { CHECKPOINT_FOLDER, modelRefFromArgument, nodePlatform } from '../../app/platform/platform-node.ts';
import { mlmRun } from '../../app/training/mlm.ts';
import type { MlmEvent } from '../../contract/training/mlm-report.ts';
import { openMlmSource } from '../../app/training/mlm-source-node.ts';
import type { MlmRequest } from '../../contract/training/mlm-request.ts';
import { MLM_DEFAULTS } from '../../contract/training/mlm-request.ts';
import type { MlmStepReport } from '../../contract/training/mlm-report.ts';
import { describeOptimizer } from '../../contract/training/optimizer-settings.ts';
import { describeDropout } from '../../contract/training/recipe-facts.ts';
import { UsageError, type Args, type Command } from '../command.ts';
import { RECIPE_OPTIONS } from './recipe-options.ts';
import { logCutLine, openStepLog } from './step-log.ts';

/** The step options of `train` that masked-LM training shares (not its FLOPS or temperature ones). */
const SHARED_RECIPE_OPTIONS = ['grad-accum', 'optimizer', 'weight-decay', 'max-grad-norm', 'dropout'] as const;

function reportLine(r: MlmStepReport): string {
  const width = String(r.steps).length;
  return (
    `step ${String(r.step + 1).padStart(width)}/${r.steps}  loss ${r.loss.toFixed(4)}  perplexity ${r.perplexity.toFixed(1)}  ` +
    `accuracy ${(100 * r.accuracy).toFixed(1)}%  predicted ${r.predicted.toFixed(0)}  grad norm ${r.gradNorm.toFixed(3)}  ` +
    `lr ${r.lr.toExponential(2)}  ${r.msPerStep.toFixed(0)} ms/step  ${r.tokensPerSecond.toFixed(0)} tokens/s`
  );
}

function requestFrom(args: Args): MlmRequest {
  if (args.has('steps') && args.has('epochs')) throw new UsageError('give --steps or --epochs, not both');
  const batches = args.has('batches');
  // pre-masked batches are masked and laid out already: an option that masks or lays out a text would be ignored
  for (const option of ['mlm-probability', 'line-by-line'])
    if (batches && args.has(option))
      throw new UsageError(
        `--${option} applies to a --text; --batches are masked and laid out already (their labels say what is predicted): leave --${option} out`,
      );
  return {
    steps: args.number('steps'),
    epochs: args.number('epochs'),
    batchSize: args.numberOrDefault('batch'),
    // --batches without --max-length: their longest sequence
    maxLength: batches && !args.has('max-length') ? undefined : args.numberOrDefault('max-length'),
    peakLr: args.number('lr'),
    mlmProbability: args.number('mlm-probability'),
    layout: args.has('batches') ? 'pre-masked' : args.flag('line-by-line') ? 'line-by-line' : 'grouped',
    gradAccum: args.number('grad-accum'),
    optimizer: args.string('optimizer') as MlmRequest['optimizer'],
    warmupRatio: args.number('warmup-ratio'),
    weightDecay: args.number('weight-decay'),
    maxGradNorm: args.number('max-grad-norm'),
    dropout: args.number('dropout'),
    seed: args.number('seed'),
    shuffle: !args.flag('no-shuffle'),
    checkpointEvery: args.numberOrDefault('checkpoint-every'),
    reportEvery: args.number('report-every'),
    resume: args.flag('resume'),
  };
}

export const mlmCommand: Command = {
  spec: {
    name: 'mlm',
    summary: 'train a backbone as a masked language model on text (domain-adaptive pretraining), checkpointed and resumable',
    options: {
      model: { value: 'dir-or-hub-id', help: 'the backbone: a Hugging Face model folder or a Hub id', required: true },
      'no-batch-cache': {
        help: "tokenize the text afresh (default: a text's sequences are kept in SPLADE_LAB_BATCH_CACHE, ~/.cache/splade-lab/batches, and reused by the next run or resume on the same text, tokenizer, layout and length)",
      },
      text: {
        value: 'file-or-folder',
        help: 'the text: a .txt file (one document per line), a .jsonl file ("text", optional "title") or a BEIR corpus (folder or corpus.jsonl); empty documents are skipped and counted',
      },
      batches: {
        value: 'file.jsonl',
        help: 'pre-masked sequences instead of --text, one JSON object per line: {"input_ids": [...], "attention_mask": [...], "labels": [...]} (labels -100 where not predicted; a label where attention_mask is 0 is refused, naming the line), batched in file order with --no-shuffle, padded to their longest sequence (or --max-length); --mlm-probability and --line-by-line do not apply',
      },
      out: {
        value: 'dir',
        help: 'the run folder: checkpoints in <dir>/checkpoint, the trained masked-LM folder in <dir>/model',
        required: true,
      },
      steps: { value: 'N', help: 'steps of the run (instead of --epochs)' },
      epochs: { value: 'E', help: 'epochs over the sequences (default 1 when --steps is not given)' },
      batch: { value: 'B', help: 'sequences per micro-batch', default: '16' },
      'max-length': {
        value: 'T',
        help: "tokens per sequence: the texts are concatenated and cut into blocks of T (or truncated, with --line-by-line); with --batches, the length they are padded to (default: their longest sequence's)",
        default: String(MLM_DEFAULTS.maxLength),
      },
      'line-by-line': { help: 'one document per sequence (truncated to --max-length, padded) instead of full blocks' },
      'mlm-probability': {
        value: 'P',
        help:
          'chance of each non-special token to be predicted (of those: 80% [MASK], 10% a random token, 10% kept); BERT, ' +
          'RoBERTa, DistilBERT and ALBERT were pretrained at 0.15, ModernBERT (and Ettin) at 0.30: a note says when P is off ' +
          "the backbone's rate",
        default: String(MLM_DEFAULTS.mlmProbability),
      },
      lr: {
        value: 'LR',
        help: 'peak learning rate (linear warm-up, then linear decay to 0)',
        default: String(MLM_DEFAULTS.peakLr),
      },
      'warmup-ratio': {
        value: 'R',
        help: 'fraction of the steps of linear learning-rate warm-up',
        default: String(MLM_DEFAULTS.warmupRatio),
      },
      ...Object.fromEntries(SHARED_RECIPE_OPTIONS.map((name) => [name, RECIPE_OPTIONS[name]])),
      seed: { value: 'S', help: 'seed of the data order and of the masking (32-bit)', default: String(MLM_DEFAULTS.seed) },
      'no-shuffle': { help: 'sequences in file order every epoch (instead of a seeded shuffle per epoch)' },
      'checkpoint-every': { value: 'N', help: 'checkpoint every N steps (and after the last)', default: '500' },
      'report-every': { value: 'N', help: 'report (and measure the head) every N steps (default: 20 reports in all)' },
      resume: { help: "continue the run folder's newest checkpoint (same options required)" },
      json: { help: 'print one JSON object per event instead of text' },
      log: {
        value: 'file.jsonl',
        help: "also append one JSON line per reported step to this file, its first member the run (the --out folder's absolute path); --resume cuts back only this run's lines after its checkpoint, other lines stay",
      },
    },
    notes:
      "Masking follows Hugging Face's DataCollatorForLanguageModeling; the loss is the mean cross-entropy over the\n" +
      "predicted positions only. The head's mean row norm and anisotropy are measured before the first step and at\n" +
      'every report: masked-LM training is what grows the long rows the paper divides by k. A NaN or Inf stops the run\n' +
      'with an error naming the step; the last good checkpoint is kept and no model is saved.',
  },
  async run(args) {
    const json = args.flag('json');
    const text = args.string('text');
    const batches = args.string('batches');
    if ((text === undefined) === (batches === undefined)) throw new UsageError('give --text or --batches (one of them)');
    const log = args.string('log');
    const out = args.required('out');
    const stepLog = log === undefined ? null : await openStepLog(log, resolve(out));
    const emit = (event: Record<string, unknown>, line: string) =>
      process.stdout.write(json ? JSON.stringify(event) + '\n' : `${line}\n`);
    const modelArg = args.required('model');
    const request = requestFrom(args);
    const ctx = await nodePlatform.acquireGpu('mlm');
    try {
      const onEvent = (event: MlmEvent) => {
        if (event.kind === 'start') {
          const { recipe, seed } = event;
          const { schedule } = recipe;
          emit(
            { event: 'start', model: modelArg, steps: schedule.totalSteps, seed, recipe, resume: request.resume },
            `${event.provenance}\n` +
              `  ${schedule.totalSteps} steps of ${recipe.gradAccum ? `${recipe.gradAccum} micro-batches of ` : ''}${recipe.batchSize} sequences of ${recipe.maxLength} tokens, ` +
              `peak lr ${schedule.peakLr} (warm-up ${schedule.warmupRatio}), ${recipe.layout === 'pre-masked' ? 'masks as given' : `masking ${recipe.mlmProbability}`}\n` +
              `  ${describeOptimizer(recipe.optimizer)}; ${recipe.maxGradNorm ? `gradients clipped to a global norm of ${recipe.maxGradNorm}` : 'no gradient clipping'}; ` +
              `${describeDropout(recipe)}${recipe.dataOrder === 'file' ? '; sequences in file order' : ''}`,
          );
          if (event.resumedFrom) {
            const path = join(out, CHECKPOINT_FOLDER, event.resumedFrom);
            emit({ event: 'resume', step: event.startStep, checkpoint: path }, `  resuming ${path} at step ${event.startStep}`);
            const step = event.startStep;
            stepLog?.cutBackTo(step).then(
              (cut) => cut.dropped > 0 && emit({ event: 'log-cut', log, step, ...cut }, logCutLine(log!, step, cut)),
              () => undefined, // the failure is reported by settled()
            );
          }
        } else if (event.kind === 'report') {
          const line = { event: 'step', ...event.report, step: event.report.step + 1 };
          emit(line, reportLine(event.report));
          stepLog?.append(line);
        } else if (event.kind === 'head') {
          const g = event.growth;
          emit(
            { event: 'head', ...g },
            `  head at step ${g.step}: mean row norm ${g.meanRowNorm.toFixed(4)}, p99 ${g.p99RowNorm.toFixed(4)}, max ${g.maxRowNorm.toFixed(4)}, anisotropy ${g.anisotropy.toFixed(4)}`,
          );
        } else if (event.kind === 'note') {
          emit({ event: 'note', note: event.note }, `  note: ${event.note}`);
        } else {
          const path = join(out, CHECKPOINT_FOLDER, event.name);
          emit({ event: 'checkpoint', step: event.step, path }, `  checkpoint ${path}`);
        }
      };
      const say = (line: string, fields: Record<string, unknown>) =>
        fields.note ? emit({ event: 'note', note: fields.note, message: line }, line) : emit({ event: 'data', ...fields }, line);
      const done = await mlmRun(ctx, nodePlatform, {
        model: async (): Promise<OpenedModel> =>
          openModelRef(nodePlatform, await modelRefFromArgument(modelArg), { limits: ctx.limits }),
        source: (planned, model) =>
          openMlmSource(
            text !== undefined
              ? { kind: 'text', path: text, option: '--text' }
              : { kind: 'batches', path: batches!, option: '--batches' },
            planned,
            { tokenizer: model.tokenizer, config: model.config, say, cache: !args.flag('no-batch-cache') },
          ),
        run: out,
        request,
        onEvent,
      });
      await stepLog?.settled();
      emit(
        {
          event: 'done',
          steps: done.step,
          startStep: done.startStep,
          msPerStep: done.msPerStep,
          model: done.saved.where,
          files: done.saved.files,
        },
        `saved ${done.saved.where} (${done.saved.files.length} files; transformers masked-LM folder)` +
          `${Number.isFinite(done.msPerStep) ? `; ${done.msPerStep.toFixed(0)} ms per step` : ''}`,
      );
      return 0;
    } finally {
      ctx.destroy();
    }
  },
};
