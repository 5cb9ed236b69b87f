// The page's training runs: the key a run is kept under (the loaded model, the read triplets, k and the lambdas), and
// the request a "resume" trains with (the saved run's recipe, k and seed; the probes and alarms as asked now).
import { requestFromRecipe, type TrainRequest } from '../../contract/training/training-request.ts';
import { runIdFor } from '../../contract/experiments/runs.ts';
import type { OpenedModel } from '../model/open-model.ts';
import type { Platform } from '../platform/platform.ts';
import type { TrainingData } from '../../train/splade/training-loop.ts';
import { checkpointInfo } from './train.ts';

/** The page's key of a run of `request` on `model` and `data`: the same request on the same model and data is the same run. */
export function pageRunId(
  model: Pick<OpenedModel, 'key'>,
  data: Pick<TrainingData, 'fingerprint'>,
  request: Pick<TrainRequest, 'k' | 'lambdaQueries' | 'lambdaDocuments'>,
): string {
  return runIdFor(model.key, data.fingerprint, request);
}

/**
 * The request a run trains with: as asked for a new run; for a resume, the saved run's recipe, k and seed (its
 * checkpoint's), with the checkpoint interval, probes and alarm settings of the request. Refused when nothing is saved.
 */
export async function requestToTrain(platform: Platform, run: string, request: TrainRequest): Promise<TrainRequest> {
  if (!request.resume) return request;
  const saved = await checkpointInfo(platform.checkpointStore(run));
  if (!saved) throw new Error(`No saved run to resume for this model, data and k = ${request.k}; start a new run.`);
  const { probes, probeEvery, stopOnAlarm, ignoreAlarms } = request;
  return requestFromRecipe(saved.recipe, saved.k, saved.seed, request.checkpointEvery, {
    probes,
    probeEvery,
    stopOnAlarm,
    ignoreAlarms,
  });
}
