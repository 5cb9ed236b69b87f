// The module Web Worker that owns the GPU: a thin comlink adapter from WorkerApi to the application layer (one
// model session, the read triplets, one training run or demo at a time, GPU work serialized).
import * as Comlink from 'comlink';
import { filesFingerprint, openDataset, summarizeDataset, type DatasetRef, type RetrievalDataset } from '../app/datasets.ts';
import { EVAL_PAGE_MEMORY_BUDGET } from '../app/evaluation-memory.ts';
import { evaluateOnSet, type SetEvaluation } from '../app/evaluation.ts';
import { listEvaluations, saveEvaluation } from '../app/evaluation-store-idb.ts';
import { runKDemo } from '../app/k-demo.ts';
import type { EvaluatedSet } from '../app/search-view.ts';
import { estimateModel, openModelRef, summarizeModel } from '../app/open-model.ts';
import { ModelSession } from '../app/model-session.ts';
import { browserPlatform } from '../app/platform-browser.ts';
import type { FilesRef } from '../app/platform.ts';
import { requestFromRecipe } from '../app/requests.ts';
import { checkpointInfo, trainModel } from '../app/train.ts';
import { readTrainingData, type ReadTrainingData } from '../app/training-data.ts';
import type { GpuContext } from '../app/gpu-types.ts';
import type {
  CheckpointInfo,
  DatasetSource,
  DatasetSummary,
  Differences,
  DocumentView,
  EvaluateProgress,
  EvaluateRequest,
  SearchResult,
  EncodeRequest,
  GpuReport,
  HeadStatsPair,
  KDemoRequest,
  KDemoResult,
  KDemoSeries,
  LoadProgress,
  MemoryEstimate,
  ModelSource,
  ModelSummary,
  PreviewResult,
  SparseVectorData,
  TrainEvent,
  TrainRequest,
  TrainResult,
  TripletsSummary,
  WorkerApi,
} from './api.ts';
import { NoEvaluationError, NoModelError, NoTripletsError } from './errors.ts';

/** Tokens per preview text, special tokens included. */
const PREVIEW_MAX_LENGTH = 128;
const DEMO_LABEL = 'synthetic demo backbone (random weights)';

function modelRef(source: ModelSource): FilesRef {
  switch (source.kind) {
    case 'demo':
      return { kind: 'url', url: source.url, label: 'the synthetic demo backbone' };
    case 'hub':
      return { kind: 'hub', id: source.id, revision: source.revision, hubUrl: source.hubUrl };
    case 'files':
      return { kind: 'files', files: source.files };
  }
}

function datasetRef(source: DatasetSource): DatasetRef {
  if (source.kind === 'nanobeir') return { kind: 'nanobeir', set: source.set, hubUrl: source.hubUrl };
  return { kind: 'beir', files: { kind: 'files', files: source.files }, name: source.name };
}

/** The IndexedDB run of the loaded model (its weights' key), the read data (count and CRC-32) and k. */
function runKey(session: ModelSession, data: ReadTrainingData, k: number): string {
  const { triplets, crc32 } = data.data.fingerprint;
  return `${session.model.key} | ${triplets} triplets crc32 ${crc32.toString(16)} | k = ${k}`;
}

class GpuWorker implements WorkerApi {
  private ctx: GpuContext | null = null;
  private session: ModelSession | null = null;
  private summary: ModelSummary | null = null;
  private abort: AbortController | null = null;
  /** The running teaching demo, training or evaluation (one long job at a time), which cancelJob stops. */
  private trainingAbort: AbortController | null = null;
  private triplets: ReadTrainingData | null = null;
  /** Retrieval sets read for evaluation, by name. */
  private readonly datasets = new Map<string, RetrievalDataset>();
  /** The last evaluated set, for the search view. */
  private evaluated: EvaluatedSet | null = null;
  private readonly lostListeners: ((message: string) => void)[] = [];
  /** GPU work runs one call at a time (the session's passes are shared between calls). */
  private queue: Promise<unknown> = Promise.resolve();

  async init(): Promise<GpuReport> {
    return { adapter: (await this.context()).adapter };
  }

  async estimate(source: ModelSource): Promise<MemoryEstimate> {
    const signal = this.startCancellable();
    const ctx = await this.context();
    return estimateModel(await browserPlatform.files(modelRef(source)), ctx.limits, { signal });
  }

