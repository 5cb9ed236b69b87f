// The one reactive controller for "run a cancellable job in the worker and show its progress": running state, a
// status line, an error, cancel, and the outcome of a cancelled or failed job in plain words. The training panels
// (teaching demo, real training), the evaluation, calibration, sweep, runs and hand-off panels use it.
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { toPageFailure, type PageFailure } from '../worker/api.ts';

export interface JobOptions {
  /** Shown while the job starts (before its first progress). */
  starting: string;
  /** Asks the worker to stop the job (it then rejects with a "cancelled" failure). */
  cancel: () => void | Promise<void>;
  /** Shown after Cancel was pressed, until the job stops. */
  cancelling?: string;
  /** The status line once cancelled. */
  cancelled: () => string;
  /** The error line of a failure ("The demo stopped: …"). */
  failed: (failure: PageFailure) => string;
}

export class JobController implements ReactiveController {
  /** A job is running (its buttons are disabled, Cancel is offered). */
  running = false;
  /** The status line (progress, then the outcome). */
  status = '';
  /** The error line of the last job, '' when none. */
  error = '';
  private options: JobOptions | null = null;

  constructor(private readonly host: ReactiveControllerHost) {
    host.addController(this);
  }

  hostConnected(): void {}

  /**
   * Runs `work` (which reports through progress) unless a job is running; resolves to its result, or to null when it
   * was cancelled or failed (the status or error line then says so).
   */
  async run<T>(options: JobOptions, work: () => Promise<T>): Promise<T | null> {
    if (this.running) return null;
    this.options = options;
    this.running = true;
    this.error = '';
    this.setStatus(options.starting);
    try {
      return await work();
    } catch (error) {
      const failure = toPageFailure(error);
      if (failure.kind === 'cancelled') this.setStatus(options.cancelled());
      else {
        this.status = '';
        this.error = options.failed(failure);
      }
      return null;
    } finally {
      this.running = false;
      this.options = null;
      this.host.requestUpdate();
    }
  }

  setStatus(status: string): void {
    this.status = status;
    this.host.requestUpdate();
  }

  /**
   * A running job's progress line. A report that arrives once the job has ended is dropped, so it can never
   * overwrite the outcome ("Done: …") the panel set after run() returned.
   */
  progress(status: string): void {
    if (this.running) this.setStatus(status);
  }

  /** Asks the running job to stop. */
  cancel(): void {
    if (!this.running || !this.options) return;
    if (this.options.cancelling) this.setStatus(this.options.cancelling);
    void this.options.cancel();
  }
}
