// One training run's life, whatever it trains (SPLADE, masked-LM, whatever trains next): the run's lock, the backbone
// opened under it, old checkpoints cleared when a new run replaces them, its events told (and recorded), its steps
// driven with their GPU buffers owned by the run, the trained files saved where the platform keeps models, its close.
import type { GpuContext, Owned } from '../../gpu/context.ts';
import type { RunRecord, RunStatus } from '../../contract/experiments/runs.ts';
import { listCheckpoints, type CheckpointStore } from '../../train/training-checkpoint.ts';
import { TrainingPaused } from '../../train/step-loop.ts';
import type { OpenedModel } from '../model/open-model.ts';
import type { Platform, RunLock } from '../platform/platform.ts';

/** What keeps a run's record (run.json): every event in order, written out before each checkpoint and at the end. */
export interface EventRecorder<Event> {
  onEvent(event: Event): Promise<void>;
  flush(): Promise<void>;
  end(status: Exclude<RunStatus, 'running'>, details?: { message?: string; savedModel?: RunRecord['savedModel'] }): Promise<void>;
}

/** How a run that threw ended: cancelled, paused by an alarm, or failed. */
export function endStatus(error: unknown): 'cancelled' | 'paused' | 'failed' {
  if ((error as { name?: string } | null)?.name === 'AbortError') return 'cancelled';
  return error instanceof TrainingPaused ? 'paused' : 'failed';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class TrainingRun<Event> {
  /** The run's checkpoints. */
  readonly store: CheckpointStore;
  private recorder: EventRecorder<Event> | null = null;
  /** The recorder's work so far, in order (awaited before a checkpoint, after the start and at the end). */
  private recorded = Promise.resolve();
  private owned: Owned<unknown> | null = null;
  private closed = false;

  private constructor(
    private readonly platform: Platform,
    /** The run: its folder in Node, its key in the page. */
    readonly id: string,
    private readonly lock: RunLock,
    /** The backbone the run starts from. */
    readonly model: OpenedModel,
    private readonly listener: ((event: Event) => void) | undefined,
  ) {
    this.store = platform.checkpointStore(id);
  }

  /** Takes the run's lock (a busy run fails before any load), then opens the backbone under it. */
  static async open<Event>(
    platform: Platform,
    id: string,
    model: OpenedModel | (() => Promise<OpenedModel>),
    listener?: (event: Event) => void,
  ): Promise<TrainingRun<Event>> {
    const lock = await platform.lockRun(id);
    try {
      return new TrainingRun(platform, id, lock, typeof model === 'function' ? await model() : model, listener);
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /** A new run where checkpoints already are: refused by the step loop, or (the page asked the user) removed first. */
  async clear(resume: boolean, existing: 'refuse' | 'replace'): Promise<void> {
    if (resume || existing !== 'replace') return;
    for (const { name } of await listCheckpoints(this.store)) await this.store.remove(name);
  }

  /** Keeps the run's record from here on. */
  record(recorder: EventRecorder<Event>): void {
    this.recorder = recorder;
  }

  /** Tells the run's listener, and its recorder (in order, never blocking the caller). */
  emit(event: Event): void {
    this.listener?.(event);
    const recorder = this.recorder;
    if (!recorder) return;
    this.recorded = this.recorded.then(() => recorder.onEvent(event));
    this.recorded.catch(() => undefined); // awaited later (its failure is reported there), never an unhandled rejection
  }

  /** Waits for the record to hold every event so far; `flush`: and to be written out (before a checkpoint). */
  async settled(flush = false): Promise<void> {
    await this.recorded;
    if (flush) await this.recorder?.flush();
  }

  /**
   * Drives a run's events to the last (`done`), handing each other one to `on` and awaiting it; every GPU buffer made
   * meanwhile is the run's, freed at close. A run that throws is recorded as cancelled, paused or failed and closed.
   */
  async drive<E extends { kind: string }>(
    ctx: GpuContext,
    steps: AsyncIterable<E>,
    on: (event: Exclude<E, { kind: 'done' }>) => void | Promise<void>,
  ): Promise<Extract<E, { kind: 'done' }>> {
    try {
      const owned = await ctx.ownedAsync(async () => {
        for await (const event of steps) {
          if (event.kind === 'done') return event as Extract<E, { kind: 'done' }>;
          await on(event as Exclude<E, { kind: 'done' }>);
        }
        throw new Error(`run ${this.id} ended without its last event`);
      });
      this.owned = owned;
      await ctx.sync();
      await this.settled();
      return owned.value;
    } catch (error) {
      await this.recorded.catch(() => undefined); // the run's own error is the one to report
      await this.close({ status: endStatus(error), message: messageOf(error) });
      throw error;
    }
  }

  /** Writes the trained files where the platform keeps models. */
  async save(files: Map<string, Uint8Array>): Promise<{ where: string; files: string[] }> {
    return { where: await this.platform.writeModel(this.id, files), files: [...files.keys()] };
  }

  /** Frees the run's GPU buffers, records how it ended (a recorded run) and releases the run; only the first call counts. */
  async close(
    end: { status: Exclude<RunStatus, 'running'>; message?: string; savedModel?: RunRecord['savedModel'] } = {
      status: 'finished',
    },
  ): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.owned?.destroy();
    try {
      await this.recorder?.end(end.status, { message: end.message, savedModel: end.savedModel });
    } finally {
      await this.lock.release();
    }
  }

  /** Closes a run that failed before or after its steps (the error is the caller's to throw). */
  async fail(error: unknown): Promise<void> {
    await this.close({ status: endStatus(error), message: messageOf(error) });
  }
}
