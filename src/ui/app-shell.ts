// <splade-app>: the page: model picker, k, head-norm, preview and training panels; owns the worker, the state and the URL.
import { LitElement, css, html, nothing } from 'lit';
import { PageFailure, WorkerClient, toPageFailure, type HeadStatsPair, type LoadProgress, type ModelSource, type ModelSummary, type PreviewResult } from '../worker/api.ts';
import type { DemoHeadNorms } from './demo-backbone.ts';
import { demoFolderUrl } from './demo-backbone.ts';
import { ACTIONS, noticeFor, type Notice } from './failure-notice.ts';
import type { LoadRequest } from './model-picker.ts';
import { fetchDemoNorms, precomputedPair } from './precomputed-stats.ts';
import { DEMO_MODEL, hubIdFor, paperRowFor } from './presets.ts';
import { PANELS, readState, writeState, type PageState, type PanelName } from './url-state.ts';
import { baseStyles } from './theme.ts';
import './model-picker.ts';
import './k-control.ts';
import './suggested-k.ts';
import './head-norm-panel.ts';
import './preview-panel.ts';
import './notice-banner.ts';
import './k-demo-panel.ts';
import './train-panel.ts';

const PANEL_TITLES: Record<PanelName, string> = { norms: 'Head norms', preview: 'Live preview', training: 'Training' };
const STATS_DELAY_MS = 120;
const PREVIEW_DELAY_MS = 350;
const TOP_TERMS = 12;
/** URL model name of picked files: a link cannot carry them. */
const LOCAL_MODEL = 'local';

export class SpladeApp extends LitElement {
  static override properties = {
    _state: { state: true },
    _summary: { state: true },
    _stats: { state: true },
    _statsBusy: { state: true },
    _preview: { state: true },
    _previewError: { state: true },
    _previewBusy: { state: true },
    _loading: { state: true },
    _progress: { state: true },
    _notice: { state: true },
    _gpu: { state: true },
  };

  /** Absolute URL of the demo backbone's folder (ends in "/"); defaults to demo/ next to the page. */
  declare demoUrl: string;

  declare _state: PageState;
  declare _summary: ModelSummary | null;
  declare _stats: HeadStatsPair | null;
  declare _statsBusy: boolean;
  declare _preview: PreviewResult | null;
  declare _previewError: string;
  declare _previewBusy: boolean;
  declare _loading: boolean;
  declare _progress: LoadProgress | null;
  declare _notice: Notice | null;
  /** GPU description, "none" without WebGPU, "" while unknown. */
  declare _gpu: string;

  private client: WorkerClient | null = null;
  private demoNorms: DemoHeadNorms | null = null;
  /** The most recent load asked for (what "Try again" repeats). */
  private lastRequest: LoadRequest | null = null;
  /** The load that put the current model on the GPU (what "Reload the model" repeats), and its URL name. */
  private loadedRequest: { request: LoadRequest; model: string } | null = null;
  private statsTimer = 0;
  private previewTimer = 0;
  private statsTicket = 0;
  private previewTicket = 0;

  static override styles = [
    baseStyles,
    css`
      :host {
        display: block;
        max-width: 1240px;
        margin: 0 auto;
        padding: 0 1em 2em;
      }
      header {
        display: flex;
        align-items: baseline;
        gap: 1em;
        flex-wrap: wrap;
        border-bottom: 1px solid #ccc;
        margin-bottom: 0.8em;
      }
      h1 {
        font-size: 1.5em;
        margin: 0.4em 0;
      }
      header p {
        margin: 0;
        flex: 1;
      }
      .gpu {
        font-size: 0.85em;
      }
      .card {
        border: 1px solid #ccc;
        border-radius: 8px;
        padding: 0.6em 1em 0.8em;
        margin-bottom: 0.8em;
        background: #fff;
      }
      h2 {
        font-size: 1.05em;
        margin: 0 0 0.4em;
      }
      .k-row {
        display: grid;
        grid-template-columns: minmax(0, 1.15fr) minmax(0, 1fr);
        gap: 1.2em;
        align-items: start;
      }
      notice-banner {
        margin-bottom: 0.8em;
      }
      [role='tablist'] {
        display: flex;
        gap: 0.3em;
        border-bottom: 2px solid #0072b2;
      }
      [role='tab'] {
        border-radius: 6px 6px 0 0;
        border-bottom: none;
        padding: 0.4em 1.2em;
      }
      [role='tab'][aria-selected='true'] {
        background: #0072b2;
        color: #fff;
        border-color: #0072b2;
        font-weight: 600;
      }
      [role='tabpanel'] {
        border-top: none;
        border-radius: 0 0 8px 8px;
      }
      footer {
        font-size: 0.85em;
      }
      #panel-training h3 {
        font-size: 1.05em;
        margin: 0.3em 0 0.4em;
      }
      #panel-training h3 + * {
        margin-bottom: 0.8em;
      }
      #panel-training train-panel {
        border-top: 1px solid #ccc;
        padding-top: 0.4em;
      }
    `,
  ];

