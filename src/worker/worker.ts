// The module Web Worker that owns the GPU: exposes WorkerApi through comlink (models, head statistics, preview).
import * as Comlink from 'comlink';
import { acquireGpuContext, type GpuContext } from '../gpu/context.ts';
import { readJsonFile, type FileSource, type ReadProgress } from '../io/file-source.ts';
import type { HostTensor } from '../io/host-tensor.ts';
import type { TextTokenizer } from '../io/tokenizer.ts';
import { parseModelConfig, type ModelConfig } from '../model/config.ts';
import { GpuModel } from '../model/gpu-model.ts';
import { decoderWeightName } from '../model/layout.ts';
import { loadModel } from '../model/load-model.ts';
import { SpladeTextEncoder } from '../model/splade-encoder.ts';
import { sparseDot } from '../retrieval/sparse-vector.ts';
import type { Backbone } from '../train/training-run.ts';
import type {
  CheckpointInfo,
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
import { ModelTooLargeError, NoModelError, NoTripletsError } from './errors.ts';
import { HeadSession } from './head-session.ts';
import { estimateModelMemory } from './memory-estimate.ts';
import { fileSourceFor, modelName } from './model-sources.ts';
import { summarizeSparse } from './sparse-summary.ts';
import { checkpointInfo, checkpointStoreFor, readTripletFile, runKDemo, trainBackbone, type ReadTriplets } from './training-session.ts';

/** Tokens per preview text, special tokens included. */
const PREVIEW_MAX_LENGTH = 128;

interface LoadedModel {
  config: ModelConfig;
  /** The pristine decoder matrix: statistics, and the source of W_head / k. */
  head: HeadSession;
  /** The whole encoder; its decoder matrix holds W_head / k for the k of the last preview. */
  gpuModel: GpuModel;
  tokenizer: TextTokenizer;
  encoder: SpladeTextEncoder;
  /** Host copies of the pristine parameters and config.json, for training runs. */
  backbone: Backbone;
  /** URL-state name and label, for checkpoint keys and captions. */
  name: string;
  label: string;
  /** Frees every GPU buffer of this model (head copy, parameters, encoder passes). */
  destroy(): void;
}

class GpuWorker implements WorkerApi {
  private ctx: GpuContext | null = null;
  private model: LoadedModel | null = null;
  private abort: AbortController | null = null;
  /** The running teaching demo or training, which cancelTraining stops. */
  private trainingAbort: AbortController | null = null;
  private triplets: ReadTriplets | null = null;
  private readonly lostListeners: ((message: string) => void)[] = [];
  /** GPU work runs one call at a time (head statistics and the encoder share buffers between calls). */
  private queue: Promise<unknown> = Promise.resolve();

  async init(): Promise<GpuReport> {
    return { adapter: (await this.context()).adapter };
  }

  async estimate(source: ModelSource): Promise<MemoryEstimate> {
    const signal = this.startCancellable();
    const ctx = await this.context();
    const files = fileSourceFor(source);
    const config = await readConfig(files, signal);
    return estimateModelMemory(files, config, ctx.limits, { signal });
  }

  async load(source: ModelSource, onProgress: (progress: LoadProgress) => void): Promise<ModelSummary> {
    const signal = this.startCancellable();
    const ctx = await this.context();
    const files = fileSourceFor(source);
    onProgress({ stage: 'config', file: 'config.json', loaded: 0, total: null });
    const config = await readConfig(files, signal);
    const estimate = await estimateModelMemory(files, config, ctx.limits, { signal });
    if (estimate.problems.length > 0) throw new ModelTooLargeError(estimate.problems.join('\n'));
    const report = (p: ReadProgress) => onProgress({ stage: 'download', ...p, estimate });
    onProgress({ stage: 'download', loaded: 0, total: estimate.downloadBytes, estimate });
    const loaded = await loadModel(files, { signal, onProgress: report, limits: ctx.limits });
    onProgress({ stage: 'upload', loaded: 0, total: null });
    const name = modelName(source);
    const synthetic = source.kind === 'demo';
    const label = synthetic ? 'synthetic demo backbone (random weights)' : name;
    await this.serialized(async () => {
      this.model?.destroy();
      this.model = null;
      const headTensor = loadedHead(loaded.params, loaded.config, files.label);
      const onGpu = ctx.owned(() => {
        const head = HeadSession.upload(ctx, headTensor, `${label}, W_head ${config.vocabSize} x ${config.hidden}`);
        const gpuModel = GpuModel.upload(ctx, loaded.config, loaded.params);
        return { head, gpuModel, encoder: new SpladeTextEncoder(ctx, gpuModel, loaded.tokenizer, 2) };
      });
      await ctx.sync();
      const { head, gpuModel, encoder } = onGpu.value;
      const backbone = { config: loaded.config, hfConfig: loaded.checkpoint.config, params: loaded.params, tokenizer: loaded.tokenizer };
      const destroy = () => {
        encoder.destroy();
        onGpu.destroy();
      };
      this.model = { config: loaded.config, head, gpuModel, tokenizer: loaded.tokenizer, encoder, backbone, name, label, destroy };
    });
    return {
      name,
      label,
      synthetic,
      hfArchitecture: config.hfArchitecture,
      vocabSize: config.vocabSize,
      hidden: config.hidden,
      layers: config.layers,
      parameters: estimate.parameters,
      tiedHead: config.tieWordEmbeddings,
      estimate,
    };
  }

  cancel(): void {
    this.abort?.abort(new DOMException('Cancelled by the user', 'AbortError'));
  }

  async headStats(k: number, options: { logNorm: boolean }): Promise<HeadStatsPair> {
    checkK(k);
    return this.serialized(async () => this.loadedModel().head.measure(k, options.logNorm));
  }

  async preview(query: string, doc: string, k: number, topTerms: number): Promise<PreviewResult> {
    checkK(k);
    return this.serialized(async () => {
      const model = this.loadedModel();
      const ctx = await this.context();
      await ctx.run(`W_head / ${k} for the preview`, (encoder) => model.head.writeScaled(encoder, model.gpuModel.decoderWeight, k));
      const [q, d] = await model.encoder.encode([query, doc], { maxLength: PREVIEW_MAX_LENGTH });
      return {
        k,
        query: summarizeSparse(query, q, model.tokenizer, topTerms),
        doc: summarizeSparse(doc, d, model.tokenizer, topTerms),
        score: sparseDot(q, d),
      };
    });
  }

  async encode(texts: string[], options: EncodeRequest, onProgress: (done: number, total: number) => void): Promise<SparseVectorData[]> {
    checkK(options.k);
    return this.serialized(async () => {
      const model = this.loadedModel();
      const ctx = await this.context();
      await ctx.run(`W_head / ${options.k} for encoding`, (encoder) => model.head.writeScaled(encoder, model.gpuModel.decoderWeight, options.k));
      return model.encoder.encode(texts, { maxLength: options.maxLength, topK: options.topK, onProgress });
    });
  }

  async kDemo(request: KDemoRequest, onRun: (run: KDemoSeries, index: number, total: number, finished: boolean) => void): Promise<KDemoResult> {
    const signal = this.startTraining();
    return this.finishTraining(this.serialized(async () => runKDemo(await this.context(), request, signal, onRun)));
  }

  async readTriplets(file: File): Promise<TripletsSummary> {
    this.triplets = null;
    this.triplets = await readTripletFile(file);
    return this.triplets.summary;
  }

  async trainingCheckpoint(k: number): Promise<CheckpointInfo | null> {
    checkK(k);
    const model = this.loadedModel();
    return checkpointInfo(checkpointStoreFor(model.name, this.loadedTriplets().data, k));
  }

  async train(request: TrainRequest, onEvent: (event: TrainEvent) => void): Promise<TrainResult> {
    checkK(request.k);
    const signal = this.startTraining();
    return this.finishTraining(this.serialized(async () => {
      const model = this.loadedModel();
      const { data, summary } = this.loadedTriplets();
      const store = checkpointStoreFor(model.name, data, request.k);
      const provenance = `${model.label} (${model.config.hfArchitecture}), fine-tuned on ${summary.triplets} triplets of ${summary.name}, head divided by k = ${request.k}`;
      return trainBackbone(await this.context(), model.backbone, data, store, request, provenance, signal, onEvent);
    }));
  }

  cancelTraining(): void {
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

  private loadedModel(): LoadedModel {
    if (!this.model) throw new NoModelError();
    return this.model;
  }

  /** The GPU context, acquired on first use and again after a loss (the old model is gone with it). */
  private async context(): Promise<GpuContext> {
    if (this.ctx && !this.ctx.isLost) return this.ctx;
    this.model = null;
    const ctx = await acquireGpuContext(self.navigator.gpu, 'splade-lab worker');
    ctx.onLost((message) => {
      this.model = null;
      for (const listener of this.lostListeners) listener(message);
    });
    this.ctx = ctx;
    return ctx;
  }

  private loadedTriplets(): ReadTriplets {
    if (!this.triplets) throw new NoTripletsError();
    return this.triplets;
  }

  /** The signal of a new teaching demo or training run; refused while another one runs (one at a time). */
  private startTraining(): AbortSignal {
    if (this.trainingAbort) throw new Error('A training run (or the teaching demo) is already running: wait for it or cancel it first.');
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

function checkK(k: number): void {
  if (!(k > 0) || !Number.isFinite(k)) throw new RangeError(`k must be a positive number, got ${k}`);
}

function loadedHead(params: Map<string, HostTensor>, config: ModelConfig, label: string): HostTensor {
  const head = params.get(decoderWeightName(config));
  if (!head) throw new Error(`${label}: the checkpoint has no MLM decoder matrix (${decoderWeightName(config)})`);
  return head;
}

async function readConfig(files: FileSource, signal: AbortSignal): Promise<ModelConfig> {
  const json = await readJsonFile(files, 'config.json', { signal });
  if (json === null) throw new Error(`config.json is missing from ${files.label}: is this a Hugging Face model folder?`);
  return parseModelConfig(json, { source: files.label });
}

Comlink.expose(new GpuWorker());
