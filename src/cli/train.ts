// `splade-lab train`: argument adapter over the application layer's trainRun; prints progress (text or JSON
// lines), and saves the trained model as a sentence-transformers SparseEncoder in <out>/model.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openModelRef, type OpenedModel } from '../app/open-model.ts';
import { CHECKPOINT_FOLDER, modelRefFromArgument, nodePlatform } from '../app/platform-node.ts';
import type { TrainRequest } from '../app/requests.ts';
import type { StepReport } from '../app/gpu-types.ts';
import type { TrainEvent } from '../app/train.ts';
import { trainRun } from '../app/train-run.ts';
import { readTrainingData } from '../app/training-data.ts';
import { UsageError, type Args, type Command } from './command.ts';

function reportLine(r: StepReport): string {
  const width = String(r.steps).length;
  return (
    `step ${String(r.step + 1).padStart(width)}/${r.steps}  loss ${r.total.toFixed(4)}  rank ${r.rank.toFixed(4)}  ` +
    `FLOPS q ${r.flopsQueries.toFixed(3)} (x${r.lambdaQueries.toExponential(1)}) d ${r.flopsDocuments.toFixed(3)} (x${r.lambdaDocuments.toExponential(1)})  ` +
    `active q ${r.activeQueries.toFixed(1)} d ${r.activeDocuments.toFixed(1)}  lr ${r.lr.toExponential(2)}  ${r.msPerStep.toFixed(0)} ms/step`
  );
}

function requestFrom(args: Args): TrainRequest {
  if (args.has('steps') && args.has('epochs')) throw new UsageError('give --steps or --epochs, not both');
  return {
    k: args.numberOr('k', 1),
    steps: args.number('steps'),
    epochs: args.number('epochs'),
    batchSize: args.numberOr('batch', 8),
    queryLength: args.numberOr('query-length', 32),
    documentLength: args.numberOr('doc-length', 128),
    peakLr: args.number('lr'),
    lambdaQueries: args.number('lambda-q'),
    lambdaDocuments: args.number('lambda-d'),
    seed: args.number('seed'),
    checkpointEvery: args.numberOr('checkpoint-every', 50),
    reportEvery: args.numberOr('report-every', 10),
    resume: args.flag('resume'),
  };
}

export const trainCommand: Command = {
  spec: {
    name: 'train',
    summary: "fine-tune a SPLADE model on triplets with the paper's recipe (head divided by k first), checkpointed and resumable",
    options: {
      model: { value: 'dir-or-hub-id', help: 'the backbone: a Hugging Face model folder or a Hub id', required: true },
      triplets: { value: 'tsv', help: 'training triplets, query<TAB>positive<TAB>negative per line', required: true },
      out: { value: 'dir', help: 'the run folder: checkpoints in <dir>/checkpoint, the trained model in <dir>/model', required: true },
      k: { value: 'K', help: 'divide the MLM head by k before training', default: '1' },
      steps: { value: 'N', help: 'steps of the run (instead of --epochs)' },
      epochs: { value: 'E', help: 'epochs over the triplets (default 1 when --steps is not given)' },
      batch: { value: 'B', help: 'triplets per step', default: '8' },
      'query-length': { value: 'T', help: 'tokens per query', default: '32' },
      'doc-length': { value: 'T', help: 'tokens per document', default: '128' },
      lr: { value: 'LR', help: 'peak learning rate (linear warm-up over 10%, then linear decay)', default: '1e-4' },
      'lambda-q': { value: 'L', help: 'FLOPS weight of the queries (quadratic ramp over the first third)', default: '5e-2' },
      'lambda-d': { value: 'L', help: 'FLOPS weight of the documents', default: '3e-3' },
      seed: { value: 'S', help: 'seed of the data order (32-bit)', default: '1' },
      'checkpoint-every': { value: 'N', help: 'checkpoint every N steps (and after the last)', default: '50' },
      'report-every': { value: 'N', help: 'report every N steps (and after the first and the last)', default: '10' },
      resume: { help: "continue the run folder's newest checkpoint (same options required)" },
      json: { help: 'print one JSON object per event instead of text' },
    },
    notes:
      'A NaN or Inf in a loss or a weight stops the run with an error naming the step and the part; the last good\n' +
      'checkpoint is kept and no model is saved. One process writes a run folder at a time (a lock file in it).',
  },
  async run(args) {
    const json = args.flag('json');
    const emit = (event: Record<string, unknown>, text: string) => process.stdout.write(json ? JSON.stringify(event) + '\n' : `${text}\n`);
    const out = args.required('out');
    const modelArg = args.required('model');
    const tripletsPath = args.required('triplets');
    const { data, summary } = readTrainingData(new Uint8Array(await readFile(tripletsPath)), tripletsPath);
    const request = requestFrom(args);
    const ctx = await nodePlatform.acquireGpu('train');
    try {
      const loaded: { model?: OpenedModel } = {};
      const onEvent = (event: TrainEvent) => {
        if (event.kind === 'start') {
          const { recipe, k, seed } = event;
          const { schedule, batchSize: B } = recipe;
          emit(
            { event: 'start', model: modelArg, triplets: summary.triplets, blankLines: summary.blankLines, steps: schedule.totalSteps, k, seed, recipe, resume: request.resume },
            `training ${loaded.model?.config.hfArchitecture} from ${modelArg} on ${summary.triplets} triplets of ${tripletsPath}` +
              `${summary.blankLines ? ` (${summary.blankLines} blank lines skipped)` : ''}\n` +
              `  ${schedule.totalSteps} steps of ${B} triplets (${((schedule.totalSteps * B) / summary.triplets).toFixed(2)} epochs), ` +
              `lengths ${recipe.queryLength}/${recipe.documentLength}, head divided by k = ${k}, peak lr ${schedule.peakLr} ` +
              `(warm-up ${schedule.warmupRatio}), lambda_q ${recipe.lambdaQueries}, lambda_d ${recipe.lambdaDocuments} (quadratic ramp over a third)`,
          );
          for (const note of loaded.model?.notes ?? []) emit({ event: 'note', note }, `  note: ${note}`);
          if (event.resumedFrom) {
            const path = join(out, CHECKPOINT_FOLDER, event.resumedFrom);
            emit({ event: 'resume', step: event.startStep, checkpoint: path }, `  resuming ${path} at step ${event.startStep}`);
          }
        } else if (event.kind === 'report') {
          emit({ event: 'step', ...event.report, step: event.report.step + 1 }, reportLine(event.report));
        } else {
          const path = join(out, CHECKPOINT_FOLDER, event.name);
          emit({ event: 'checkpoint', step: event.step, path }, `  checkpoint ${path}`);
        }
      };
      const run = await trainRun(ctx, nodePlatform, {
        model: async () => (loaded.model = await openModelRef(nodePlatform, await modelRefFromArgument(modelArg), { limits: ctx.limits })),
        data,
        run: out,
        request,
        existing: 'refuse',
        onEvent,
        record: { store: nodePlatform.runs },
      });
      const { saved } = run;
      emit(
        { event: 'done', steps: run.step, startStep: run.startStep, msPerStep: run.msPerStep, model: saved.where, files: saved.files },
        `saved ${saved.where} (${saved.files.length} files; sentence-transformers SparseEncoder)` +
          `${Number.isFinite(run.msPerStep) ? `; ${run.msPerStep.toFixed(0)} ms per step` : ''}`,
      );
      return 0;
    } finally {
      ctx.destroy();
    }
  },
};
