// `splade-lab train`: argument adapter over the application layer's trainRun; prints progress (text or JSON
// lines), and saves the trained model as a sentence-transformers SparseEncoder in <out>/model.
import type { TeacherLabelSummary } from '../../contract/training/teacher-labels.ts';
import { join, resolve } from 'node:path';
import { openModelRef, type OpenedModel } from '../../app/model/open-model.ts';
import { CHECKPOINT_FOLDER, modelRefFromArgument, nodePlatform } from '../../app/platform/platform-node.ts';
import type { TrainRequest } from '../../contract/training/training-request.ts';
import type { StepReport } from '../../contract/training/training-report.ts';
import { TrainingPaused, type TrainEvent, trainRun } from '../../app/training/train.ts';
import { corpusQueryWeights } from '../../app/evaluation/idf-table-node.ts';
import type { Alarm, AlarmRule } from '../../contract/training/alarm-rules.ts';
import type { ProbeSnapshot, ProbeText } from '../../contract/training/probes.ts';
import { describeOptimizer } from '../../contract/training/optimizer-settings.ts';
import { describeDropout, microBatches } from '../../contract/training/recipe-facts.ts';
import { UsageError, type Args, type Command } from '../command.ts';
import { RECIPE_OPTIONS, checkpointOption, runSizeOptions, trainRequestFrom } from './recipe-options.ts';
import { TRIPLETS_OPTIONS, withTripletsOption } from './triplets-option.ts';
import { logCutLine, openStepLog } from './step-log.ts';

function reportLine(r: StepReport): string {
  const width = String(r.steps).length;
  return (
    `step ${String(r.step + 1).padStart(width)}/${r.steps}  loss ${r.total.toFixed(4)}  rank ${r.rank.toFixed(4)}  ` +
    `FLOPS q ${r.flopsQueries.toFixed(3)} (x${r.lambdaQueries.toExponential(1)}) d ${r.flopsDocuments.toFixed(3)} (x${r.lambdaDocuments.toExponential(1)})  ` +
    `active q ${r.activeQueries.toFixed(1)} d ${r.activeDocuments.toFixed(1)}  lr ${r.lr.toExponential(2)}  ${r.msPerStep.toFixed(0)} ms/step  ${r.tokensPerSecond.toFixed(0)} tokens/s`
  );
}

function probeLines(snapshot: ProbeSnapshot): string {
  const lines = snapshot.probes.map(
    (p) =>
      `  probe ${p.role === 'query' ? 'q' : 'd'} "${p.text.length > 40 ? `${p.text.slice(0, 39)}…` : p.text}": ${p.activeDims} active; ${p.terms.map((t) => `${t.term} ${t.weight.toFixed(2)}`).join(', ')}`,
  );
  const scores = snapshot.scores
    .map((row, i) => `q${i + 1}: ${row.map((s, j) => `d${j + 1} ${s.toFixed(2)}`).join(' ')}`)
    .join('; ');
  return [`probes at step ${snapshot.step}`, ...lines, ...(scores ? [`  scores ${scores}`] : [])].join('\n');
}

function alarmLines(alarm: Alarm, stops: boolean): string {
  return (
    `${alarm.severity.toUpperCase()} [${alarm.rule}] step ${alarm.step}: ${alarm.title}${stops ? ' (stopping)' : ''}\n` +
    `  ${alarm.evidence}\n  advice: ${alarm.advice}\n  ranges: ${alarm.ranges}`
  );
}

function probesFrom(args: Args): ProbeText[] | undefined {
  const probes: ProbeText[] = [
    ...args.all('probe').map((text) => ({ role: 'query' as const, text })),
    ...args.all('probe-doc').map((text) => ({ role: 'document' as const, text })),
  ];
  return probes.length ? probes : undefined;
}

/** The teacher labels' summary as the text output gives it, and its warning. */
function teacherLines({ labels, warning }: { labels: TeacherLabelSummary; warning?: string }): string {
  const f = (x: number) => x.toPrecision(4);
  const line =
    `  teacher labels: ${labels.width} per row on ${labels.rows} rows, range ${f(labels.min)} to ${f(labels.max)}, ` +
    `mean ${f(labels.mean)}, spread (std) ${f(labels.std)}`;
  return warning ? `${line}\n  warning: ${warning}` : line;
}

/** --gpu-memory in bytes, or undefined. */
function gpuMemory(args: Args): number | undefined {
  const gib = args.number('gpu-memory');
  if (gib === undefined) return undefined;
  if (!(gib > 0)) throw new UsageError(`--gpu-memory must be a number of GiB above 0, got ${gib}`);
  return gib * 2 ** 30;
}

