// The page's only door to everything below it: the typed interface of the GPU worker (comlink; coarse methods,
// plain-data results), the types those methods carry, the limits the page's fields obey, and the client.

export type { HeadStatistics, StepLosses, StepReport, TrainingRecipe } from '../app/gpu-types.ts';
export type { HeadStatsPair, PreviewResult } from '../app/model-session.ts';
export type { SparseSummary, SparseTerm } from '../app/sparse-summary.ts';
export type { KDemoResult, KDemoSeries } from '../app/k-demo.ts';
export type { HeldOutMeasure, LessonFacts, LessonFrame, LessonRunFrame } from '../app/lesson-run.ts';
export type { LessonVector } from '../app/lesson-vector.ts';
export type { LessonTrace } from '../app/lesson-trace.ts';
export { parseLessonTrace } from '../app/lesson-trace.ts';
export {
  LESSON_DEFAULTS,
  LESSON_LIMITS,
  LESSON_RECIPE,
  LESSON_SENTENCE,
  checkLessonSettings,
  type LessonSettings,
} from '../contract/lesson-settings.ts';
export type { MemoryEstimate } from '../app/open-model.ts';
export type { ModelPreset } from '../contract/model-presets.ts';
export { MODEL_PRESETS, hubIdFor, presetByKey } from '../contract/model-presets.ts';
export type { EncodeRequest, KDemoRequest, TrainRequest } from '../app/requests.ts';
export type { CheckpointInfo, TrainEvent } from '../app/train.ts';
export type { Alarm, AlarmRule } from '../app/training-alarms.ts';
export type { ProbeSnapshot, ProbeText, ProbeView } from '../app/training-probes.ts';
export { DEFAULT_PROBES, PROBE_LIMITS } from '../app/training-probes.ts';
export { ALARM_RULES } from '../app/training-alarms.ts';
export type { CalibrationEvent, CalibrationResult, CalibrationTrial } from '../app/calibrate-lambdas.ts';
export type { Conversion, ConventionSetup, LambdaConvention } from '../contract/lambda-conventions.ts';
export { CONVENTION_FACTS, LAMBDA_CONVENTIONS, convertLambdas } from '../contract/lambda-conventions.ts';
export type { TripletsSummary } from '../app/training-data.ts';
export type { BatchCacheEntry } from '../app/gpu-types.ts';
export { describeDropout, describeOptimizer, microBatches } from '../contract/recipe-text.ts';
export type { DatasetSummary } from '../app/datasets.ts';
export type { SetEvaluation, SpladeResult, SystemResult } from '../app/evaluation.ts';
export type { EvaluationMemory } from '../contract/evaluation-memory.ts';
export type { DocumentView, QueryDifference, SearchHit, SearchResult, TermContribution } from '../app/search-view.ts';
export type { EvalRequest, EvalStage } from '../app/requests.ts';
export type { RunRecord, RunStatus } from '../app/runs.ts';
export type { SweepEvent } from '../app/sweep-run.ts';
export type { SweepPlan } from '../app/sweep.ts';
export type { ExportFile } from '../app/run-exports.ts';
export type { HandoffRequest } from '../app/handoff.ts';
export type { RunHeadStats } from '../app/run-head.ts';
export { HEADLINE_MEASURES, NANOBEIR_SETS, meanMetrics } from '../contract/measures.ts';
export { BEST_RULE, bestRun, evaluatedSets, evaluationOn } from '../app/run-compare.ts';
export { DEFAULT_SWEEP_KS, FIGURE2_LAMBDAS, GOOD_DIVIDED_NORMS, suggestSweepKs } from '../app/sweep.ts';
export {
  CALIBRATE_LIMITS,
  EVAL_DEFAULTS,
  EVAL_LIMITS,
  K_DEMO_LIMITS,
  K_RANGE,
  TRAIN_LIMITS,
  describeRange,
  inRange,
  type NumberRange,
} from '../contract/limits.ts';
export { PageFailure, startWorkerClient, toPageFailure, type FailureKind, type WorkerClient } from './client.ts';
export * from './api-types.ts';
