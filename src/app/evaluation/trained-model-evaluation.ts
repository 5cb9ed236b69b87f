// Evaluating a run's trained model (as saved when it finished), once for the page and the CLI: its head is already
// divided by the run's k, so it is evaluated as it is (k = 1); each result, with its pruning curve, is kept in the
// run's record.
import type { GpuContext } from '../../gpu/context.ts';
import type { RetrievalDataset } from '../../contract/evaluation/dataset.ts';
import { evaluateOnSet, type EvaluateOptions } from './evaluate-on-set.ts';
import type { SetEvaluation } from '../../contract/evaluation/results.ts';
import { openModelSession } from '../model/model-session.ts';
import type { Platform } from '../platform/platform.ts';
import type { EvalRequest } from '../../contract/evaluation/evaluation-request.ts';
import { recordRunEvaluation } from '../training/run-recorder.ts';
import { INDEX_STATS_DEFAULTS, pruningRules } from '../../contract/evaluation/index-stats.ts';
import { pruningCurve } from '../../retrieval/pruning-curve.ts';

export async function evaluateRun(
  ctx: GpuContext,
  platform: Platform,
  runId: string,
  sets: readonly RetrievalDataset[],
  request: Omit<EvalRequest, 'k'>,
  options: Omit<EvaluateOptions, 'bm25'> & {
    batchSize?: number;
    /** Called as each set starts. */ onSet?: (index: number, name: string) => void;
  } = {},
): Promise<SetEvaluation[]> {
  const session = await openModelSession(ctx, platform, { kind: 'run', id: runId }, { batchSize: options.batchSize });
  try {
    const results: SetEvaluation[] = [];
    for (const [index, dataset] of sets.entries()) {
      options.onSet?.(index, dataset.name);
      const { result, vectors } = await evaluateOnSet(session, dataset, { ...request, k: 1 }, options);
      // the what-if pruning curve, from the vectors just encoded: the runs compare view draws it per run
      result.splade.pruningCurve = pruningCurve(pruningRules(INDEX_STATS_DEFAULTS), vectors, dataset, {
        vocab: session.vocabulary(),
        scale: INDEX_STATS_DEFAULTS.scale,
        topK: result.request.topK,
      });
      await recordRunEvaluation(platform.runs, runId, result);
      results.push(result);
    }
    return results;
  } finally {
    session.destroy();
  }
}
