// `splade-lab train --model <m> --triplets <tsv> --out <dir>`: full SPLADE fine-tuning with the paper's recipe on the
// GPU, head divided by k first; progress lines, checkpoints in <out>/checkpoint (--resume), the model in <out>/model.
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { nodeGpuContext } from '../gpu/node-gpu.ts';
import { collectTokenizerFiles, saveSparseEncoder } from '../io/save.ts';
import { parseTriplets } from '../io/triplets.ts';
import { crc32 } from '../util/crc32.ts';
import { loadModel } from '../model/load-model.ts';
import { toHuggingFaceTensors } from '../model/weights.ts';
import { TripletBatches } from '../train/batches.ts';
import { createFolderCheckpointStore, writeFolderAtomically } from '../train/checkpoint-store-node.ts';
import { paperRecipe, type TrainingRecipe } from '../train/trainer.ts';
import { runTraining, type StepReport } from '../train/training-run.ts';
import { numberOption, parseArgs, stringOption, type Command, type ParsedArgs } from './command.ts';
import { resolveModelSource } from './model-source.ts';

const usage = `usage: splade-lab train --model <dir-or-hub-id> --triplets <tsv> --out <dir> [--k 1] [--steps N | --epochs 1]
       [--batch 8] [--query-length 32] [--doc-length 128] [--lr 1e-4] [--lambda-q 5e-2] [--lambda-d 3e-3] [--seed 1]
       [--checkpoint-every 50] [--report-every 10] [--resume] [--json]`;