  constructor() {
    super();
    this._state = readState(location.search);
    this._summary = null;
    this._stats = null;
    this._statsBusy = false;
    this._preview = null;
    this._previewError = '';
    this._previewBusy = false;
    this._loading = false;
    this._progress = null;
    this._notice = null;
    this._gpu = '';
    this.demoUrl = demoFolderUrl(location.href);
  }

  override connectedCallback() {
    super.connectedCallback();
    void this._start();
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    this.client?.terminate();
    this.client = null;
  }

  override render() {
    const s = this._state;
    const mean = this._stats?.before.summary.mean ?? NaN;
    return html`<header>
        <h1>splade-lab</h1>
        <p>See how long the rows of a language model's MLM head are, and what dividing the head by k does to SPLADE.</p>
        <span class="gpu muted" id="gpu">${this._gpu === '' ? 'Starting the GPU…' : this._gpu === 'none' ? 'No WebGPU' : `GPU: ${this._gpu}`}</span>
      </header>
      ${this._notice
        ? html`<notice-banner
            id="notice"
            tone=${this._notice.tone}
            heading=${this._notice.heading}
            message=${this._notice.message}
            .actions=${this._notice.actions}
            @notice-action=${this._onNoticeAction}
          ></notice-banner>`
        : nothing}
      <section class="card" aria-labelledby="model-heading">
        <h2 id="model-heading">1 · Backbone</h2>
        <model-picker
          .model=${s.model}
          .summary=${this._summary}
          .progress=${this._progress}
          ?loading=${this._loading}
          ?no-gpu=${this._gpu === 'none'}
          @load-model=${this._onLoadModel}
          @cancel-load=${this._onCancel}
        ></model-picker>
      </section>
      <section class="card" aria-labelledby="k-heading">
        <h2 id="k-heading">2 · Divide the head by k</h2>
        <div class="k-row">
          <k-control .k=${s.k} @k-change=${this._onK}></k-control>
          <suggested-k .target=${s.target} .meanNorm=${mean} @k-change=${this._onK} @target-change=${this._onTarget}></suggested-k>
        </div>
      </section>
      <div role="tablist" aria-label="Panels" @keydown=${this._onTabKey}>
        ${PANELS.map(
          (panel) => html`<button
            role="tab"
            id="tab-${panel}"
            aria-selected=${String(s.panel === panel)}
            aria-controls="panel-${panel}"
            tabindex=${s.panel === panel ? 0 : -1}
            @click=${() => this._openPanel(panel)}
          >
            ${PANEL_TITLES[panel]}
          </button>`,
        )}
      </div>
      <section class="card" role="tabpanel" id="panel-${s.panel}" aria-labelledby="tab-${s.panel}" ?hidden=${s.panel === 'training'}>
        ${s.panel === 'training'
          ? nothing
          : s.panel === 'norms'
          ? html`<head-norm-panel
              .stats=${this._stats}
              .k=${s.k}
              .target=${s.target}
              ?log-norm=${s.logNorm}
              ?busy=${this._statsBusy}
              paper-row=${paperRowFor(s.model) ?? ''}
              @log-norm-change=${this._onLogNorm}
            ></head-norm-panel>`
          : html`<preview-panel
              .query=${s.query}
              .doc=${s.doc}
              .k=${s.k}
              .result=${this._preview}
              .error=${this._gpu === 'none' ? 'The live preview needs WebGPU, which this browser does not provide (see the note above).' : this._previewError}
              ?busy=${this._previewBusy}
              ?synthetic=${this._summary?.synthetic ?? false}
              @texts-change=${this._onTexts}
            ></preview-panel>`}
      </section>
      ${this._renderTraining()}
      <footer class="muted">
        The synthetic demo is a small BERT-style model with random weights (real bert-base-uncased vocabulary), built with
        this site; its head was scaled to a mean row norm of 2.5, like ModernBERT's, so that k visibly matters. It is not a
        trained model: its figures say nothing about real backbones.
      </footer>`;
  }

