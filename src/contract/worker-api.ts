// The types of the worker's interface (WorkerApi) and what its calls carry; worker/api.ts re-exports them for the page.
import type { AdapterReport } from './model/gpu-report.ts';
import type { KDemoResult, KDemoSeries } from './training/k-demo-results.ts';
import type {
  HeadStatsPair,
  ModelSummary as AppModelSummary,
  MemoryEstimate,
  PreviewResult,
  RunHeadStats,
} from './model/model-results.ts';
import type { TrainRequest } from './training/training-request.ts';
import type { EvalStage, EvalRequest } from './evaluation/evaluation-request.ts';
import type { EncodeRequest, KDemoRequest } from './model/model-requests.ts';
import type { CheckpointInfo, TrainEvent } from './training/training-events.ts';
import type { TripletsSummary, BatchCacheEntry, HubDatasetRef } from './training/data-sources.ts';
import type { DatasetSummary, SetEvaluation } from './evaluation/results.ts';
import type { QueryDifference, DocumentView, SearchResult } from './evaluation/search-results.ts';
import type { RunRecord, ExportFile } from './experiments/runs.ts';
import type { IndexEstimate, IndexEstimateRequest } from './evaluation/index-stats.ts';
import type { PublishSettings, PublishedSearch } from './evaluation/published-search.ts';
import type { PairAudit } from './model/pair-audit.ts';
import type { SweepEvent, SweepPlan } from './experiments/sweep-plan.ts';
import type { HandoffRequest } from './handoff/handoff.ts';
import type { CalibrationResult, CalibrationEvent, CalibrationRequest } from './experiments/calibration.ts';
import type { LessonFacts, LessonFrame, LessonVector } from './lesson/lesson-frames.ts';
import type { LessonSettings } from './lesson/lesson-settings.ts';
import type { MlmRequest } from './training/mlm-request.ts';
import type { HeadGrowth, MlmEvent } from './training/mlm-report.ts';
import type { AuditDiff, AuditSide, CorpusAudit } from './model/expansion-audit.ts';
/** Where a backbone comes from. `File` objects are structured-cloneable, so picked files travel as they are. */
export type ModelSource =
  | { kind: 'demo'; /** Absolute URL of the folder holding the generated demo checkpoint (…/demo/). */ url: string }
  | { kind: 'hub'; id: string; revision?: string; /** Hub base URL; defaults to https://huggingface.co. */ hubUrl?: string }
  | { kind: 'files'; files: File[] };

/** What the worker found out about the GPU it acquired. */
export interface GpuReport {
  adapter: AdapterReport;
}

/** A loading step the picker shows: fetched bytes so far of a total (null when the server does not say). */
export interface LoadProgress {
  stage: 'config' | 'download' | 'upload';
  file?: string;
  loaded: number;
  total: number | null;
  /** Known once config.json and the weight headers are read, before the weights are downloaded. */
  estimate?: MemoryEstimate;
}

/** The loaded backbone, as the page shows it. */
export interface ModelSummary extends AppModelSummary {
  /** Human label ("demo backbone (a tiny BERT pretrained by splade-lab on WordNet glosses)" for the bundled one). */
  label: string;
  synthetic: boolean;
  /** Set when the model is a run's trained model: its head is already divided by the run's k. */
  run?: { id: string; k: number; baseMeanRowNorm: number | null };
}

export interface HistogramOptions {
  /** Bin edges evenly spaced in log(norm). */
  logNorm: boolean;
}

/** A sparse vector as it crosses the worker boundary: vocabulary ids ascending, their weights. */
export interface SparseVectorData {
  indices: Uint32Array;
  values: Float32Array;
}

/** A retrieval set as the page names it: a NanoBEIR set from the Hub, or a BEIR folder picked or dropped. */
export type DatasetSource =
  | { kind: 'nanobeir'; set: string; /** Hub base URL; defaults to https://huggingface.co. */ hubUrl?: string }
  | { kind: 'files'; files: File[]; /** The folder's name, shown in results. */ name: string };

/** Evaluation settings of the page: the set(s) read before, and how to encode and retrieve. */
export interface EvaluateRequest extends Omit<EvalRequest, 'search'> {
  /** Names of read sets (DatasetSummary.name), evaluated one after another. */
  sets: string[];
}

