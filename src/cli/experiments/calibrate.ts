// `splade-lab calibrate`: argument adapter over calibrateLambdas: short runs in <out>/trial-<i> until the mean active
// dimensions reach --target-q / --target-d, each optionally evaluated; suggests lambdas, and with --batch-sizes shows
// how sparsity moves with the batch at those lambdas. Writes <out>/calibration.json.
import { join } from 'node:path';
import { totalmem } from 'node:os';
import { calibrateLambdas } from '../../app/experiments/calibrate-lambdas.ts';
import { CALIBRATE_DEFAULTS, type CalibrationTrial } from '../../contract/experiments/calibration.ts';
import { openDataset } from '../../app/evaluation/datasets.ts';
import { openModelRef } from '../../app/model/open-model.ts';
import { makeOutputFolder, modelRefFromArgument, nodePlatform } from '../../app/platform/platform-node.ts';
import type { TrainRequest } from '../../contract/training/training-request.ts';
import { UsageError, type Command } from '../command.ts';
import { RECIPE_OPTIONS, runSizeOptions, stepsOption, trainRequestFrom } from '../training/recipe-options.ts';
import { TRIPLETS_OPTIONS, withTripletsOption } from '../training/triplets-option.ts';
import { EVALUATION_SET_OPTIONS, evaluationRefs } from '../evaluation/evaluation-sets.ts';
import { writeOutputFile } from '../output-file.ts';

function trialLine(t: CalibrationTrial): string {
  const scores = t.evaluations.map((e) => `${e.set.name} nDCG@10 ${e.splade.metrics.ndcg_cut_10.toFixed(4)}`).join(', ');
  return (
    `  trial ${t.index + 1} (${t.purpose}, batch ${t.batchSize}): lambda_q ${t.lambdaQueries.toExponential(3)} lambda_d ${t.lambdaDocuments.toExponential(3)} -> ` +
    `active q ${t.activeQueries.toFixed(1)} d ${t.activeDocuments.toFixed(1)}; FLOPS q ${t.flopsQueries.toPrecision(4)} (at batch 64: ${t.paperBatchFlopsQueries.toPrecision(4)}) ` +
    `d ${t.flopsDocuments.toPrecision(4)} (${t.paperBatchFlopsDocuments.toPrecision(4)})${scores ? `; ${scores}` : ''}`
  );
}

