// The part of the worker client the Training panel calls (element tests hand the panels a fake with these methods).
import type { WorkerClient } from '../../worker/api.ts';

export type TrainingClient = Pick<
  WorkerClient,
  | 'kDemo'
  | 'cancelJob'
  | 'readTriplets'
  | 'readHubTriplets'
  | 'batchCaches'
  | 'clearBatchCache'
  | 'useCachedBatches'
  | 'trainingCheckpoint'
  | 'train'
  | 'mlm'
  | 'mlmCheckpoint'
>;
