// The plain-data types of the layers below app/ that the worker and the page carry, re-exported from one place so
// that the adapters above import app/ only.
export type { AdapterReport, GpuContext } from '../gpu/context.ts';
export type { HeadStatistics } from '../kernels/head-stats.ts';
export type { StepLosses } from '../train/head-only-trainer.ts';
export type { TrainingRecipe } from '../train/trainer.ts';
export type { StepReport } from '../train/training-run.ts';
export type { BatchCacheEntry } from '../train/batch-cache.ts';
export type { HubDatasetRef } from '../io/hub-dataset.ts';