  /** The Training panel stays in the page while hidden, so that a run goes on (and keeps its charts) behind other tabs. */
  private _renderTraining() {
    const s = this._state;
    const noGpu = this._gpu === 'none';
    return html`<section class="card" role="tabpanel" id="panel-training" aria-labelledby="tab-training" ?hidden=${s.panel !== 'training'}>
      <h3>Teaching demo: k = 1 against a divided head</h3>
      <k-demo-panel .client=${this.client} .ks=${s.demoKs} .steps=${s.demoSteps} ?no-gpu=${noGpu} @demo-settings-change=${this._onDemoSettings}></k-demo-panel>
      <h3>Train the loaded backbone on your triplets</h3>
      <train-panel .client=${this.client} .summary=${this._summary} .k=${s.k} ?no-gpu=${noGpu}></train-panel>
    </section>`;
  }

  private _onDemoSettings(event: CustomEvent<{ ks: number[]; steps: number }>) {
    this._setState({ demoKs: event.detail.ks, demoSteps: event.detail.steps });
  }

  private async _start() {
    this._syncUrl();
    try {
      this.client = new WorkerClient();
      const { adapter } = await this.client.init();
      this._gpu = [adapter.vendor, adapter.architecture, adapter.isFallbackAdapter ? '(software fallback)' : ''].filter(Boolean).join(' ');
      void this.client.onDeviceLost((message) => this._onDeviceLost(message));
    } catch (error) {
      return this._withoutGpu(toPageFailure(error));
    }
    if (this._state.model === LOCAL_MODEL) {
      this._notice = { tone: 'info', heading: 'This link used local files', message: 'Pick or drop the model files again above.', actions: [ACTIONS.demo] };
      return;
    }
    await this._load({ model: this._state.model });
  }

  /** No WebGPU: explain, and show the demo's shipped statistics so that k can still be explored. */
  private async _withoutGpu(failure: PageFailure) {
    this._gpu = 'none';
    this._notice = noticeFor(failure, this._state.model);
    try {
      this.demoNorms = await fetchDemoNorms(this.demoUrl);
      this._refreshStats();
    } catch (error) {
      this._notice = { ...this._notice, message: `${this._notice.message}\n(The precomputed figures could not be read either: ${String(error)})` };
    }
  }

  private _sourceFor(request: LoadRequest): ModelSource {
    if ('files' in request) return { kind: 'files', files: request.files };
    if (request.model === DEMO_MODEL) return { kind: 'demo', url: this.demoUrl };
    return { kind: 'hub', id: hubIdFor(request.model), hubUrl: this._state.hub ?? undefined };
  }

  private async _load(request: LoadRequest) {
    if (!this.client || this._gpu === 'none') return;
    if (this._loading) await this.client.cancel();
    this.lastRequest = request;
    const model = 'files' in request ? LOCAL_MODEL : request.model;
    this._setState({ model });
    this._loading = true;
    this._progress = null;
    this._notice = null;
    try {
      this._summary = await this.client.load(this._sourceFor(request), (progress) => {
        this._progress = progress;
      });
      this.loadedRequest = { request, model };
      this._stats = null;
      this._refreshStats();
      this._refreshPreview();
    } catch (error) {
      if (this.lastRequest !== request) return;
      // The worker replaces its model only once a load has finished: the previous one (and the link to it) stay.
      const kept = this._summary && this.loadedRequest ? { summary: this._summary, model: this.loadedRequest.model } : null;
      if (kept) this._setState({ model: kept.model });
      const keptName = kept ? (kept.summary.synthetic ? 'The synthetic demo backbone' : kept.summary.label) : undefined;
      this._notice = noticeFor(toPageFailure(error), 'files' in request ? 'the picked files' : request.model, keptName);
    } finally {
      if (this.lastRequest === request) this._loading = false;
    }
  }

  private _refreshStats() {
    clearTimeout(this.statsTimer);
    this._statsBusy = this.demoNorms === null;
    this.statsTimer = window.setTimeout(() => void this._measure(), STATS_DELAY_MS);
  }