/** Where an evaluation is: which set, which stage, how far. */
export interface EvaluateProgress {
  set: string;
  setIndex: number;
  sets: number;
  stage: EvalStage;
  done: number;
  total: number;
}

/** Where SPLADE and BM25 differ most on the last evaluated set. */
export interface Differences {
  set: string;
  spladeBetter: QueryDifference[];
  bm25Better: QueryDifference[];
}

/** A sweep the page asks for: ks (or a lambda grid) over one base request, optionally evaluating each finished run. */
export interface PageSweepRequest {
  base: TrainRequest;
  ks?: readonly number[];
  lambdas?: { queries: readonly number[]; documents: readonly number[] };
  /** Evaluate each finished run's model on these read sets (names), with these lengths. */
  evaluate?: Omit<EvaluateRequest, 'k'>;
}

/** The lambda calibrator on the loaded model and triplets; evaluate each trial on read sets (names) when asked. */
export interface PageCalibrationRequest extends CalibrationRequest {
  evaluate?: Omit<EvaluateRequest, 'k'>;
}

/** What a masked-LM run of the page trains on: a picked text file, or the lesson's generated documents (no file). */
export type MlmText = { kind: 'lesson' } | { kind: 'file'; file: File };

/** A masked-LM run of the loaded backbone in the page (text only: pre-masked batches are the CLI's). */
export interface PageMlmRequest extends Omit<MlmRequest, 'layout'> {
  text: MlmText;
  layout: 'grouped' | 'line-by-line';
}

export interface PageMlmResult {
  /** The run's key: its checkpoints and trained model in IndexedDB. */
  run: string;
  startStep: number;
  step: number;
  msPerStep: number;
  growth: HeadGrowth[];
}

export interface TrainResult {
  startStep: number;
  /** Steps taken in all (the run's last step when it finished). */
  step: number;
  msPerStep: number;
  /** Set when the run paused on an alarm: why, and the checkpoint it can resume from (no model is saved then). */
  paused?: { reason: string; checkpoint: string };
}

