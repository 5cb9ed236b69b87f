// `splade-lab handoff`: argument adapter over the application layer's handoffProject: writes a ready
// sentence-transformers v5 project (train.py, check_step1.py, expected_step1.json, data, README) into a new folder.
import { readdir, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { HANDOFF_DEFAULTS, handoffProject, planHandoff } from '../../app/handoff/handoff-project.ts';
import { type HandoffRequest } from '../../contract/handoff/handoff.ts';
import { openModelRef } from '../../app/model/open-model.ts';
import { makeOutputFolder, modelRefFromArgument, nodePlatform, readRegularFile } from '../../app/platform/platform-node.ts';
import { handoffTriplets } from '../../app/handoff/handoff-triplets.ts';
import { UsageError, print, type Args, type Command } from '../command.ts';
import { RECIPE_OPTIONS } from '../training/recipe-options.ts';
import { writeOutputFile } from '../output-file.ts';
import { PAPER_LAMBDAS } from '../../contract/training/recipe.ts';

function requestFrom(args: Args): HandoffRequest {
  if (args.has('steps') && args.has('epochs')) throw new UsageError('give --steps or --epochs, not both');
  return {
    k: args.numberOr('k', 1),
    gpus: args.numberOrDefault('gpus'),
    batchSize: args.numberOrDefault('batch'),
    queryLength: args.numberOrDefault('query-length'),
    documentLength: args.numberOrDefault('doc-length'),
    steps: args.number('steps'),
    epochs: args.number('epochs'),
    peakLr: args.number('lr'),
    lambdaQueries: args.number('lambda-q'),
    lambdaDocuments: args.number('lambda-d'),
    seed: args.number('seed'),
    loss: args.string('loss') as HandoffRequest['loss'],
    temperature: args.number('temperature'),
    ...(args.flag('inference-free') ? { inferenceFree: true } : {}),
    ...(args.flag('train-query-weights') ? { trainQueryWeights: true } : {}),
    queryL1: args.number('query-l1'),
    queryTableLr: args.number('query-table-lr'),
  };
}

/** The output folder must be new or empty: a hand-off never mixes with older files. */
async function checkEmptyFolder(out: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(out);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new Error(`--out ${out}: ${(error as Error).message}`, { cause: error });
  }
  if (entries.length)
    throw new Error(
      `--out ${out} already holds files (${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', …' : ''}); give a new or empty folder`,
    );
}

export const handoffCommand: Command = {
  spec: {
    name: 'handoff',
    summary: 'write a sentence-transformers v5 project that trains the same SPLADE model on GPUs (torchrun), with a step-1 check',
    options: {
      model: { value: 'dir-or-hub-id', help: 'the backbone: a Hugging Face model folder or a Hub id', required: true },
      k: { value: 'K', help: 'divide the MLM head by k before training', required: true },
      triplets: {
        value: 'file',
        help: 'training triplets, one negative per row: a TSV (query<TAB>positive<TAB>negative per line, copied into the project), or a JSONL or Parquet file, whose rows are written into the project as TSV',
        required: true,
      },
      out: { value: 'dir', help: 'a new or empty folder for the project', required: true },
      gpus: {
        value: 'N',
        help: 'GPUs of the training machine (torchrun --nproc_per_node)',
        default: String(HANDOFF_DEFAULTS.gpus),
      },
      batch: { value: 'B', help: 'triplets per GPU and step', default: String(HANDOFF_DEFAULTS.batchSize) },
      'query-length': { value: 'T', help: 'tokens per query', default: String(HANDOFF_DEFAULTS.queryLength) },
      'doc-length': { value: 'T', help: 'tokens per document', default: String(HANDOFF_DEFAULTS.documentLength) },
      steps: { value: 'N', help: 'optimiser steps (instead of --epochs)' },
      epochs: { value: 'E', help: 'epochs over the triplets (default 1 when --steps is not given)' },
      lr: { value: 'LR', help: 'peak learning rate (linear warm-up over 10%, then linear decay)', default: '1e-4' },
      'lambda-q': {
        value: 'L',
        help: 'FLOPS weight of the queries (quadratic ramp over the first third)',
        default: PAPER_LAMBDAS.queries.toExponential(),
      },
      'lambda-d': { value: 'L', help: 'FLOPS weight of the documents', default: PAPER_LAMBDAS.documents.toExponential() },
      seed: { value: 'S', help: 'seed of the data order (32-bit)', default: '1' },
      loss: RECIPE_OPTIONS.loss,
      temperature: RECIPE_OPTIONS.temperature,
      'inference-free': {
        help: "inference-free SPLADE: queries are their tokens weighted by the IDF of the triplets' documents (written as idf.json), only documents are encoded",
      },
      'train-query-weights': RECIPE_OPTIONS['train-query-weights'],
      'query-l1': RECIPE_OPTIONS['query-l1'],
      'query-table-lr': RECIPE_OPTIONS['query-table-lr'],
    },
    notes:
      "The project's expected_step1.json holds splade-lab's first batch (token ids) and its unweighted loss parts at\n" +
      'step 0, computed here on the GPU; check_step1.py compares them with PyTorch on the training machine.\n' +
      'A backbone that is not a Hub id is copied into the project (backbone/).',
  },
  async run(args) {
    const out = args.required('out');
    const modelArg = args.required('model');
    const tripletsPath = args.required('triplets');
    // any local file train reads; JSON Lines and Parquet rows are written into the project as TSV (checked first)
    const triplets = await handoffTriplets(await readRegularFile(tripletsPath, { what: '--triplets' }), tripletsPath);
    const { data, bytes } = triplets;
    const request = requestFrom(args);
    planHandoff(request, data.source.count); // bad options fail here, before any model or GPU
    await checkEmptyFolder(out);
    // before any work: a folder that cannot be made fails now (and one made for a hand-off that fails is removed)
    const made = await makeOutputFolder(out, '--out');
    const ctx = await nodePlatform.acquireGpu('handoff');
    try {
      const model = await openModelRef(nodePlatform, await modelRefFromArgument(modelArg), { limits: ctx.limits });
      for (const note of model.notes) process.stderr.write(`note: ${note}\n`);
      if (triplets.convertedFrom)
        process.stderr.write(
          `note: ${tripletsPath} is ${triplets.convertedFrom === 'parquet' ? 'Parquet' : 'JSON Lines'}: its ${data.source.count} rows go into the project as data/${data.fingerprint.name}, the TSV its splade_data.py reads\n`,
        );
      process.stderr.write(`computing splade-lab's step-0 loss parts of the first batch on the GPU …\n`);
      const files = await handoffProject(ctx, { model, data, tripletBytes: bytes, request });
      for (const [name, content] of files) {
        await makeOutputFolder(dirname(join(out, name)), '--out');
        await writeOutputFile(join(out, name), content, '--out');
      }
      const expected = JSON.parse(new TextDecoder().decode(files.get('expected_step1.json')));
      print(
        `wrote ${files.size} files to ${out}\n` +
          `  step-0 loss parts (k = ${expected.k}, ${expected.batchSize} triplets): rank ${expected.loss.rank}, ` +
          `FLOPS queries ${expected.loss.flopsQueries}, FLOPS documents ${expected.loss.flopsDocuments}\n` +
          `  next, on the GPU machine: pip install -r requirements.txt; python check_step1.py; bash launch.sh (see ${join(out, 'README.md')})`,
      );
      return 0;
    } catch (error) {
      for (const folder of made.reverse()) await rmdir(folder).catch(() => undefined); // only while still empty
      throw error;
    } finally {
      ctx.destroy();
    }
  },
};
