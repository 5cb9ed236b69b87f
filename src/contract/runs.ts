// A training run as the unit a user keeps: backbone, k, the whole recipe, the data's fingerprint, every report, the
// newest checkpoint, the saved model and its evaluations, kept up to date while it trains (a folder's run.json in
// Node, IndexedDB in the page) so that it survives a reload or a lost device.
import type { DataFingerprint, StepReport } from './training-report.ts';
import { paperRecipe, type TrainingRecipe } from './recipe.ts';
import type { SetEvaluation } from './results.ts';
import type { TrainEvent } from './training-events.ts';
import type { Alarm, AlarmWatcher } from './alarm-rules.ts';
import type { ProbeSnapshot } from './probes.ts';

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
 * Keeps a run's record in step with its training events: created (or taken up again, on resume) at the start,
 * extended with each report, saved at every checkpoint and at the end. Reports are written in batches (every
 * checkpoint, and every `flushEvery` reports), so a long run does not rewrite its record at every step. A resumed
 * run's record is cut back to its checkpoint: what the earlier process recorded after it (reports, probes, alarms,
 * training time) is dropped, since those steps are trained again; its alarms are those the kept reports and probes
 * raise, fed through `watcher`, which then watches the rest of the run as it would have an uninterrupted one.
 */
export class RunRecorder {
  private record: RunRecord | null = null;
  private unsaved = 0;
  /** Steps whose time the record counts (the step after the last report, or the start). */
  private timedSteps = 0;

  constructor(
    private readonly store: RunStore,
    private readonly run: NewRun,
    private readonly watcher: AlarmWatcher,
    private readonly flushEvery = 10,
  ) {}

  get current(): RunRecord | null {
    return this.record;
  }

  /** Feeds one training event; resolves once the record is written when the event asks for it. */
  async onEvent(event: TrainEvent): Promise<void> {
    const now = new Date().toISOString();
    if (event.kind === 'start') {
      const start = event.startStep;
      const earlier = event.resumedFrom ? await this.store.get(this.run.id) : null;
      const reports = (earlier?.reports ?? []).filter((r) => r.step < start);
      const probes = (earlier?.probes ?? []).filter((p) => p.step < start);
      this.timedSteps = start;
      this.record = {
        id: this.run.id,
        sweep: this.run.sweep ?? earlier?.sweep ?? null,
        model: this.run.model,
        k: event.k,
        seed: event.seed,
        recipe: event.recipe,
        data: this.run.data,
        status: 'running',
        message: '',
        createdAt: earlier?.createdAt ?? now,
        updatedAt: now,
        reports,
        step: start,
        trainingMs: event.trainingMs ?? estimatedMs(earlier, start),
        checkpoint: event.resumedFrom ? { name: event.resumedFrom, step: start } : null,
        savedModel: null,
        evaluations: earlier?.evaluations ?? [],
        alarms: this.watcher.replay(reports, probes),
        probes,
      };
      return this.flush();
    }
    const record = this.record;
    if (!record) return;
    record.updatedAt = now;
    if (event.kind === 'report') {
      const r = event.report;
      // a report's msPerStep is the mean over the steps since the one before it (or since the start)
      record.trainingMs += r.msPerStep * (r.step + 1 - this.timedSteps);
      this.timedSteps = r.step + 1;
      record.step = r.step + 1;
      record.reports.push(r);
      if (++this.unsaved >= this.flushEvery) await this.flush();
    } else if (event.kind === 'probe') {
      (record.probes ??= []).push(event.snapshot);
    } else if (event.kind === 'alarm') {
      (record.alarms ??= []).push(event.alarm);
      await this.flush();
    } else if (event.kind === 'checkpoint') {
      record.checkpoint = { name: event.name, step: event.step };
      record.step = event.step;
      await this.flush();
    }
  }

  /** Records how the run ended (and where its model was saved, when it finished). */
  async end(
    status: Exclude<RunStatus, 'running'>,
    details: { message?: string; savedModel?: RunRecord['savedModel'] } = {},
  ): Promise<void> {
    if (!this.record) return;
    this.record.status = status;
    this.record.message = details.message ?? '';
    this.record.savedModel = details.savedModel ?? this.record.savedModel;
    this.record.updatedAt = new Date().toISOString();
    await this.flush();
  }

  /** Writes the record as it stands now (before a checkpoint: a checkpoint on disk then always has its reports). */
  async flush(): Promise<void> {
    if (!this.record) return;
    this.unsaved = 0;
    await this.store.put(structuredClone(this.record));
  }
}

/**
 * The training time of a resumed run's first `step` steps when its checkpoint did not record it (made by an older
 * version): the earlier record's time, in proportion to the steps kept.
 */
function estimatedMs(earlier: RunRecord | null, step: number): number {
  return earlier && earlier.step > 0 ? earlier.trainingMs * Math.min(1, step / earlier.step) : 0;
}

/** Adds (or replaces, by set and settings) an evaluation of a run's trained model. */
export async function recordRunEvaluation(store: RunStore, id: string, evaluation: SetEvaluation): Promise<RunRecord> {
  const record = await store.get(id);
  if (!record) throw new Error(`no run "${id}" to record an evaluation in`);
  const same = (e: SetEvaluation) =>
    e.set.name === evaluation.set.name && JSON.stringify(e.request) === JSON.stringify(evaluation.request);
  record.evaluations = [...record.evaluations.filter((e) => !same(e)), evaluation];
  record.updatedAt = new Date().toISOString();
  await store.put(record);
  return record;
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