export const calibrateCommand: Command = {
  spec: {
    name: 'calibrate',
    summary: 'find lambda_q and lambda_d that reach a target number of active dimensions, with short runs on your data',
    options: {
      model: { value: 'dir-or-hub-id', help: 'the backbone', required: true },
      ...TRIPLETS_OPTIONS,
      out: {
        value: 'dir',
        help: 'the calibration folder: one run folder per trial (trial-<i>) and calibration.json',
        required: true,
      },
      'target-q': { value: 'N', help: 'mean active dimensions wanted per query', required: true },
      'target-d': { value: 'N', help: 'mean active dimensions wanted per document', required: true },
      tolerance: {
        value: 'R',
        help: 'reached when within target x (1 +/- R)',
        default: String(CALIBRATE_DEFAULTS.tolerance),
      },
      trials: { value: 'N', help: 'at most this many search trials', default: String(CALIBRATE_DEFAULTS.trials) },
      steps: stepsOption('steps per trial (sparsity is measured over its last quarter)', CALIBRATE_DEFAULTS.stepsPerTrial),
      ...runSizeOptions({
        k: 'divide the MLM head by k before each trial',
        batch: 'triplets per step',
        'lambda-q': 'lambda_q of the first trial',
        'lambda-d': 'lambda_d of the first trial',
        seed: 'seed of the data order, the same for every trial',
      }),
      'batch-sizes': { value: 'B,B,...', help: 'then train the suggested lambdas at these batch sizes too' },
      ...RECIPE_OPTIONS,
      ...EVALUATION_SET_OPTIONS,
      json: { help: 'print one JSON object per event' },
    },
    notes:
      'Every trial starts from the same point (the backbone, head divided by k) with the same data order, so trials differ\n' +
      'only in their lambdas. FLOPS squares a batch mean, so its value (and the sparsity a lambda buys) depends on the\n' +
      'batch: each trial also reports the FLOPS the paper batch of 64 would see for the same vectors.',
  },
  async run(args) {
    const out = args.required('out');
    return withTripletsOption(args, async ({ data }) => {
      const batchSizes = (args.string('batch-sizes') ?? '')
        .split(',')
        .filter((s) => s.trim() !== '')
        .map((s) => {
          const b = Number(s);
          if (!Number.isInteger(b)) throw new UsageError(`--batch-sizes needs whole numbers, got "${s}"`);
          return b;
        });
      const train: TrainRequest = {
        ...trainRequestFrom(args),
        steps: args.numberOrDefault('steps'),
        checkpointEvery: 1_000_000,
      };
      const json = args.flag('json');
      const emit = (event: Record<string, unknown>, text: string) =>
        process.stdout.write(json ? JSON.stringify(event) + '\n' : `${text}\n`);
      await makeOutputFolder(out, '--out');
      const ctx = await nodePlatform.acquireGpu('calibrate');
      try {
        const model = await openModelRef(nodePlatform, await modelRefFromArgument(args.required('model')), {
          limits: ctx.limits,
        });
        const sets = await Promise.all(evaluationRefs(args).map((ref) => openDataset(nodePlatform, ref)));
        const target = {
          queries: args.numberOr('target-q', 0),
          documents: args.numberOr('target-d', 0),
          tolerance: args.numberOrDefault('tolerance'),
        };
        const result = await calibrateLambdas(ctx, nodePlatform, {
          model,
          data,
          request: { train, target, maxTrials: args.numberOrDefault('trials'), batchSizes },
          runIdOf: (_, index) => join(out, `trial-${index + 1}`),
          evaluate: sets.length
            ? {
                sets,
                request: { queryLength: 64, documentLength: 256, topK: 1000, prune: 0, search: 'exhaustive' },
                memoryBudget: totalmem() / 2,
              }
            : undefined,
          onEvent: (event) => {
            if (event.kind === 'trial-start') {
              const r = event.request;
              emit(
                {
                  event: 'trial-start',
                  index: event.index + 1,
                  purpose: event.purpose,
                  run: event.runId,
                  lambdaQueries: r.lambdaQueries,
                  lambdaDocuments: r.lambdaDocuments,
                  batchSize: r.batchSize,
                },
                `trial ${event.index + 1} (${event.purpose}) in ${event.runId}: lambda_q ${r.lambdaQueries} lambda_d ${r.lambdaDocuments}, batch ${r.batchSize}, ${r.steps} steps`,
              );
            } else if (event.kind === 'train' && event.event.kind === 'report' && json) {
              const r = event.event.report;
              emit({ event: 'step', trial: event.index + 1, ...r, step: r.step + 1 }, '');
            } else if (event.kind === 'trial-done') {
              const t = event.trial;
              emit(
                {
                  event: 'trial-done',
                  ...t,
                  index: t.index + 1,
                  evaluations: t.evaluations.map((e) => ({ set: e.set.name, ...e.splade.metrics })),
                },
                trialLine(t),
              );
            }
          },
        });
        await writeOutputFile(join(out, 'calibration.json'), JSON.stringify(result, null, 1), '--out');
        const s = result.suggested;
        emit(
          {
            event: 'done',
            suggested: s,
            target: result.target,
            trials: result.trials.length,
            batchDependence: result.batchDependence.map((t) => ({
              batchSize: t.batchSize,
              activeQueries: t.activeQueries,
              activeDocuments: t.activeDocuments,
              flopsQueries: t.flopsQueries,
              flopsDocuments: t.flopsDocuments,
              paperBatchFlopsQueries: t.paperBatchFlopsQueries,
              paperBatchFlopsDocuments: t.paperBatchFlopsDocuments,
            })),
          },
          [
            `suggested: --lambda-q ${s.lambdaQueries.toExponential(3)} --lambda-d ${s.lambdaDocuments.toExponential(3)} (trial ${s.trial + 1}, ${s.within ? 'within' : 'NOT within'} ${(100 * target.tolerance).toFixed(0)}% of ${target.queries}/${target.documents})`,
            ...(result.batchDependence.length > 1
              ? [
                  'active dimensions by batch size at these lambdas:',
                  ...result.batchDependence.map(
                    (t) =>
                      `  batch ${String(t.batchSize).padStart(4)}: q ${t.activeQueries.toFixed(1)} d ${t.activeDocuments.toFixed(1)}  FLOPS q ${t.flopsQueries.toPrecision(4)} d ${t.flopsDocuments.toPrecision(4)}`,
                  ),
                ]
              : []),
            `written ${join(out, 'calibration.json')}`,
          ].join('\n'),
        );
        return s.within ? 0 : 4;
      } finally {
        ctx.destroy();
      }
    });
  },
};