  async load(source: ModelSource, onProgress: (progress: LoadProgress) => void): Promise<ModelSummary> {
    const signal = this.startCancellable();
    const ctx = await this.context();
    onProgress({ stage: 'config', file: 'config.json', loaded: 0, total: null });
    let estimate: MemoryEstimate | undefined;
    const model = await openModelRef(browserPlatform, modelRef(source), {
      limits: ctx.limits,
      signal,
      onEstimate: (e) => onProgress({ stage: 'download', loaded: 0, total: (estimate = e).downloadBytes, estimate: e }),
      onProgress: (p) => onProgress({ stage: 'download', ...p, estimate }),
    });
    onProgress({ stage: 'upload', loaded: 0, total: null });
    const synthetic = source.kind === 'demo';
    const label = synthetic ? DEMO_LABEL : model.name;
    const name = synthetic ? 'demo' : model.name;
    await this.serialized(async () => {
      this.dropSession();
      const provenance = `${label}, W_head ${model.config.vocabSize} x ${model.config.hidden}`;
      this.session = await ModelSession.open(ctx, model, { batchSize: 2, provenance });
      this.summary = { ...summarizeModel(model), name, label, synthetic };
    });
    return this.summary!;
  }

  cancel(): void {
    this.abort?.abort(new DOMException('Cancelled by the user', 'AbortError'));
  }

  async headStats(k: number, options: { logNorm: boolean }): Promise<HeadStatsPair> {
    return this.serialized(() => this.loadedSession().measureHead(k, options));
  }

  async preview(query: string, doc: string, k: number, topTerms: number): Promise<PreviewResult> {
    return this.serialized(() => this.loadedSession().preview(query, doc, k, { topTerms, maxLength: PREVIEW_MAX_LENGTH }));
  }

  async encode(texts: string[], options: EncodeRequest, onProgress: (done: number, total: number) => void): Promise<SparseVectorData[]> {
    return this.serialized(() => this.loadedSession().encode(texts, options, { onProgress }));
  }

  async kDemo(request: KDemoRequest, onRun: (run: KDemoSeries, index: number, total: number, finished: boolean) => void): Promise<KDemoResult> {
    const signal = this.startTraining();
    return this.finishTraining(this.serialized(async () => runKDemo(await this.context(), request, { signal, onRun })));
  }

  async readTriplets(file: File): Promise<TripletsSummary> {
    this.triplets = null;
    this.triplets = readTrainingData(new Uint8Array(await file.arrayBuffer()), file.name);
    return this.triplets.summary;
  }

  async trainingCheckpoint(k: number): Promise<CheckpointInfo | null> {
    const run = runKey(this.loadedSession(), this.loadedTriplets(), k);
    return checkpointInfo(browserPlatform.checkpointStore(run));
  }

  async train(request: TrainRequest, onEvent: (event: TrainEvent) => void): Promise<TrainResult> {
    const signal = this.startTraining();
    return this.finishTraining(
      this.serialized(async () => {
        const session = this.loadedSession();
        const triplets = this.loadedTriplets();
        const run = runKey(session, triplets, request.k);
        let asked = request;
        if (request.resume) {
          const saved = await checkpointInfo(browserPlatform.checkpointStore(run));
          if (!saved) throw new Error(`No saved run to resume for this model, data and k = ${request.k}; start a new run.`);
          asked = requestFromRecipe(saved.recipe, saved.k, saved.seed, request.checkpointEvery);
        }
        const label = this.summary?.label ?? session.model.name;
        const provenance = `${label} (${session.model.config.hfArchitecture}), fine-tuned on ${triplets.summary.triplets} triplets of ${triplets.summary.name}, head divided by k = ${request.k}`;
        const ctx = await this.context();
        const trained = await trainModel(ctx, browserPlatform, { model: session.model, data: triplets.data, run, request: asked, existing: 'replace', provenance, signal, onEvent });
        await trained.close();
        return { startStep: trained.startStep, step: trained.step, msPerStep: trained.msPerStep };
      }),
    );
  }

  async openDataset(source: DatasetSource, onProgress: (progress: LoadProgress) => void): Promise<DatasetSummary> {
    const signal = this.startCancellable();
    const named = source.kind === 'files' ? { ...source, name: `${source.name} #${await filesFingerprint(source.files)}` } : source;
    const dataset = await openDataset(browserPlatform, datasetRef(named), { signal, onProgress: (p) => onProgress({ stage: 'download', ...p }) });
    this.datasets.set(dataset.name, dataset);
    return summarizeDataset(dataset);
  }

