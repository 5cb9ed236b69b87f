// The page's only door to everything below it: the contracts it shares with the worker (the worker's typed interface,
// the plain data its methods carry, the limits the page's fields obey, the rules it shows) and the client.

export * from '../contract/worker-api.ts';
export { type Alarm } from '../contract/training/alarm-rules.ts';
export { type CalibrationEvent, type CalibrationResult, type CalibrationTrial } from '../contract/experiments/calibration.ts';
export { type BatchCacheEntry, type TripletsSummary } from '../contract/training/data-sources.ts';
export { NANOBEIR_SETS } from '../contract/evaluation/dataset.ts';
export { type HeadStatistics } from '../contract/model/head-statistics.ts';
export {
  CONVENTION_FACTS,
  type ConventionSetup,
  LAMBDA_CONVENTIONS,
  type LambdaConvention,
  convertLambdas,
} from '../contract/experiments/lambda-conventions.ts';
export {
  type HeldOutMeasure,
  type LessonFacts,
  type LessonFrame,
  type LessonRunFrame,
  type LessonVector,
} from '../contract/lesson/lesson-frames.ts';
export { LESSON_DEFAULTS, LESSON_LIMITS, LESSON_SENTENCE, type LessonSettings } from '../contract/lesson/lesson-settings.ts';
export { type LessonTrace, parseLessonTrace } from '../contract/lesson/lesson-trace.ts';
export {
  CALIBRATE_LIMITS,
  EVAL_DEFAULTS,
  EVAL_LIMITS,
  K_DEMO_LIMITS,
  K_RANGE,
  type NumberRange,
  TRAIN_LIMITS,
  describeRange,
  inRange,
} from '../contract/limits.ts';
export { meanMetrics } from '../contract/evaluation/measures.ts';
export { MLM_DEFAULTS, MLM_LIMITS } from '../contract/training/mlm-request.ts';
export { type HeadGrowth, type MlmEvent, type MlmStepReport } from '../contract/training/mlm-report.ts';
export { MODEL_PRESETS, hubIdFor, presetByKey } from '../contract/model/model-presets.ts';
export { type KDemoResult, type KDemoSeries } from '../contract/training/k-demo-results.ts';
export {
  type HeadStatsPair,
  type MemoryEstimate,
  type PreviewResult,
  type RunHeadStats,
  type SparseSummary,
} from '../contract/model/model-results.ts';
export { describeOptimizer } from '../contract/training/optimizer-settings.ts';
export { DEFAULT_PROBES, PROBE_LIMITS, type ProbeSnapshot, type ProbeText, type ProbeView } from '../contract/training/probes.ts';
export { describeDropout, microBatches } from '../contract/training/recipe-facts.ts';
export { type KDemoRequest } from '../contract/model/model-requests.ts';
export { type HandoffRequest } from '../contract/handoff/handoff.ts';
export {
  AUDIT_LIMITS,
  PIECE_KINDS,
  TERM_ORIGINS,
  type AuditDiff,
  type AuditSide,
  type AuditedTerm,
  type CorpusAudit,
  type PieceKind,
  type TermChange,
  type TextAudit,
  type TextChange,
} from '../contract/model/expansion-audit.ts';
export { KIND_NAMES, corpusTables, diffTables } from '../contract/model/audit-tables.ts';
export { type PairAudit, type SharedTerm, type SideOfTerm } from '../contract/model/pair-audit.ts';
export { tablesTsv, type ReportTable } from '../contract/report-table.ts';
export { type TrainRequest } from '../contract/training/training-request.ts';
export {
  IMPACT_SIZE_MODELS,
  INDEX_STATS_DEFAULTS,
  describeRule,
  meanQueryPostings,
  type IndexEstimate,
  type IndexEstimateRequest,
  type PruningPoint,
} from '../contract/evaluation/index-stats.ts';
export { type DatasetSummary, type SetEvaluation, type SystemResult } from '../contract/evaluation/results.ts';
export {
  PUBLISH_LIMITS,
  PUBLISH_SETTINGS,
  PUBLISHED_WEIGHT_KINDS,
  publishSettingsProblem,
  type ColdQueryTransfer,
  type PublishedQuality,
  type PublishedSearch,
  type PublishSettings,
} from '../contract/evaluation/published-search.ts';
export { BEST_RULE, bestRun, evaluatedSets, evaluationOn } from '../contract/experiments/run-compare.ts';
export { type ExportFile, type RunRecord } from '../contract/experiments/runs.ts';
export {
  type DocumentView,
  type QueryDifference,
  type QueryVectorView,
  type SearchHit,
  type TermContribution,
} from '../contract/evaluation/search-results.ts';
export {
  DEFAULT_SWEEP_KS,
  FIGURE2_LAMBDAS,
  GOOD_DIVIDED_NORMS,
  type SweepEvent,
  type SweepPlan,
  suggestSweepKs,
} from '../contract/experiments/sweep-plan.ts';
export { type CheckpointInfo, type TrainEvent } from '../contract/training/training-events.ts';
export { type StepReport } from '../contract/training/training-report.ts';
export { PageFailure, startWorkerClient, toPageFailure, type FailureKind, type WorkerClient } from './client.ts';
