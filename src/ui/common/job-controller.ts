// The one reactive controller for "run a cancellable job in the worker and show its progress": running state, a
// status line, an error, cancel, and the outcome of a cancelled or failed job in plain words. The training panels
// (teaching demo, real training), the evaluation, calibration, sweep, runs and hand-off panels use it.
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { toPageFailure, type PageFailure } from '../../worker/api.ts';

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

/** Sets the status line of the job it was handed to; once that job has ended, it does nothing. */
export type ProgressReport = (status: string) => void;

export class JobController implements ReactiveController {
  /** A job is running (its buttons are disabled, Cancel is offered). */
  running = false;
  /** The status line (progress, then the outcome). */
  status = '';
  /** The error line of the last job, '' when none. */
  error = '';
  private options: JobOptions | null = null;
  /** How many jobs have started: a job's number tells its reports from a later job's. */
  private jobsStarted = 0;

  constructor(private readonly host: ReactiveControllerHost) {
    host.addController(this);
  }

  hostConnected(): void {}

  /**
   * Runs `work` unless a job is running; resolves to its result, or to null when it was cancelled or failed (the status
   * or error line then says so). `work` reports through the `progress` it is handed, which drops a report arriving once
   * this job has ended, so a late report can never overwrite the outcome ("Done: …") the panel sets after run() returns,
   * nor a later job's progress.
   */
  async run<T>(options: JobOptions, work: (progress: ProgressReport) => Promise<T>): Promise<T | null> {
    if (this.running) return null;
    const job = ++this.jobsStarted;
    const progress: ProgressReport = (status) => {
      if (this.running && this.jobsStarted === job) this.setStatus(status);
    };
    this.options = options;
    this.running = true;
    this.error = '';
    this.setStatus(options.starting);
    try {
      return await work(progress);
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

  /** Asks the running job to stop. */
  cancel(): void {
    if (!this.running || !this.options) return;
    if (this.options.cancelling) this.setStatus(this.options.cancelling);
    void this.options.cancel();
  }
}