export interface WorkerApi {
  /** Acquires the GPU (once); throws a NoWebGpuError with advice when there is none. */
  init(): Promise<GpuReport>;
  /** Reads only the config and file sizes and compares the model's needs with the device's limits. */
  estimate(source: ModelSource): Promise<MemoryEstimate>;
  /** Loads a backbone onto the GPU (replacing the previous one; after a lost device, on a fresh device);
   *  refuses models that do not fit before fetching their weights. */
  load(source: ModelSource, onProgress: (progress: LoadProgress) => void): Promise<ModelSummary>;
  /** Aborts the running estimate or load; it then rejects with a "cancelled" failure. */
  cancel(): void;
  /** Head statistics of W_head and W_head / k from the GPU kernels. */
  headStats(k: number, options: HistogramOptions): Promise<HeadStatsPair>;
  /** When the loaded model is a run's: its head as loaded, divided by the run's k and after training, on one set of bins. */
  runHeadStats(options: HistogramOptions): Promise<RunHeadStats | null>;
  /** Sparse vectors of a query and a document under k (forward only) and their dot score. */
  preview(query: string, doc: string, k: number, topTerms: number): Promise<PreviewResult>;
  /**
   * Sparse vectors of many texts under k (batched GPU encoding, forward only), with progress after each batch;
   * `topK` > 0 keeps each vector's largest weights only.
   */
  encode(texts: string[], options: EncodeRequest, onProgress: (done: number, total: number) => void): Promise<SparseVectorData[]>;
  /** The loaded model's corpus report of `texts` under k (blank ones skipped): where the weight goes, `top` terms per list. */
  auditCorpus(texts: string[], k: number, top: number): Promise<CorpusAudit>;
  /**
   * The vectors of the same texts from two sides compared (blank texts left out), the second against the first; a side
   * is the loaded model at a k or a stored run's trained model; `top` terms per list.
   */
  auditDiff(texts: string[], sides: readonly [AuditSide, AuditSide], top: number): Promise<AuditDiff>;
  /**
   * The teaching demo for each k in turn; `onRun` gets the line of ks[index] so far after every read-back and once
   * more when it is finished. cancelJob stops it between steps.
   */
  kDemo(
    request: KDemoRequest,
    onRun: (run: KDemoSeries, index: number, total: number, finished: boolean) => void,
  ): Promise<KDemoResult>;
  /**
   * Opens the teaching lesson's live training on the loaded model (its ks side by side, replacing any open lesson)
   * watching held-out query `probe`; what it trains on, and the frame before the first step.
   */
  lessonStart(settings: Partial<LessonSettings>, probe: number): Promise<{ facts: LessonFacts; frame: LessonFrame }>;
  /** One training step of every k of the open lesson, and its frame. */
  lessonStep(): Promise<LessonFrame>;
  /** A sentence's SPLADE vector under each k, by the loaded model (the lesson's vector steps). */
  lessonSentence(text: string, ks: number[]): Promise<LessonVector[]>;
  /** Frees the open lesson's models (nothing when none is open). */
  lessonStop(): Promise<void>;
  /** Reads and checks a triplet TSV (query, positive, negative per line) and keeps it for training. */
  readTriplets(file: File): Promise<TripletsSummary>;
  /** Reads a Hub dataset's split (its Parquet files, cached in Cache Storage) and keeps it for training. */
  readHubTriplets(ref: HubDatasetRef & { hubUrl?: string }): Promise<TripletsSummary>;
  /** The batches cached in this browser (a run caches all of its batches before its first step), newest first. */
  batchCaches(): Promise<BatchCacheEntry[]>;
  /** Removes one data's cached batches, or all of them. */
  clearBatchCache(fingerprint?: string): Promise<void>;
  /** Trains from cached batches without the file (after a reload): their data stands for the read triplets. */
  useCachedBatches(fingerprint: string): Promise<TripletsSummary>;
  /** The newest checkpoint for the loaded model, the read triplets and k, or null. */
  trainingCheckpoint(k: number, lambdas?: { lambdaQueries: number; lambdaDocuments: number }): Promise<CheckpointInfo | null>;
  /**
   * Fine-tunes the loaded backbone on the read triplets (head divided by k first), checkpointing into IndexedDB.
   * Resuming continues the saved run with its own recipe and seed; a new run first discards its checkpoints.
   */
  train(request: TrainRequest, onEvent: (event: TrainEvent) => void): Promise<TrainResult>;
  /**
   * Trains the loaded backbone as a masked LM (checkpointed into IndexedDB, resumable); events carry each report and
   * the head's row norms. The trained masked-LM folder is kept in IndexedDB under the returned run key.
   */
  mlm(request: PageMlmRequest, onEvent: (event: MlmEvent) => void): Promise<PageMlmResult>;
  /** The step of the newest checkpoint of the masked-LM run this request would start, or null. */
  mlmCheckpoint(request: PageMlmRequest): Promise<number | null>;
  /** Loads a masked-LM run's trained model as the page's model (head norms, preview, evaluation, training). */
  useMlmModel(run: string): Promise<ModelSummary>;
  /** Reads a retrieval set (NanoBEIR from the Hub with download progress, or picked BEIR files) and keeps it for evaluation. */
  openDataset(source: DatasetSource, onProgress: (progress: LoadProgress) => void): Promise<DatasetSummary>;
  /**
   * Evaluates the loaded model under k on the read sets, one after another, with BM25 beside it; each result is stored
   * in IndexedDB; the last set is kept for the search view. A set too large for memory is refused before encoding.
   */
  evaluate(request: EvaluateRequest, onProgress: (progress: EvaluateProgress) => void): Promise<SetEvaluation[]>;
  /** The stored evaluations of the loaded model (its weights), newest first. */
  savedEvaluations(): Promise<SetEvaluation[]>;
  /** A typed query's top documents on the last evaluated set, under SPLADE and BM25, scores split by term. */
  search(query: string, topK: number): Promise<SearchResult>;
  /** A document of the last evaluated set with its SPLADE vector. */
  document(docId: string): Promise<DocumentView>;
  /**
   * A query and a document of the last evaluated set, each encoded as the set encodes it: which input token caused
   * each of their terms, and their shared terms with their products.
   */
  auditPair(query: string, docId: string): Promise<PairAudit>;
  /** The queries of the last evaluated set where SPLADE and BM25 differ most. */
  differences(count: number): Promise<Differences>;
  /** The judged queries of the last evaluated set (id and text), for the search box. */
  evaluatedQueries(): Promise<{ set: string; queries: { id: string; text: string }[] }>;
  /** The first `limit` document texts of the last evaluated set (title and text joined), and how many it has. */
  evaluatedDocuments(limit: number): Promise<{ set: string; texts: string[]; total: number }>;
  /** Every run kept in this browser, newest first. */
  runs(): Promise<RunRecord[]>;
  /** Removes a run with its checkpoints and saved model. */
  deleteRun(id: string): Promise<void>;
  /** Bytes this site stores (runs, checkpoints, models, cached downloads), when the browser says. */
  storageUsed(): Promise<number | null>;
  /** Trains a sweep of the loaded backbone on the read triplets, run after run (each recorded, its model saved). */
  sweep(request: PageSweepRequest, onEvent: (event: SweepEvent) => void): Promise<SweepPlan>;
  /** Short runs that search lambda_q and lambda_d for a target of active dimensions (each a recorded run). */
  calibrate(request: PageCalibrationRequest, onEvent: (event: CalibrationEvent) => void): Promise<CalibrationResult>;
  /** The newest unfinished sweep of the loaded model and the read triplets, or null. */
  pendingSweep(): Promise<SweepPlan | null>;
  /** Continues an unfinished sweep where it stopped (an interrupted run from its checkpoint). */
  resumeSweep(
    id: string,
    evaluate: PageSweepRequest['evaluate'] | null,
    onEvent: (event: SweepEvent) => void,
  ): Promise<SweepPlan>;
  /** Evaluates finished runs' models on read sets; each result goes into its run's record. */
  evaluateRuns(
    ids: string[],
    request: Omit<EvaluateRequest, 'k'>,
    onProgress: (progress: EvaluateProgress & { run: string }) => void,
  ): Promise<RunRecord[]>;
  /** Loads a finished run's trained model as the page's model (head norms, preview, evaluation). */
  useRun(id: string): Promise<ModelSummary>;
  /** A file to download: a run's model as a zip of its SparseEncoder folder, or its history as JSON or CSV. */
  exportRun(id: string, what: 'model' | 'onnx' | 'json' | 'csv'): Promise<ExportFile>;
  /** The last evaluated set's document vectors (Anserini JSONL, Qdrant points, Elasticsearch _bulk) or its SPLADE TREC run. */
  exportEvaluated(what: 'anserini' | 'qdrant' | 'es' | 'trec'): Promise<ExportFile>;
  /**
   * The last evaluated set's index and latency estimate from its kept vectors (no encoding): posting lengths, the
   * postings each query touches, the index size under two impact models, a pruning curve; `onPoint` after each point.
   */
  indexEstimate(request: IndexEstimateRequest, onPoint: (done: number, total: number) => void): Promise<IndexEstimate>;
  /**
   * The last evaluated set as a static search folder (`splade-lab publish`'s, from the vectors the evaluation kept),
   * zipped, with its transfer per cold search and nDCG@10 against exact retrieval. The loaded model must be
   * inference-free. `runtimeBase`: the URL of the page's folder holding splade-search.js and its engine.
   */
  publishEvaluated(runtimeBase: string, settings: PublishSettings, onStage: (stage: string) => void): Promise<PublishedSearch>;
  /**
   * A ready sentence-transformers project training the loaded backbone on the read triplets with this request on GPUs
   * (torchrun), with splade-lab's first batch and step-0 losses to check it against, as a zip.
   */
  handoff(request: HandoffRequest): Promise<ExportFile>;
  /** Stops the running teaching demo, training or evaluation (it rejects with a "cancelled" failure; checkpoints stay). */
  cancelJob(): void;
  /** Bytes of GPU buffers the worker holds now (models, passes, runs); 0 before the GPU is acquired. */
  gpuMemory(): Promise<number>;
  /** Calls `listener` with a message if the GPU device is lost. */
  onDeviceLost(listener: (message: string) => void): void;
  /**
   * Testing aid: destroys the current GPU device so that it reports itself lost (listeners fire, the model is gone,
   * the next load acquires a fresh device). The page never calls it on its own.
   */
  simulateDeviceLossForTesting(): void;
}
