// The page's side of the GPU worker: starts it, wraps its comlink API, and turns its errors into PageFailures
// (re-exported by api.ts, the page's one door).
import * as Comlink from 'comlink';
import type { EncodeRequest, KDemoRequest, KDemoSeries, LoadProgress, TrainEvent, TrainRequest, WorkerApi } from './api.ts';

/** Kinds of failure the page reacts to differently. */
export type FailureKind = 'no-webgpu' | 'device-lost' | 'too-large' | 'download' | 'format' | 'cancelled' | 'no-model' | 'busy' | 'other';

/** The error names raised below the worker, mapped to the page's failure kinds (comlink keeps an error's name). */
const FAILURE_BY_ERROR_NAME: Readonly<Record<string, FailureKind>> = {
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
  NonFiniteError: 'format',
  AbortError: 'cancelled',
  NoModelError: 'no-model',
  NoTripletsError: 'format',
  TripletFormatError: 'format',
  CheckpointCorruptError: 'format',
  RunLockedError: 'busy',
};

/** A failed worker call, as the page shows it. */
export class PageFailure extends Error {
  override name = 'PageFailure';
  constructor(
    readonly kind: FailureKind,
    message: string,
  ) {
    super(message);
  }
}

/** The failure kind of anything a worker call threw (comlink keeps the error's name and message). */
export function toPageFailure(error: unknown): PageFailure {
  if (error instanceof PageFailure) return error;
  const name = (error as { name?: unknown })?.name;
  const message = error instanceof Error || typeof (error as { message?: unknown })?.message === 'string' ? (error as Error).message : String(error);
  const kind = typeof name === 'string' ? (FAILURE_BY_ERROR_NAME[name] ?? 'other') : 'other';
  return new PageFailure(kind, message);
}

export class WorkerClient {
  private readonly worker: Worker;
  private readonly api: Comlink.Remote<WorkerApi>;
  /** Rejects if the worker script fails to load or crashes, so that no call waits forever. */
  private readonly crashed: Promise<never>;

  constructor() {
    this.worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'splade-lab gpu' });
    this.api = Comlink.wrap<WorkerApi>(this.worker);
    this.crashed = new Promise<never>((_, reject) => {
      this.worker.addEventListener('error', (event) => {
        reject(new PageFailure('other', `The GPU worker failed to start or crashed (${event.message || 'no message'}); reload the page.`));
      });
    });
    this.crashed.catch(() => undefined);
  }

  init() {
    return this.call(() => this.api.init());
  }

  estimate(...args: Parameters<WorkerApi['estimate']>) {
    return this.call(() => this.api.estimate(...args));
  }

  load(source: Parameters<WorkerApi['load']>[0], onProgress: (progress: LoadProgress) => void) {
    return this.call(() => this.api.load(source, Comlink.proxy(onProgress)));
  }

  cancel(): Promise<void> {
    return this.api.cancel();
  }

  headStats(...args: Parameters<WorkerApi['headStats']>) {
    return this.call(() => this.api.headStats(...args));
  }

  preview(...args: Parameters<WorkerApi['preview']>) {
    return this.call(() => this.api.preview(...args));
  }

  encode(texts: string[], options: EncodeRequest, onProgress: (done: number, total: number) => void) {
    return this.call(() => this.api.encode(texts, options, Comlink.proxy(onProgress)));
  }

  kDemo(request: KDemoRequest, onRun: (run: KDemoSeries, index: number, total: number, finished: boolean) => void) {
    return this.call(() => this.api.kDemo(request, Comlink.proxy(onRun)));
  }

  readTriplets(file: File) {
    return this.call(() => this.api.readTriplets(file));
  }

  trainingCheckpoint(k: number) {
    return this.call(() => this.api.trainingCheckpoint(k));
  }

  train(request: TrainRequest, onEvent: (event: TrainEvent) => void) {
    return this.call(() => this.api.train(request, Comlink.proxy(onEvent)));
  }

  cancelTraining(): Promise<void> {
    return this.api.cancelTraining();
  }

  gpuMemory() {
    return this.call(() => this.api.gpuMemory());
  }

  onDeviceLost(listener: (message: string) => void): Promise<void> {
    return this.api.onDeviceLost(Comlink.proxy(listener));
  }

  /** Testing aid: see WorkerApi.simulateDeviceLossForTesting. */
  simulateDeviceLossForTesting(): Promise<void> {
    return this.api.simulateDeviceLossForTesting();
  }

  terminate(): void {
    this.api[Comlink.releaseProxy]();
    this.worker.terminate();
  }

  private async call<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await Promise.race([work(), this.crashed]);
    } catch (error) {
      throw toPageFailure(error);
    }
  }
}
