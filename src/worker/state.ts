// What the GPU worker holds between calls: the GPU context (again after a loss), the model session, the read triplets
// and retrieval sets, the last evaluated set; GPU work one call at a time; one long job (demo, training, sweep,
// evaluation) at a time, which cancelJob stops.
import type { RetrievalDataset } from '../app/evaluation/datasets.ts';
import type { GpuContext } from '../app/platform/platform.ts';
import { ModelSession } from '../app/model/model-session.ts';
import type { OpenedModel } from '../app/model/open-model.ts';
import { browserPlatform } from '../app/platform/platform-browser.ts';
import type { EvaluatedSet } from '../app/evaluation/evaluated-set.ts';
import type { LessonRun } from '../app/lesson/lesson-run.ts';
import type { ReadTrainingData } from '../app/training/training-data.ts';
import type { ModelSummary } from './api.ts';
import { NoEvaluationError, NoModelError, NoTripletsError } from './errors.ts';

export class WorkerState {
  private ctx: GpuContext | null = null;
  session: ModelSession | null = null;
  summary: ModelSummary | null = null;
  /** The picked triplet file: its rows (streamed) and the File itself (the hand-off copies it); null file: cached batches only. */
  triplets: (ReadTrainingData & { file: File | null }) | null = null;
  /** Retrieval sets read for evaluation, by name. */
  readonly datasets = new Map<string, RetrievalDataset>();
  /** The last evaluated set, for the search view. */
  evaluated: EvaluatedSet | null = null;
  /** The open teaching lesson (its own copies of the model, one per k). */
  lesson: LessonRun | null = null;
  readonly lostListeners: ((message: string) => void)[] = [];
  private abort: AbortController | null = null;
  private jobAbort: AbortController | null = null;
  /** GPU work runs one call at a time (the session's passes are shared between calls). */
  private queue: Promise<unknown> = Promise.resolve();

  /** The GPU context, acquired on first use and again after a loss (the old model is gone with it). */
  async context(): Promise<GpuContext> {
    if (this.ctx && !this.ctx.isLost) return this.ctx;
    this.session = null;
    const ctx = await browserPlatform.acquireGpu('splade-lab worker');
    ctx.onLost((message) => {
      this.session = null;
      this.evaluated = null;
      this.lesson = null;
      for (const listener of this.lostListeners) listener(message);
    });
    this.ctx = ctx;
    return ctx;
  }

  /** The context if one was acquired (no acquisition). */
  get currentContext(): GpuContext | null {
    return this.ctx;
  }

  /** Replaces the model on the GPU (the previous session's buffers are freed first). */
  async installModel(model: OpenedModel, summary: ModelSummary, provenance: string): Promise<ModelSummary> {
    const ctx = await this.context();
    return this.serialized(async () => {
      this.session?.destroy();
      this.session = null;
      this.evaluated = null;
      this.closeLesson();
      this.summary = null;
      this.session = await ModelSession.open(ctx, model, { batchSize: 2, provenance });
      this.summary = summary;
      return summary;
    });
  }

  /** Frees the open lesson's models, if any. */
  closeLesson(): void {
    this.lesson?.destroy();
    this.lesson = null;
  }

  loadedSession(): ModelSession {
    if (!this.session) throw new NoModelError();
    return this.session;
  }

  loadedTriplets(): ReadTrainingData & { file: File | null } {
    if (!this.triplets) throw new NoTripletsError();
    return this.triplets;
  }

  evaluatedSet(): EvaluatedSet {
    if (!this.evaluated || !this.session) throw new NoEvaluationError();
    return this.evaluated;
  }

  /** A read retrieval set by name. */
  dataset(name: string): RetrievalDataset {
    const dataset = this.datasets.get(name);
    if (!dataset) throw new Error(`The set "${name}" is not read yet: pick it again.`);
    return dataset;
  }

  /** The signal of a short cancellable request (estimate, load, reading a set); a newer one replaces it. */
  startCancellable(): AbortSignal {
    this.abort?.abort(new DOMException('Replaced by a newer request', 'AbortError'));
    this.abort = new AbortController();
    return this.abort.signal;
  }

  cancel(): void {
    this.abort?.abort(new DOMException('Cancelled by the user', 'AbortError'));
  }

  /** Runs a long job (refused while another runs), its GPU work serialized with the other calls. */
  async job<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (this.jobAbort)
      throw new Error(
        'A training run, a sweep, the teaching demo or an evaluation is already running: wait for it or cancel it first.',
      );
    const controller = new AbortController();
    this.jobAbort = controller;
    try {
      return await this.serialized(() => work(controller.signal));
    } finally {
      this.jobAbort = null;
    }
  }

  cancelJob(): void {
    this.jobAbort?.abort(new DOMException('Cancelled by the user', 'AbortError'));
  }

  serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
