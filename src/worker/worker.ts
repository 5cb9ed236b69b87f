// The module Web Worker that owns the GPU: exposes WorkerApi through comlink (models, head statistics, preview).
import * as Comlink from 'comlink';
import { acquireGpuContext, type GpuContext } from '../gpu/context.ts';
import { loadCheckpoint } from '../io/checkpoint.ts';
import { readJsonFile, type FileSource, type ReadProgress } from '../io/file-source.ts';
import { parseModelConfig, type ModelConfig } from '../model/config.ts';
import { decoderWeightName } from '../model/layout.ts';
import { loadParameters } from '../model/weights.ts';
import type { GpuReport, HeadStatsPair, LoadProgress, MemoryEstimate, ModelSource, ModelSummary, PreviewResult, WorkerApi } from './api.ts';
import { EncoderUnavailableError, ModelTooLargeError, NoModelError } from './errors.ts';
import { HeadSession } from './head-session.ts';
import { estimateModelMemory } from './memory-estimate.ts';
import { fileSourceFor, modelName } from './model-sources.ts';

interface LoadedModel {
  source: ModelSource;
  config: ModelConfig;
  head: HeadSession;
  summary: ModelSummary;
}

class GpuWorker implements WorkerApi {
  private ctx: GpuContext | null = null;
  private model: LoadedModel | null = null;
  private abort: AbortController | null = null;
  private readonly lostListeners: ((message: string) => void)[] = [];
  /** GPU work runs one call at a time (the head-statistics buffers are shared between calls). */
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
    const report = (stage: LoadProgress['stage']) => (p: ReadProgress) => onProgress({ stage, ...p });
    const checkpoint = await loadCheckpoint(files, { signal, onProgress: report('download') });
    onProgress({ stage: 'upload', loaded: 0, total: null });
    const params = loadParameters(config, checkpoint.tensors, files.label);
    const headTensor = params.get(decoderWeightName(config));
    if (!headTensor) throw new Error(`${files.label}: the checkpoint has no MLM decoder matrix (${decoderWeightName(config)})`);
    const name = modelName(source);
    const synthetic = source.kind === 'demo';
    const label = synthetic ? 'synthetic demo backbone (random weights)' : name;
    const summary: ModelSummary = {
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
    await this.serialized(async () => {
      this.model?.head.destroy();
      this.model = null;
      const head = HeadSession.upload(ctx, headTensor, `${label}, W_head ${config.vocabSize} x ${config.hidden}`);
      this.model = { source, config, head, summary };
    });
    return summary;
  }

  cancel(): void {
    this.abort?.abort(new DOMException('Cancelled by the user', 'AbortError'));
  }

  async headStats(k: number, options: { logNorm: boolean }): Promise<HeadStatsPair> {
    if (!(k > 0) || !Number.isFinite(k)) throw new RangeError(`k must be a positive number, got ${k}`);
    return this.serialized(async () => {
      if (!this.model) throw new NoModelError();
      return this.model.head.measure(k, options.logNorm);
    });
  }

  async preview(_query: string, _doc: string, _k: number, _topTerms: number): Promise<PreviewResult> {
    if (!this.model) throw new NoModelError();
    throw new EncoderUnavailableError();
  }

  onDeviceLost(listener: (message: string) => void): void {
    this.lostListeners.push(listener);
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

async function readConfig(files: FileSource, signal: AbortSignal): Promise<ModelConfig> {
  const json = await readJsonFile(files, 'config.json', { signal });
  if (json === null) throw new Error(`config.json is missing from ${files.label}: is this a Hugging Face model folder?`);
  return parseModelConfig(json, { source: files.label });
}

Comlink.expose(new GpuWorker());