  private async _measure() {
    const { k, logNorm } = this._state;
    if (this.demoNorms) {
      this._stats = precomputedPair(this.demoNorms, k, logNorm);
      return;
    }
    if (!this.client || !this._summary) {
      this._statsBusy = false;
      return;
    }
    const ticket = ++this.statsTicket;
    this._statsBusy = true;
    try {
      const stats = await this.client.headStats(k, { logNorm });
      if (ticket === this.statsTicket) this._stats = stats;
    } catch (error) {
      if (ticket === this.statsTicket) this._notice = noticeFor(toPageFailure(error), this._state.model);
    } finally {
      if (ticket === this.statsTicket) this._statsBusy = false;
    }
  }

  private _refreshPreview() {
    clearTimeout(this.previewTimer);
    this.previewTimer = window.setTimeout(() => void this._encode(), PREVIEW_DELAY_MS);
  }

  private async _encode() {
    if (!this.client || !this._summary) return;
    const { query, doc, k } = this._state;
    const ticket = ++this.previewTicket;
    this._previewBusy = true;
    try {
      const result = await this.client.preview(query, doc, k, TOP_TERMS);
      if (ticket === this.previewTicket) {
        this._preview = result;
        this._previewError = '';
      }
    } catch (error) {
      if (ticket === this.previewTicket) {
        this._preview = null;
        this._previewError = toPageFailure(error).message;
      }
    } finally {
      if (ticket === this.previewTicket) this._previewBusy = false;
    }
  }

  private _onDeviceLost(message: string) {
    this._summary = null;
    this._stats = null;
    this._notice = noticeFor(new PageFailure('device-lost', message), this._state.model);
  }

  private _setState(patch: Partial<PageState>) {
    this._state = { ...this._state, ...patch };
    this._syncUrl();
  }

  private _syncUrl() {
    const search = writeState(this._state);
    if (search !== location.search) history.replaceState(null, '', `${location.pathname}${search}${location.hash}`);
  }

  private _onLoadModel(event: CustomEvent<LoadRequest>) {
    void this._load(event.detail);
  }

  private _onCancel() {
    void this.client?.cancel();
  }

  private _onK(event: CustomEvent<{ k: number }>) {
    this._setState({ k: event.detail.k });
    this._refreshStats();
    this._refreshPreview();
  }

  private _onTarget(event: CustomEvent<{ target: number }>) {
    this._setState({ target: event.detail.target });
  }

  private _onLogNorm(event: CustomEvent<{ logNorm: boolean }>) {
    this._setState({ logNorm: event.detail.logNorm });
    this._refreshStats();
  }

  private _onTexts(event: CustomEvent<{ query: string; doc: string }>) {
    this._setState({ query: event.detail.query, doc: event.detail.doc });
    this._refreshPreview();
  }

  private _openPanel(panel: PanelName) {
    this._setState({ panel });
  }

  /** Arrow keys move between tabs (WAI-ARIA tabs pattern). */
  private _onTabKey(event: KeyboardEvent) {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    const index = (PANELS.indexOf(this._state.panel) + step + PANELS.length) % PANELS.length;
    this._openPanel(PANELS[index]);
    void this.updateComplete.then(() => (this.renderRoot.querySelector(`#tab-${PANELS[index]}`) as HTMLElement | null)?.focus());
  }

  private _onNoticeAction(event: CustomEvent<{ action: string }>) {
    const action = event.detail.action;
    this._notice = null;
    const again = action === ACTIONS.retry.id ? this.lastRequest : action === ACTIONS.reload.id ? (this.loadedRequest?.request ?? this.lastRequest) : null;
    if (action === ACTIONS.demo.id) void this._load({ model: DEMO_MODEL });
    else if (again) void this._load(again);
  }

  /**
   * Testing aid (the e2e suite calls it from outside the page): destroys the worker's GPU device, which then reports
   * itself lost exactly as after a driver reset. Nothing in the page calls it; for a user it only costs a model reload.
   */
  simulateDeviceLossForTesting(): Promise<void> {
    return this.client?.simulateDeviceLossForTesting() ?? Promise.resolve();
  }
}

customElements.define('splade-app', SpladeApp);

declare global {
  interface HTMLElementTagNameMap {
    'splade-app': SpladeApp;
  }
}
