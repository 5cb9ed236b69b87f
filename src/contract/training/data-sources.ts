// What the page is told of training data: a triplet file's summary and format, a Hub dataset's id, cached batches.
import type { DataFingerprint } from './training-report.ts';
import type { TeacherLabelSummary } from './teacher-labels.ts';

/** What the cache says of one fingerprint's batches (listed, sized and cleared from the page). */
export interface BatchCacheEntry {
  fingerprint: string;
  /** The data the batches come from (what a run's key and checkpoints check). */
  data: DataFingerprint;
  shape: Required<Pick<BatchShape, 'batchSize' | 'queryLength' | 'documentLength'>> & Pick<BatchShape, 'dataOrder' | 'negatives'>;
  seed: number;
  tokenizer: string;
  /** Batches stored, and their bytes. */
  batches: number;
  bytes: number;
  updated: number;
}

export interface HubDatasetRef {
  /** "org/name" of the dataset repository. */
  repo: string;
  /** The subset (config) folder, e.g. "triplet" (default: the repository's root). */
  subset?: string;
  /** The split whose files are read (default "train"). */
  split?: string;
  revision?: string;
}

export interface BatchShape {
  batchSize: number;
  queryLength: number;
  documentLength: number;
  /** 'file': every epoch visits the triplets in file order; absent: a seeded shuffle per epoch. */
  dataOrder?: 'file';
  /** Negatives per row (absent: 1): the documents are B positives, then B first negatives, B second ones, ... */
  negatives?: number;
}

/** What the page shows of a read triplet file. */
export interface TripletsSummary {
  name: string;
  triplets: number;
  /** Negatives per row (1 for triplets). */
  negatives: number;
  bytes: number;
  blankLines: number;
  header: boolean;
  crc32: number;
  format: TripletFormat;
  /** Bytes the rows take in memory: the whole rows (in memory), or only their byte-range index (streamed). */
  memoryBytes: number;
  streamed: boolean;
  /** Set when the rows are not at hand, only a run's cached batches under this fingerprint (a reloaded page). */
  cacheFingerprint?: string;
  /** The rows' teacher labels (distillation data: sentence-transformers' `label` column), when they have them. */
  labels?: TeacherLabelSummary;
}

/** How a triplet file is written: tab-separated lines, JSON Lines, or a Parquet table. */
export type TripletFormat = 'tsv' | 'jsonl' | 'parquet';
