// `splade-lab sweep`: argument adapter over runSweep: one run per k (or per lambda pair of the paper's Figure 2 grid)
// in sub-folders of --out, each saved and optionally evaluated, then a Table-2-like summary; --resume continues.
import { join } from 'node:path';
import { totalmem } from 'node:os';
import { openDataset } from '../../app/evaluation/datasets.ts';
import { openModelRef } from '../../app/model/open-model.ts';
import { makeOutputFolder, modelRefFromArgument, nodePlatform } from '../../app/platform/platform-node.ts';
import type { TrainRequest } from '../../contract/training/training-request.ts';
import { createFolderSweepStore } from '../../app/platform/sweep-store-node.ts';
import { runSweep } from '../../app/experiments/sweep-run.ts';
import {
  DEFAULT_SWEEP_KS,
  FIGURE2_LAMBDAS,
  checkSweepResumable,
  parseKs,
  planSweep,
  planSweepRuns,
} from '../../contract/experiments/sweep-plan.ts';
import { UsageError, type Command } from '../command.ts';
import { RECIPE_OPTIONS, checkpointOption, runSizeOptions, stepsOption, trainRequestFrom } from '../training/recipe-options.ts';
import { TRIPLETS_OPTIONS, withTripletsOption } from '../training/triplets-option.ts';
import { EVALUATION_SET_OPTIONS, evaluationRefs } from '../evaluation/evaluation-sets.ts';

/** The sub-folder of a run: "k-4", or "lq-0.05-ld-0.003" in a lambda grid. */
function runFolder(request: TrainRequest, grid: boolean): string {
  return grid ? `lq-${request.lambdaQueries}-ld-${request.lambdaDocuments}` : `k-${request.k}`;
}

export const sweepCommand: Command = {
  spec: {
    name: 'sweep',
    summary: "train one run per k (or per lambda pair of the paper's Figure 2 grid) and compare them, resumable",
    options: {
      model: { value: 'dir-or-hub-id', help: 'the backbone', required: true },
      ...TRIPLETS_OPTIONS,
      out: {
        value: 'dir',
        help: 'the sweep folder: sweep.json and one run folder per run (k-<k>, or lq-<q>-ld-<d>)',
        required: true,
      },
      ks: { value: 'K,K,...', help: 'one run per k', default: DEFAULT_SWEEP_KS.join(',') },
      'lambda-grid': { help: "instead, one run per (lambda_q, lambda_d) of the paper's Figure 2 grid, at --k" },
      steps: stepsOption('steps per run'),
      ...runSizeOptions({
        k: 'k of every run of a lambda grid',
        batch: 'triplets per step',
        seed: 'seed of the data order, the same for every run',
        'lambda-q': 'FLOPS weight of the queries of every run of a k sweep (a lambda grid sets its own)',
        'lambda-d': 'FLOPS weight of the documents of every run of a k sweep',
      }),
      ...RECIPE_OPTIONS,
      'checkpoint-every': checkpointOption('checkpoint every N steps'),
      ...EVALUATION_SET_OPTIONS,
      resume: {
        help: 'continue the sweep in --out where it stopped (an interrupted run from its checkpoint); same model, data and options required',
      },
      json: { help: 'print one JSON object per event' },
    },
  },
  async run(args) {
    const out = args.required('out');
    const grid = args.flag('lambda-grid');
    if (grid && (args.has('lambda-q') || args.has('lambda-d')))
      throw new UsageError('--lambda-grid sets the lambdas of each run: leave out --lambda-q and --lambda-d');
    return withTripletsOption(args, async ({ data }) => {
      const base: TrainRequest = {
        ...trainRequestFrom(args),
        steps: args.numberOrDefault('steps'),
        checkpointEvery: args.numberOrDefault('checkpoint-every'),
      };
      const refs = evaluationRefs(args);
      const json = args.flag('json');
      const emit = (event: Record<string, unknown>, text: string) =>
        process.stdout.write(json ? JSON.stringify(event) + '\n' : `${text}\n`);
      await makeOutputFolder(out, '--out');
      const plans = createFolderSweepStore(out);
      const ctx = await nodePlatform.acquireGpu('sweep');
      try {
        const model = await openModelRef(nodePlatform, await modelRefFromArgument(args.required('model')), {
          limits: ctx.limits,
        });
        const existing = await plans.get(out);
        if (existing && !args.flag('resume'))
          throw new Error(
            `${out} already holds a sweep (${existing.finished.length} of ${existing.runs.length} runs done): add --resume, or sweep into another folder`,
          );
        if (!existing && args.flag('resume')) throw new Error(`${out} holds no sweep to resume`);
        const asked = grid ? { base, lambdas: FIGURE2_LAMBDAS } : { base, ks: parseKs(args.string('ks')!) };
        if (existing)
          checkSweepResumable(
            existing,
            { modelKey: model.key, data: data.fingerprint, runs: planSweepRuns(asked) },
            `the sweep in ${out}`,
          );
        const plan = existing ?? planSweep(asked, model.key, data.fingerprint, new Date().toISOString());
        if (!existing) await plans.put(plan);
        const sets = await Promise.all(refs.map((ref) => openDataset(nodePlatform, ref)));
        const finished = await runSweep(ctx, nodePlatform, {
          plan,
          plans,
          model,
          data,
          runIdOf: (request) => join(out, runFolder(request, grid)),
          evaluate: sets.length
            ? {
                sets,
                request: { queryLength: 64, documentLength: 256, topK: 1000, prune: 0, search: 'exhaustive' },
                memoryBudget: totalmem() / 2,
              }
            : undefined,
          onEvent: (event) => {
            if (event.kind === 'run-start')
              emit(
                { event: 'run-start', index: event.index, total: event.total, run: event.runId, resumed: event.resumed },
                `run ${event.index + 1} of ${event.total}: ${event.runId}${event.resumed ? ' (resumed)' : ''}`,
              );
            else if (event.kind === 'train' && event.event.kind === 'report') {
              const r = event.event.report;
              emit(
                { event: 'step', index: event.index, ...r, step: r.step + 1 },
                `  step ${r.step + 1}/${r.steps}  loss ${r.total.toFixed(4)}  active q ${r.activeQueries.toFixed(1)} d ${r.activeDocuments.toFixed(1)}`,
              );
            } else if (event.kind === 'run-done') {
              const scores = event.evaluations
                .map((e) => `${e.set.name} nDCG@10 ${e.splade.metrics.ndcg_cut_10.toFixed(4)}`)
                .join(', ');
              emit(
                {
                  event: 'run-done',
                  index: event.index,
                  run: event.runId,
                  model: event.outcome.saved.where,
                  evaluations: event.evaluations.map((e) => ({ set: e.set.name, ...e.splade.metrics })),
                },
                `  saved ${event.outcome.saved.where}${scores ? `; ${scores}` : ''}`,
              );
            }
          },
        });
        emit(
          { event: 'done', runs: finished.runs.length, out },
          `sweep done: ${finished.runs.length} runs in ${out}; compare them with splade-lab runs ${out}/*`,
        );
        return 0;
      } finally {
        ctx.destroy();
      }
    });
  },
};
