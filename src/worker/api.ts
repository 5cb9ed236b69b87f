// The one typed interface between the page and the GPU worker (comlink): coarse methods, plain-data results.
import type { AdapterReport } from '../gpu/context.ts';
import type { HeadStatistics } from '../kernels/head-stats.ts';
import type { StepLosses } from '../train/head-only-trainer.ts';
import type { TrainingRecipe } from '../train/trainer.ts';
import type { StepReport } from '../train/training-run.ts';

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
  stage: 'config' | 'download' | 'decode' | 'upload' | 'tokenizer' | 'stats';
  file?: string;
  loaded: number;
  total: number | null;
  /** Known once config.json and the weight headers are read, before the weights are downloaded. */
  estimate?: MemoryEstimate;
}

/** Memory a model needs against what the device allows, known before its weights are fetched. */
export interface MemoryEstimate {
  /** Bytes to download (or read) for the checkpoint files; null when unknown. */
  downloadBytes: number | null;
  /** fp32 bytes of all parameters once on the GPU. */
  gpuBytes: number;
  /** The largest single tensor (usually the vocabulary matrix), which must fit one storage binding. */
  largestTensorBytes: number;
  parameters: number;
  maxBufferSize: number;
  maxStorageBufferBindingSize: number;
  /** Empty when it fits; otherwise why not, in plain words. */
  problems: string[];
}

/** The loaded backbone, as the page shows it. */
export interface ModelSummary {
  /** URL-state name: a preset key, a Hub id, "demo" or "local files". */
  name: string;
  /** Human label ("synthetic demo (BERT-style, untrained)" for the bundled backbone). */
  label: string;
  synthetic: boolean;
  hfArchitecture: string;
  vocabSize: number;
  hidden: number;
  layers: number;
  parameters: number;
  /** The decoder matrix is the word-embedding matrix (dividing it by k divides both). */
  tiedHead: boolean;
  estimate: MemoryEstimate;
}

export interface HistogramOptions {
  /** Bin edges evenly spaced in log(norm). */
  logNorm: boolean;
}

/** Row-norm statistics of W_head (k = 1) and W_head / k, histogrammed over one shared range. */
export interface HeadStatsPair {
  before: HeadStatistics;
  after: HeadStatistics;
  /** "gpu": measured now by the head-statistics kernels; "precomputed": the demo's shipped figures (no WebGPU). */
  origin: 'gpu' | 'precomputed';
  /** What data and model the figures come from, for the caption. */
  provenance: string;
}

export interface SparseTerm {
  term: string;
  id: number;
  weight: number;
  /** The term is not one of the text's own tokens: the model added it. */
  expansion: boolean;
}

export interface SparseSummary {
  text: string;
  tokens: string[];
  /** Vocabulary entries with a non-zero weight. */
  activeDims: number;
  /** Largest weights first. */
  terms: SparseTerm[];
}

export interface PreviewResult {
  k: number;
  query: SparseSummary;
  doc: SparseSummary;
  /** s(q, d) = v_q · v_d. */
  score: number;
}

export interface EncodeRequest {
  k: number;
  /** Tokens per text, special tokens included. */
  maxLength: number;
  topK?: number;
}

/** A sparse vector as it crosses the worker boundary: vocabulary ids ascending, their weights. */
export interface SparseVectorData {
  indices: Uint32Array;
  values: Float32Array;
}

/** The teaching demo: head-only training on a synthetic large-norm head (no model, no data), once per k. */
export interface KDemoRequest {
  ks: number[];
  steps: number;
}

/** One k's losses of the teaching demo (read back every few steps, always at the first and the last). */
export interface KDemoSeries {
  k: number;
  losses: StepLosses[];
}

export interface KDemoResult {
  runs: KDemoSeries[];
  /** What the figures come from, for captions. */
  provenance: string;
}

/** A triplet file read by the worker (and kept there for training). */
export interface TripletsSummary {
  name: string;
  triplets: number;
  bytes: number;
  blankLines: number;
  header: boolean;
  crc32: number;
}

/** What the page sets for a run of real training; the rest of the recipe is the paper's. */
export interface TrainRequest {
  k: number;
  steps: number;
  batchSize: number;
  queryLength: number;
  documentLength: number;
  checkpointEvery: number;
  /** Continue the checkpoint of this model + data + k (its recipe and seed are used); otherwise any such checkpoint is discarded. */
  resume: boolean;
}

/** The newest checkpoint of the loaded model + the read triplets + k, in IndexedDB. */
export interface CheckpointInfo {
  step: number;
  recipe: TrainingRecipe;
  seed: number;
  /** Where it is kept, for messages. */
  store: string;
}

/** Progress of a training run, as it happens. */
export type TrainEvent =
  | { kind: 'start'; startStep: number; resumedFrom: string | null; recipe: TrainingRecipe; provenance: string }
  | { kind: 'report'; report: StepReport }
  | { kind: 'checkpoint'; name: string; step: number };

export interface TrainResult {
  startStep: number;
  /** Steps taken in all (the run's last step when it finished). */
  step: number;
  msPerStep: number;
}

/** Kinds of failure the page reacts to differently (each error's `name` on the worker side). */
export type FailureKind =
  | 'no-webgpu'
  | 'device-lost'
  | 'too-large'
  | 'download'
  | 'format'
  | 'cancelled'
  | 'no-model'
  | 'other';

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
  /** Sparse vectors of a query and a document under k (forward only) and their dot score. */
  preview(query: string, doc: string, k: number, topTerms: number): Promise<PreviewResult>;
  /**
   * Sparse vectors of many texts under k (batched GPU encoding, forward only), with progress after each batch;
   * `topK` > 0 keeps each vector's largest weights only.
   */
  encode(texts: string[], options: EncodeRequest, onProgress: (done: number, total: number) => void): Promise<SparseVectorData[]>;
  /**
   * The teaching demo for each k in turn; `onRun` gets the line of ks[index] so far after every read-back and once
   * more when it is finished. cancelTraining stops it between steps.
   */
  kDemo(request: KDemoRequest, onRun: (run: KDemoSeries, index: number, total: number, finished: boolean) => void): Promise<KDemoResult>;
  /** Reads and checks a triplet TSV (query, positive, negative per line) and keeps it for training. */
  readTriplets(file: File): Promise<TripletsSummary>;
  /** The newest checkpoint for the loaded model, the read triplets and k, or null. */
  trainingCheckpoint(k: number): Promise<CheckpointInfo | null>;
  /** Fine-tunes the loaded backbone on the read triplets (head divided by k first), checkpointing into IndexedDB. */
  train(request: TrainRequest, onEvent: (event: TrainEvent) => void): Promise<TrainResult>;
  /** Stops the running teaching demo or training (the run rejects with a "cancelled" failure; checkpoints stay). */
  cancelTraining(): void;
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

/** The error names the worker raises, mapped to the page's failure kinds. */
export const FAILURE_BY_ERROR_NAME: Readonly<Record<string, FailureKind>> = {
  NoWebGpuError: 'no-webgpu',
  DeviceLostError: 'device-lost',
  GpuLimitError: 'too-large',
  ModelTooLargeError: 'too-large',
  CheckpointTooLargeError: 'too-large',
  DownloadError: 'download',
  HubError: 'download',
  CheckpointFormatError: 'format',
  ConfigError: 'format',
  WeightsError: 'format',
  TokenizerError: 'format',
  AbortError: 'cancelled',
  NoModelError: 'no-model',
  NoTripletsError: 'format',
  TripletFormatError: 'format',
  CheckpointCorruptError: 'format',
};
