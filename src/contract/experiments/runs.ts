// A training run as the unit a user keeps: backbone, k, the whole recipe, the data's fingerprint, every report, the
// newest checkpoint, the saved model and its evaluations, kept up to date while it trains (a folder's run.json in
// Node, IndexedDB in the page) so that it survives a reload or a lost device.
import type { DataFingerprint, StepReport } from '../training/training-report.ts';
import { paperRecipe, type TrainingRecipe } from '../training/recipe.ts';
import type { SetEvaluation } from '../evaluation/results.ts';
import type { Alarm } from '../training/alarm-rules.ts';
import type { ProbeSnapshot } from '../training/probes.ts';

export type RunStatus = 'running' | 'finished' | 'paused' | 'cancelled' | 'failed';

export interface RunRecord {
  /** The run's key: its folder in Node, its checkpoint key in the page. */
  id: string;
  /** A sweep the run belongs to (its id and the run's place in it), if any. */
  sweep: { id: string; index: number; total: number } | null;
  model: {
    name: string;
    /** Weights' key (Hub id, or a CRC-32 of config and parameters). */
    key: string;
    architecture: string;
    /** Mean L2 row norm of W_head as loaded (k = 1); divided by k, what the run trained from. */
    meanRowNorm: number | null;
    /** Every row's L2 norm of W_head as loaded (5 significant digits), to draw beside the trained head; null if not kept. */
    rowNorms: number[] | null;
  };
  k: number;
  seed: number;
  recipe: TrainingRecipe;
  data: DataFingerprint;
  status: RunStatus;
  /** Why it stopped, when it failed. */
  message: string;
  createdAt: string;
  updatedAt: string;
  /** Every report, in order (a resumed run keeps the earlier ones). */
  reports: StepReport[];
  /** Steps taken so far. */
  step: number;
  /** Wall time of the steps, checkpoint writes left out. */
  trainingMs: number;
  checkpoint: { name: string; step: number } | null;
  /** Where the trained model was saved, once the run finished. */
  savedModel: { where: string; files: string[] } | null;
  evaluations: SetEvaluation[];
  /** Alarms raised while training (absent in records made before alarms existed). */
  alarms?: Alarm[];
  /** Every probe snapshot, the first one before training (absent in records made before probes existed). */
  probes?: ProbeSnapshot[];
}

/** Where runs are kept: by id (a run folder's run.json in Node, IndexedDB in the page). */
export interface RunStore {
  get(id: string): Promise<RunRecord | null>;
  put(record: RunRecord): Promise<void>;
}

export interface NewRun {
  id: string;
  sweep?: RunRecord['sweep'];
  model: RunRecord['model'];
  data: DataFingerprint;
}

/**
 * A run's id in the page (its checkpoints and record are kept under it): the weights' key, the data's count and
 * CRC-32, k and the lambdas (the paper's when not given). The same request on the same model and data is the same run.
 */
export function runIdFor(
  modelKey: string,
  data: DataFingerprint,
  request: { k: number; lambdaQueries?: number; lambdaDocuments?: number },
): string {
  const paper = paperRecipe(1);
  const lq = request.lambdaQueries ?? paper.lambdaQueries;
  const ld = request.lambdaDocuments ?? paper.lambdaDocuments;
  return `${modelKey} | ${data.triplets} triplets crc32 ${data.crc32.toString(16)} | k = ${request.k} | lambda_q ${lq} lambda_d ${ld}`;
}

/** A file to hand to the user. */
export interface ExportFile {
  name: string;
  type: string;
  bytes: Uint8Array;
}