function requestFrom(args: Args): TrainRequest {
  if (args.has('steps') && args.has('epochs')) throw new UsageError('give --steps or --epochs, not both');
  return {
    ...trainRequestFrom(args),
    steps: args.number('steps'),
    epochs: args.number('epochs'),
    shuffle: !args.flag('no-shuffle'),
    checkpointEvery: args.numberOrDefault('checkpoint-every'),
    reportEvery: args.numberOrDefault('report-every'),
    resume: args.flag('resume'),
    probes: probesFrom(args),
    probeEvery: args.number('probe-every'),
    stopOnAlarm: args.flag('stop-on-alarm'),
    ignoreAlarms: args.all('ignore-alarm') as AlarmRule[],
  };
}

export const trainCommand: Command = {
  spec: {
    name: 'train',
    summary: "fine-tune a SPLADE model on triplets with the paper's recipe (head divided by k first), checkpointed and resumable",
    options: {
      model: { value: 'dir-or-hub-id', help: 'the backbone: a Hugging Face model folder or a Hub id', required: true },
      ...TRIPLETS_OPTIONS,
      out: {
        value: 'dir',
        help: 'the run folder: checkpoints in <dir>/checkpoint, the trained model in <dir>/model',
        required: true,
      },
      steps: { value: 'N', help: 'steps of the run (instead of --epochs)' },
      epochs: { value: 'E', help: 'epochs over the triplets (default 1 when --steps is not given)' },
      ...runSizeOptions({
        lr: 'peak learning rate (linear warm-up, then linear decay to 0)',
        'lambda-q': 'FLOPS weight of the queries (quadratic ramp, see --flops-ramp-ratio)',
      }),
      ...RECIPE_OPTIONS,
      'gpu-memory': {
        value: 'GiB',
        help: 'GPU memory the run may take, model included: over it the run is refused before it starts, with a batch (and --grad-accum) that fits',
      },
      'no-batch-cache': {
        help: 'tokenize every batch afresh (default: batches are kept in SPLADE_LAB_BATCH_CACHE, ~/.cache/splade-lab/batches, and reused)',
      },
      'idf-from': {
        value: 'path',
        help: "with --inference-free: the query weights' IDF over this corpus (a BEIR folder or corpus.jsonl, a .jsonl or .txt file; as `splade-lab idf`) instead of the training data's documents",
      },
      'no-shuffle': { help: 'triplets in file order every epoch (instead of a seeded shuffle per epoch)' },
      'checkpoint-every': checkpointOption('checkpoint every N steps (and after the last)'),
      'report-every': { value: 'N', help: 'report every N steps (and after the first and the last)', default: '10' },
      resume: { help: "continue the run folder's newest checkpoint (same options required)" },
      probe: {
        value: 'text',
        help: 'a query probe, encoded while training (repeatable; replaces the default probes)',
        multiple: true,
      },
      'probe-doc': { value: 'text', help: 'a document probe (repeatable)', multiple: true },
      'probe-every': {
        value: 'N',
        help: 'encode the probes before the first step and every N steps (0: never; default: as --report-every)',
      },
      'stop-on-alarm': {
        help: 'stop at the first alarm (not a warning), after saving a checkpoint (exit status 3; --resume goes on)',
      },
      'ignore-alarm': { value: 'rule', help: 'an alarm rule that does not stop the run (repeatable)', multiple: true },
      json: { help: 'print one JSON object per event instead of text' },
      log: {
        value: 'file.jsonl',
        help: "also append one JSON line per reported step to this file, its first member the run (the --out folder's absolute path); --resume cuts back only this run's lines after its checkpoint, other lines stay",
      },
    },
    notes:
      'A NaN or Inf in a loss or a weight stops the run with an error naming the step and the part; the last good\n' +
      'checkpoint is kept and no model is saved. One process writes a run folder at a time (a lock file in it).\n' +
      'Alarms (collapse, densification, exploding-scores, special-terms, flops-dominates, chance-loss) are printed\n' +
      'with their evidence and advice; with --stop-on-alarm the run saves a checkpoint and exits with status 3.',
  },
  async run(args) {
    const json = args.flag('json');
    const log = args.string('log');
    const out = args.required('out');
    const stepLog = log === undefined ? null : await openStepLog(log, resolve(out));
    const emit = (event: Record<string, unknown>, text: string) =>
      process.stdout.write(json ? JSON.stringify(event) + '\n' : `${text}\n`);
    const modelArg = args.required('model');
    return withTripletsOption(args, async ({ data, summary, where: tripletsPath }) => {
      const request = requestFrom(args);
      const ctx = await nodePlatform.acquireGpu('train');
      try {
        const loaded: { model?: OpenedModel } = {};
        const onEvent = (event: TrainEvent) => {
          if (event.kind === 'start') {
            const { recipe, k, seed } = event;
            const { schedule, batchSize: B } = recipe;
            const accum = microBatches(recipe);
            const ramp = recipe.flopsRampRatio ?? 1 / 3;
            emit(
              {
                event: 'start',
                model: modelArg,
                triplets: summary.triplets,
                blankLines: summary.blankLines,
                steps: schedule.totalSteps,
                k,
                seed,
                recipe,
                resume: request.resume,
              },
              `training ${loaded.model?.config.hfArchitecture} from ${modelArg} on ${summary.triplets} triplets of ${tripletsPath}` +
                `${summary.blankLines ? ` (${summary.blankLines} blank lines skipped)` : ''}\n` +
                `  ${schedule.totalSteps} steps of ${accum > 1 ? `${accum} micro-batches of ` : ''}${B} triplets ` +
                `(${((schedule.totalSteps * B * accum) / summary.triplets).toFixed(2)} epochs), ` +
                `lengths ${recipe.queryLength}/${recipe.documentLength}, head divided by k = ${k}, peak lr ${schedule.peakLr} ` +
                `(warm-up ${schedule.warmupRatio}), lambda_q ${recipe.lambdaQueries}, lambda_d ${recipe.lambdaDocuments} ` +
                `(${ramp === 0 ? 'no ramp' : `quadratic ramp over ${ramp === 1 / 3 ? 'a third' : `${ramp} of the steps`}`}), temperature ${recipe.tau}\n` +
                `  ${describeOptimizer(recipe.optimizer)}; ${recipe.maxGradNorm ? `gradients clipped to a global norm of ${recipe.maxGradNorm}` : 'no gradient clipping'}; ` +
                `${describeDropout(recipe, loaded.model?.config)}` +
                `${recipe.dataOrder === 'file' ? '; triplets in file order' : ''}`,
            );
            for (const note of loaded.model?.notes ?? []) emit({ event: 'note', note }, `  note: ${note}`);
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
          } else if (event.kind === 'probe') {
            emit({ event: 'probe', ...event.snapshot }, probeLines(event.snapshot));
          } else if (event.kind === 'alarm') {
            emit({ event: 'alarm', ...event.alarm, stops: event.stops }, alarmLines(event.alarm, event.stops));
          } else if (event.kind === 'note') {
            emit({ event: 'note', note: event.note }, `  note: ${event.note}`);
          } else if (event.kind === 'teacher') {
            emit(
              { event: 'teacher', ...event.labels, ...(event.warning ? { warning: event.warning } : {}) },
              teacherLines(event),
            );
          } else if (event.kind === 'checkpoint') {
            const path = join(out, CHECKPOINT_FOLDER, event.name);
            emit({ event: 'checkpoint', step: event.step, path }, `  checkpoint ${path}`);
          } else if (event.done === event.total) {
            emit({ event: 'cached', batches: event.total }, `  ${event.total} batches cached`);
          }
        };
        const idfFrom = args.string('idf-from');
        if (idfFrom && !request.inferenceFree) throw new UsageError('--idf-from weighs the queries of an --inference-free run');
        let run;
        try {
          run = await trainRun(ctx, nodePlatform, {
            model: async () =>
              (loaded.model = await openModelRef(nodePlatform, await modelRefFromArgument(modelArg), { limits: ctx.limits })),
            data,
            run: out,
            request,
            existing: 'refuse',
            batchCache: !args.flag('no-batch-cache'),
            memoryBudget: gpuMemory(args),
            onEvent,
            record: { store: nodePlatform.runs },
            ...(idfFrom ? { queryWeights: (tokenizer) => corpusQueryWeights(idfFrom, tokenizer) } : {}),
          });
        } catch (error) {
          await stepLog?.settled().catch(() => undefined); // the run's own error is the one to report
          if (!(error instanceof TrainingPaused)) throw error;
          const checkpoint = join(out, CHECKPOINT_FOLDER, error.checkpoint);
          emit(
            { event: 'stopped', reason: error.reason, step: error.step, checkpoint },
            `stopped at step ${error.step} on ${error.reason}; checkpoint ${checkpoint} is kept (--resume goes on, --ignore-alarm <rule> lets it pass)`,
          );
          return 3;
        }
        await stepLog?.settled();
        const { saved } = run;
        emit(
          {
            event: 'done',
            steps: run.step,
            startStep: run.startStep,
            msPerStep: run.msPerStep,
            model: saved.where,
            files: saved.files,
          },
          `saved ${saved.where} (${saved.files.length} files; sentence-transformers SparseEncoder)` +
            `${Number.isFinite(run.msPerStep) ? `; ${run.msPerStep.toFixed(0)} ms per step` : ''}`,
        );
        return 0;
      } finally {
        ctx.destroy();
      }
    });
  },
};
