// What the model calls hand back to the page: the model's summary and memory estimate, head statistics under k,
// a preview's sparse vector, the k demo's series.
import type { PairAudit } from './pair-audit.ts';
import type { HeadStatistics } from './head-statistics.ts';

/** Row-norm statistics of W_head (k = 1) and W_head / k, histogrammed over one shared range. */
export interface HeadStatsPair {
  before: HeadStatistics;
  after: HeadStatistics;
  /**
   * "gpu": measured now by the head-statistics kernels; "host": measured now in float64 on this machine's CPU (a head
   * too large for one GPU binding); "precomputed": the demo's shipped figures (no WebGPU).
   */
  origin: 'gpu' | 'host' | 'precomputed';
  /** What data and model the figures come from, for the caption. */
  provenance: string;
}

export interface PreviewResult {
  k: number;
  query: SparseSummary;
  doc: SparseSummary;
  /** s(q, d) = v_q · v_d. */
  score: number;
  /** Which input token caused each term of the query's and the document's vectors, and their shared terms. */
  origins?: PairAudit;
}

export interface SparseTerm {
  term: string;
  id: number;
  weight: number;
  /** The term is not one of the text's own tokens: the model added it. */
  expansion: boolean;
  /**
   * A special token of the tokenizer or a reserved [unusedN] piece (the audit's "special" kind): it keeps its weight in
   * the vector, as sentence-transformers' SpladePooling keeps it, but lists show it apart from the top terms.
   */
  special?: boolean;
}

export interface SparseSummary {
  text: string;
  tokens: string[];
  /** Vocabulary entries with a non-zero weight. */
  activeDims: number;
  /** Largest weights first. */
  terms: SparseTerm[];
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

/** A summary of an opened model, as the page shows it and the CLI prints it. */
export interface ModelSummary {
  name: string;
  hfArchitecture: string;
  vocabSize: number;
  hidden: number;
  layers: number;
  parameters: number;
  /** The decoder matrix is the word-embedding matrix (dividing it by k divides both). */
  tiedHead: boolean;
  /** The longest text it can encode, special tokens included. */
  maxTokens: number;
  estimate: MemoryEstimate;
  /** How queries and documents are encoded, as the folder says ("inference-free: queries by an IDF table ..."). */
  encoding: string;
  notes: string[];
}

/** The three heads of a run; `anisotropy` is NaN in each (the run keeps norms only, not rows). */
export interface RunHeadStats {
  k: number;
  loaded: HeadStatistics;
  divided: HeadStatistics;
  trained: HeadStatistics;
}
