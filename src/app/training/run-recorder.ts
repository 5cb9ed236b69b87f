// Keeps a run's record (src/contract/experiments/runs.ts) in step with its training events and its evaluations, through a
// RunStore (run.json in Node, IndexedDB in the page): stateful and clocked, so it lives in the app, not the contract.
import type { SetEvaluation } from '../../contract/evaluation/results.ts';
import type { NewRun, RunRecord, RunStatus, RunStore } from '../../contract/experiments/runs.ts';
import type { TrainEvent } from '../../contract/training/training-events.ts';
import type { AlarmWatcher } from './alarm-watcher.ts';

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