function positiveInteger(args: ParsedArgs, name: string, fallback: number, min = 1): number {
  const value = numberOption(args, name, fallback);
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name} needs an integer of at least ${min}, got ${value}`);
  return value;
}

function recipeFrom(args: ParsedArgs, triplets: number): TrainingRecipe {
  const batchSize = positiveInteger(args, 'batch', 8);
  if (args.options.has('steps') && args.options.has('epochs')) throw new Error('give --steps or --epochs, not both');
  const epochs = numberOption(args, 'epochs', 1);
  if (!(epochs > 0)) throw new Error(`--epochs needs a positive number, got ${epochs}`);
  const steps = args.options.has('steps') ? positiveInteger(args, 'steps', 0, 0) : TripletBatches.stepsFor(epochs, triplets, batchSize);
  const base = paperRecipe(steps, batchSize, {
    queryLength: positiveInteger(args, 'query-length', 32, 2),
    documentLength: positiveInteger(args, 'doc-length', 128, 2),
    peakLr: args.options.has('lr') ? numberOption(args, 'lr', 0) : undefined,
  });
  return {
    ...base,
    lambdaQueries: numberOption(args, 'lambda-q', base.lambdaQueries),
    lambdaDocuments: numberOption(args, 'lambda-d', base.lambdaDocuments),
  };
}

function reportLine(r: StepReport): string {
  const width = String(r.steps).length;
  return (
    `step ${String(r.step + 1).padStart(width)}/${r.steps}  loss ${r.total.toFixed(4)}  rank ${r.rank.toFixed(4)}  ` +
    `FLOPS q ${r.flopsQueries.toFixed(3)} (x${r.lambdaQueries.toExponential(1)}) d ${r.flopsDocuments.toFixed(3)} (x${r.lambdaDocuments.toExponential(1)})  ` +
    `active q ${r.activeQueries.toFixed(1)} d ${r.activeDocuments.toFixed(1)}  lr ${r.lr.toExponential(2)}  ${r.msPerStep.toFixed(0)} ms/step\n`
  );
}

export const trainCommand: Command = {
  summary: "fine-tune a SPLADE model on triplets with the paper's recipe (head divided by k first), checkpointed and resumable",
  usage,
  async run(argv) {
    const args = parseArgs(
      argv,
      ['model', 'triplets', 'out', 'k', 'steps', 'epochs', 'batch', 'query-length', 'doc-length', 'lr', 'lambda-q', 'lambda-d', 'seed', 'checkpoint-every', 'report-every'],
      ['resume', 'json'],
    );
    const modelArg = stringOption(args, 'model');
    const tripletsPath = stringOption(args, 'triplets');
    const out = stringOption(args, 'out');
    if (!modelArg || !tripletsPath || !out || args.positional.length) throw new Error(usage);
    const json = args.options.has('json');
    const k = numberOption(args, 'k', 1);
    const seed = positiveInteger(args, 'seed', 1, 0);
    const tsv = new Uint8Array(await readFile(tripletsPath));
    const { triplets, blankLines } = parseTriplets(new TextDecoder('utf-8').decode(tsv), tripletsPath);
    const recipe = recipeFrom(args, triplets.length);
    const emit = (event: Record<string, unknown>, text: string) => process.stdout.write(json ? JSON.stringify(event) + '\n' : text);

    const source = await resolveModelSource(modelArg);
    const ctx = await nodeGpuContext('train');
    try {
      const loaded = await loadModel(source, { limits: ctx.limits });
      const checkpointDir = join(out, 'checkpoint');
      const { schedule, batchSize: B } = recipe;
      emit(
        { event: 'start', model: modelArg, triplets: triplets.length, blankLines, steps: schedule.totalSteps, k, seed, recipe, resume: args.options.has('resume') },
        `training ${loaded.config.hfArchitecture} from ${modelArg} on ${triplets.length} triplets of ${tripletsPath}` +
          `${blankLines ? ` (${blankLines} blank lines skipped)` : ''}\n` +
          `  ${schedule.totalSteps} steps of ${B} triplets (${((schedule.totalSteps * B) / triplets.length).toFixed(2)} epochs), ` +
          `lengths ${recipe.queryLength}/${recipe.documentLength}, head divided by k = ${k}, peak lr ${schedule.peakLr} ` +
          `(warm-up ${schedule.warmupRatio}), lambda_q ${recipe.lambdaQueries}, lambda_d ${recipe.lambdaDocuments} (quadratic ramp over a third)\n`,
      );
      const result = await runTraining(
        ctx,
        { config: loaded.config, hfConfig: loaded.checkpoint.config, params: loaded.params, tokenizer: loaded.tokenizer },
        { triplets, fingerprint: { name: basename(tripletsPath), triplets: triplets.length, crc32: crc32(tsv) } },
        createFolderCheckpointStore(checkpointDir),
        {
          recipe,
          k,
          seed,
          checkpointEvery: positiveInteger(args, 'checkpoint-every', 50),
          reportEvery: positiveInteger(args, 'report-every', 10),
          resume: args.options.has('resume'),
          onStart: (t, checkpoint) =>
            checkpoint && emit({ event: 'resume', step: t, checkpoint: join(checkpointDir, checkpoint) }, `  resuming ${join(checkpointDir, checkpoint)} at step ${t}\n`),
          onReport: (r) => emit({ event: 'step', ...r, step: r.step + 1 }, reportLine(r)),
          onCheckpoint: (name, t) => emit({ event: 'checkpoint', step: t, path: join(checkpointDir, name) }, `  checkpoint ${join(checkpointDir, name)}\n`),
        },
      );
      const params = await result.trainer.model.download();
      const saved = new Map<string, Uint8Array>();
      const written = await saveSparseEncoder(
        { writeFile: async (name, bytes) => void saved.set(name, bytes) },
        { config: loaded.checkpoint.config, tensors: toHuggingFaceTensors(loaded.config, params), aliases: new Map() },
        { tokenizerFiles: await collectTokenizerFiles(source), maxSeqLength: Math.max(recipe.queryLength, recipe.documentLength) },
      );
      const modelDir = join(out, 'model');
      await writeFolderAtomically(modelDir, saved);
      emit(
        { event: 'done', steps: result.trainer.t, startStep: result.startStep, msPerStep: result.msPerStep, model: modelDir, files: written },
        `saved ${modelDir} (${written.length} files; sentence-transformers SparseEncoder)` +
          `${Number.isFinite(result.msPerStep) ? `; ${result.msPerStep.toFixed(0)} ms per step` : ''}\n`,
      );
      return 0;
    } finally {
      ctx.destroy();
    }
  },
};
