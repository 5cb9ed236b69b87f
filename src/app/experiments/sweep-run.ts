// Running a sweep, once for the page and the CLI: its runs one after another (each a recorded run whose model is
// saved, then evaluated on the chosen sets when asked), an interrupted run continuing from its checkpoint (a finished
// one never trained again), only on the plan's model and data, and the plan saved after every run so that the queue
// resumes after a reload.
import type { GpuContext } from '../../gpu/context.ts';
import type { RetrievalDataset } from '../../contract/evaluation/dataset.ts';
import type { TrainingData } from '../../train/splade/training-loop.ts';
import type { OpenedModel } from '../model/open-model.ts';
import type { Platform } from '../platform/platform.ts';
import { planTraining, requestFromRecipe, type TrainRequest } from '../../contract/training/training-request.ts';
import { type EvalRequest } from '../../contract/evaluation/evaluation-request.ts';
import { evaluateRun } from '../evaluation/trained-model-evaluation.ts';
import {
  checkSweepResumable,
  nextSweepRun,
  SweepEvent,
  SweepStore,
  type SweepPlan,
} from '../../contract/experiments/sweep-plan.ts';
import { trainRun, checkpointInfo } from '../training/train.ts';

export interface SweepOptions {
  plan: SweepPlan;
  plans: SweepStore;
  model: OpenedModel;
  data: TrainingData;
  /** Where run `index` of the plan is kept (its folder in Node, its key in the page). */
  runIdOf: (request: TrainRequest, index: number) => string;
  /** Evaluate each finished run's model on these sets. */
  evaluate?: { sets: readonly RetrievalDataset[]; request: Omit<EvalRequest, 'k'>; memoryBudget?: number };
  signal?: AbortSignal;
  onEvent?: (event: SweepEvent) => void;
}

/** Trains the plan's unfinished runs in order; resolves with the finished plan. */
export async function runSweep(ctx: GpuContext, platform: Platform, options: SweepOptions): Promise<SweepPlan> {
  const { plan, signal, data } = options;
  checkSweepResumable(plan, { modelKey: options.model.key, data: data.fingerprint }, `the sweep "${plan.id}"`);
  const emit = options.onEvent ?? (() => undefined);
  for (let index = nextSweepRun(plan); index !== null; index = nextSweepRun(plan)) {
    signal?.throwIfAborted();
    const total = plan.runs.length;
    const runId = options.runIdOf(plan.runs[index], index);
    const saved = await checkpointInfo(platform.checkpointStore(runId));
    // a checkpoint of this very run (its recipe, k and seed) is continued, or, at its last step, only saved and
    // recorded as finished (a sweep stopped after a run's last checkpoint but before its plan was saved); any other
    // checkpoint under that id (a stale run with other settings) is replaced
    const planned = planTraining(plan.runs[index], data.source.count, data.source.negatives);
    const resumed =
      saved !== null &&
      JSON.stringify([saved.recipe, saved.k, saved.seed]) === JSON.stringify([planned.recipe, planned.k, planned.seed]);
    const request = resumed
      ? requestFromRecipe(saved.recipe, saved.k, saved.seed, plan.runs[index].checkpointEvery)
      : plan.runs[index];
    emit({ kind: 'run-start', index, total, runId, request, resumed });
    const outcome = await trainRun(ctx, platform, {
      model: options.model,
      data: options.data,
      run: runId,
      request,
      existing: 'replace',
      record: { store: platform.runs, sweep: { id: plan.id, index, total } },
      signal,
      onEvent: (event) => emit({ kind: 'train', index, event }),
    });
    const evaluations = options.evaluate
      ? await evaluateRun(ctx, platform, runId, options.evaluate.sets, options.evaluate.request, {
          signal,
          memoryBudget: options.evaluate.memoryBudget,
        })
      : [];
    plan.finished = [...plan.finished, index];
    await options.plans.put(plan);
    emit({ kind: 'run-done', index, total, runId, outcome, evaluations });
  }
  return plan;
}
