// The page's model, as one reactive controller: starts the GPU worker, loads what is asked (demo, Hub id, files)
// with progress and cancel, keeps the previous model when a load fails, says what went wrong and offers what to do,
// handles a lost device, and without WebGPU falls back to the demo's shipped figures.
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import {
  PageFailure,
  hubIdFor,
  startWorkerClient,
  toPageFailure,
  type WorkerClient,
  type LoadProgress,
  type ModelSource,
  type ModelSummary,
} from '../../worker/api.ts';
import type { DemoHeadNorms } from './demo-backbone.ts';
import { ACTIONS, noticeFor, type Notice } from '../common/failure-notice.ts';
import type { LoadRequest } from './model-picker.ts';
import { fetchDemoNorms } from './precomputed-stats.ts';
import { DEMO_MODEL, LOCAL_MODEL, MLM_MODEL_PREFIX, RUN_MODEL_PREFIX, storedModel } from './presets.ts';

export interface ModelLoaderHost extends ReactiveControllerHost {
  /** Absolute URL of the demo backbone's folder. */
  readonly demoUrl: string;
  /** The Hub base URL the page uses now (null: huggingface.co). */
  readonly hubUrl: string | null;
  /** The URL-state model name changed (a load started, or a failed one restored the previous name). */
  modelNamed(model: string): void;
}

export class ModelLoader implements ReactiveController {
  client: WorkerClient | null = null;
  /** GPU description, "none" without WebGPU, "" while unknown. */
  gpu = '';
  summary: ModelSummary | null = null;
  loading = false;
  progress: LoadProgress | null = null;
  notice: Notice | null = null;
  /** The demo's shipped figures, read only when there is no WebGPU. */
  demoNorms: DemoHeadNorms | null = null;
  /** The most recent load asked for (what "Try again" repeats). */
  private lastRequest: LoadRequest | null = null;
  /** The load that put the current model on the GPU (what "Reload the model" repeats), and its URL name. */
  private loadedRequest: { request: LoadRequest; model: string } | null = null;

  constructor(private readonly host: ModelLoaderHost) {
    host.addController(this);
  }

  hostConnected(): void {}

  hostDisconnected(): void {
    this.client?.terminate();
    this.client = null;
  }

  /** Starts the worker; true when there is a GPU (otherwise the no-WebGPU notice and the shipped figures are up). */
  async start(): Promise<boolean> {
    try {
      this.client = startWorkerClient();
      const { adapter } = await this.client.init();
      this.gpu = [adapter.vendor, adapter.architecture, adapter.isFallbackAdapter ? '(software fallback)' : '']
        .filter(Boolean)
        .join(' ');
      void this.client.onDeviceLost((message) => this.onDeviceLost(message));
      this.host.requestUpdate();
      return true;
    } catch (error) {
      await this.withoutGpu(toPageFailure(error));
      return false;
    }
  }

  /** Loads a model (the previous one stays until the new one is on the GPU). */
  async load(request: LoadRequest): Promise<void> {
    if (!this.client || this.gpu === 'none') return;
    if (this.loading) await this.client.cancel();
    this.lastRequest = request;
    const model = 'files' in request ? LOCAL_MODEL : request.model;
    this.host.modelNamed(model);
    this.set({ loading: true, progress: null, notice: null });
    try {
      const summary = await this.client.load(this.sourceFor(request), (progress) => this.set({ progress }));
      this.loadedRequest = { request, model };
      this.set({ summary });
    } catch (error) {
      if (this.lastRequest !== request) return;
      const kept = this.summary && this.loadedRequest ? { summary: this.summary, model: this.loadedRequest.model } : null;
      if (kept) this.host.modelNamed(kept.model);
      const keptName = kept ? (kept.summary.synthetic ? 'The demo backbone' : kept.summary.label) : undefined;
      this.set({ notice: noticeFor(toPageFailure(error), 'files' in request ? 'the picked files' : request.model, keptName) });
    } finally {
      if (this.lastRequest === request) this.set({ loading: false });
    }
  }

  /** Loads a finished run's trained model (kept in this browser) as the page's model. */
  async useRun(id: string): Promise<void> {
    await this.useStored(`${RUN_MODEL_PREFIX}${id}`, "the run's model", (client) => client.useRun(id));
  }

  /** Loads a masked-LM run's trained model (kept in this browser) as the page's model. */
  async useMlmModel(run: string): Promise<void> {
    await this.useStored(`${MLM_MODEL_PREFIX}${run}`, 'the masked-LM trained model', (client) => client.useMlmModel(run));
  }

  /** Loads a model kept in this browser, named `model` in the URL. */
  private async useStored(model: string, what: string, open: (client: WorkerClient) => Promise<ModelSummary>): Promise<void> {
    if (!this.client || this.gpu === 'none') return;
    this.host.modelNamed(model);
    this.set({ loading: true, progress: null, notice: null });
    try {
      const summary = await open(this.client);
      this.loadedRequest = { request: { model }, model };
      this.set({ summary });
    } catch (error) {
      this.set({ notice: noticeFor(toPageFailure(error), what) });
    } finally {
      this.set({ loading: false });
    }
  }

  /** Loads a URL model name kept in this browser; false when the name is not one. */
  async useStoredName(model: string): Promise<boolean> {
    const stored = storedModel(model);
    if (!stored) return false;
    await (stored.kind === 'run' ? this.useRun(stored.id) : this.useMlmModel(stored.id));
    return true;
  }

  cancel(): void {
    void this.client?.cancel();
  }

  /** A notice button: try again, reload after a lost device, load the demo instead, dismiss. */
  onNoticeAction(action: string): void {
    this.set({ notice: null });
    const again =
      action === ACTIONS.retry.id
        ? this.lastRequest
        : action === ACTIONS.reload.id
          ? (this.loadedRequest?.request ?? this.lastRequest)
          : null;
    if (action === ACTIONS.demo.id) void this.load({ model: DEMO_MODEL });
    else if (again && !('files' in again) && storedModel(again.model)) void this.useStoredName(again.model);
    else if (again) void this.load(again);
  }

  /** Shows a notice (errors of the statistics, links that used local files). */
  showNotice(notice: Notice | null): void {
    this.set({ notice });
  }

  private sourceFor(request: LoadRequest): ModelSource {
    if ('files' in request) return { kind: 'files', files: request.files };
    if (request.model === DEMO_MODEL) return { kind: 'demo', url: this.host.demoUrl };
    return { kind: 'hub', id: hubIdFor(request.model), hubUrl: this.host.hubUrl ?? undefined };
  }

  /** No WebGPU: explain, and read the demo's shipped statistics so that k can still be explored. */
  private async withoutGpu(failure: PageFailure): Promise<void> {
    this.set({ gpu: 'none', notice: noticeFor(failure, DEMO_MODEL) });
    try {
      this.set({ demoNorms: await fetchDemoNorms(this.host.demoUrl) });
    } catch (error) {
      const notice = this.notice!;
      this.set({
        notice: { ...notice, message: `${notice.message}\n(The precomputed figures could not be read either: ${String(error)})` },
      });
    }
  }

  private onDeviceLost(message: string): void {
    this.set({
      summary: null,
      notice: noticeFor(new PageFailure('device-lost', message), this.loadedRequest?.model ?? DEMO_MODEL),
    });
  }

  private set(patch: Partial<Pick<ModelLoader, 'gpu' | 'summary' | 'loading' | 'progress' | 'notice' | 'demoNorms'>>): void {
    Object.assign(this, patch);
    this.host.requestUpdate();
  }
}