  async evaluate(request: EvaluateRequest, onProgress: (progress: EvaluateProgress) => void): Promise<SetEvaluation[]> {
    const signal = this.startTraining();
    return this.finishTraining(
      this.serialized(async () => {
        const session = this.loadedSession();
        const sets = request.sets.map((name) => {
          const dataset = this.datasets.get(name);
          if (!dataset) throw new Error(`The set "${name}" is not read yet: pick it again.`);
          return dataset;
        });
        const results: SetEvaluation[] = [];
        this.evaluated = null;
        for (const [setIndex, dataset] of sets.entries()) {
          const { result, kept } = await evaluateOnSet(session, dataset, { ...request, search: 'exhaustive' }, {
            signal,
            bm25: true,
            memoryBudget: EVAL_PAGE_MEMORY_BUDGET,
            onProgress: (stage, done, total) => onProgress({ set: dataset.name, setIndex, sets: sets.length, stage, done, total }),
          });
          await saveEvaluation(result);
          results.push(result);
          this.evaluated = kept;
        }
        return results;
      }),
    );
  }

  async savedEvaluations(): Promise<SetEvaluation[]> {
    return listEvaluations(this.loadedSession().model.key);
  }

  async search(query: string, topK: number): Promise<SearchResult> {
    return this.serialized(() => this.evaluatedSet().search(query, topK));
  }

  async document(docId: string): Promise<DocumentView> {
    return this.evaluatedSet().document(docId);
  }

  async differences(count: number): Promise<Differences> {
    const evaluated = this.evaluatedSet();
    return { set: evaluated.name, ...evaluated.differences(count) };
  }

  async evaluatedQueries(): Promise<{ set: string; queries: { id: string; text: string }[] }> {
    const evaluated = this.evaluatedSet();
    return { set: evaluated.name, queries: evaluated.queries() };
  }

  cancelJob(): void {
    this.trainingAbort?.abort(new DOMException('Training was cancelled by the user', 'AbortError'));
  }

  async gpuMemory(): Promise<number> {
    return this.serialized(async () => this.ctx?.allocatedBytes ?? 0);
  }

  onDeviceLost(listener: (message: string) => void): void {
    this.lostListeners.push(listener);
  }

  simulateDeviceLossForTesting(): void {
    this.ctx?.destroy();
  }

  private loadedSession(): ModelSession {
    if (!this.session) throw new NoModelError();
    return this.session;
  }

  private dropSession(): void {
    this.session?.destroy();
    this.session = null;
    this.evaluated = null;
    this.summary = null;
  }

  /** The GPU context, acquired on first use and again after a loss (the old model is gone with it). */
  private async context(): Promise<GpuContext> {
    if (this.ctx && !this.ctx.isLost) return this.ctx;
    this.session = null;
    const ctx = await browserPlatform.acquireGpu('splade-lab worker');
    ctx.onLost((message) => {
      this.session = null;
      for (const listener of this.lostListeners) listener(message);
    });
    this.ctx = ctx;
    return ctx;
  }

  private evaluatedSet(): EvaluatedSet {
    if (!this.evaluated || !this.session) throw new NoEvaluationError();
    return this.evaluated;
  }

  private loadedTriplets(): ReadTrainingData {
    if (!this.triplets) throw new NoTripletsError();
    return this.triplets;
  }

  /** The signal of a new teaching demo or training run; refused while another one runs (one at a time). */
  private startTraining(): AbortSignal {
    if (this.trainingAbort) throw new Error('A training run, the teaching demo or an evaluation is already running: wait for it or cancel it first.');
    this.trainingAbort = new AbortController();
    return this.trainingAbort.signal;
  }

  private async finishTraining<T>(run: Promise<T>): Promise<T> {
    try {
      return await run;
    } finally {
      this.trainingAbort = null;
    }
  }

  private startCancellable(): AbortSignal {
    this.abort?.abort(new DOMException('Replaced by a newer request', 'AbortError'));
    this.abort = new AbortController();
    return this.abort.signal;
  }

  private serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

Comlink.expose(new GpuWorker());
