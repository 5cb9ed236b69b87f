// The page's side of the GPU worker: starts it, wraps its comlink API, and turns its errors into PageFailures
// (re-exported by api.ts, the page's one door).
import * as Comlink from 'comlink';
import type { WorkerApi } from '../contract/worker-api.ts';

/** Kinds of failure the page reacts to differently. */
export type FailureKind =
  | 'no-webgpu'
  | 'device-lost'
  | 'too-large'
  | 'download'
  | 'format'
  | 'cancelled'
  | 'no-model'
  | 'busy'
  | 'other';

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
  const message =
    error instanceof Error || typeof (error as { message?: unknown })?.message === 'string'
      ? (error as Error).message
      : String(error);
  const kind = typeof name === 'string' ? (FAILURE_BY_ERROR_NAME[name] ?? 'other') : 'other';
  return new PageFailure(kind, message);
}

/** Every WorkerApi method by name (the client builds one call per name; the check below keeps the list complete). */
const WORKER_METHODS = [
  'init',
  'estimate',
  'load',
  'cancel',
  'headStats',
  'runHeadStats',
  'preview',
  'encode',
  'auditCorpus',
  'auditDiff',
  'kDemo',
  'readTriplets',
  'readHubTriplets',
  'batchCaches',
  'clearBatchCache',
  'useCachedBatches',
  'trainingCheckpoint',
  'train',
  'mlm',
  'mlmCheckpoint',
  'useMlmModel',
  'lessonStart',
  'lessonStep',
  'lessonSentence',
  'lessonStop',
  'openDataset',
  'evaluate',
  'savedEvaluations',
  'search',
  'document',
  'auditPair',
  'differences',
  'evaluatedQueries',
  'evaluatedDocuments',
  'runs',
  'deleteRun',
  'storageUsed',
  'sweep',
  'calibrate',
  'pendingSweep',
  'resumeSweep',
  'evaluateRuns',
  'useRun',
  'exportRun',
  'exportEvaluated',
  'indexEstimate',
  'publishEvaluated',
  'handoff',
  'cancelJob',
  'gpuMemory',
  'onDeviceLost',
  'simulateDeviceLossForTesting',
] as const satisfies readonly (keyof WorkerApi)[];

/** Compiles only while WORKER_METHODS names every method of WorkerApi. */
type MissingMethods = Exclude<keyof WorkerApi, (typeof WORKER_METHODS)[number]>;

const _workerMethodsComplete: [MissingMethods] extends [never] ? true : MissingMethods = true;

/** Every WorkerApi method as the page calls it: a promise, its errors as PageFailures, callbacks proxied. */
export type WorkerCalls = {
  [K in keyof WorkerApi]: (...args: Parameters<WorkerApi[K]>) => Promise<Awaited<ReturnType<WorkerApi[K]>>>;
};

/** The page's handle on the GPU worker. */
export interface WorkerClient extends WorkerCalls {
  terminate(): void;
}

/**
 * Starts the GPU worker. Each call goes through comlink with its function arguments (progress callbacks) proxied, and
 * rejects with a PageFailure; a worker that fails to load or crashes rejects every pending call instead of hanging.
 */
export function startWorkerClient(): WorkerClient {
  const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'splade-lab gpu' });
  const api = Comlink.wrap<WorkerApi>(worker);
  const crashed = new Promise<never>((_, reject) => {
    worker.addEventListener('error', (event) => {
      reject(
        new PageFailure(
          'other',
          `The GPU worker failed to start or crashed (${event.message || 'no message'}); reload the page.`,
        ),
      );
    });
  });
  crashed.catch(() => undefined);
  const call = async (name: keyof WorkerApi, args: unknown[]) => {
    const proxied = args.map((arg) => (typeof arg === 'function' ? Comlink.proxy(arg as (...a: unknown[]) => unknown) : arg));
    try {
      const method = api[name] as unknown as (...a: unknown[]) => Promise<unknown>;
      return await Promise.race([method(...proxied), crashed]);
    } catch (error) {
      throw toPageFailure(error);
    }
  };
  const terminate = () => {
    api[Comlink.releaseProxy]();
    worker.terminate();
  };
  const calls = Object.fromEntries(WORKER_METHODS.map((name) => [name, (...args: unknown[]) => call(name, args)]));
  return { ...calls, terminate } as WorkerClient;
}
