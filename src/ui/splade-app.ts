// <splade-app>: the page: lays out the model picker, k and the tabs (head norms, preview, audit, training, evaluation,
// runs, lesson), and keeps the state in the URL. The model lives in a ModelLoader controller, what it shows at k in modelViews.
import { TaskStatus } from '@lit/task';
import { LitElement, html, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { DEFAULT_SWEEP_KS, toPageFailure } from '../worker/api.ts';
import { spladeAppStyles } from './splade-app-styles.ts';
import { demoFolderUrl } from './model/demo-backbone.ts';
import { ACTIONS } from './common/failure-notice.ts';
import { hubConsentNotice, hubHost } from './model/hub-consent.ts';
import type { LoadRequest } from './model/model-picker.ts';
import { ModelLoader } from './model/model-loader.ts';
import { modelViews } from './model/model-views.ts';
import { DEMO_MODEL, LOCAL_MODEL, paperRowFor } from './model/presets.ts';
import { PANELS, linkCorrections, readState, writeState, type PageState, type PanelName, type LessonState } from './url-state.ts';
import { baseStyles } from './common/theme.ts';
import './model/model-picker.ts';
import './model/k-control.ts';
import './model/suggested-k.ts';
import './model/head-norm-panel.ts';
import './model/preview-panel.ts';
import './model/audit-panel.ts';
import './common/notice-banner.ts';
import './evaluation/eval-panel.ts';
import './training-tab.ts';
import './experiments/runs-panel.ts';
import './lesson/lesson-panel.ts';
const PANEL_TITLES: Record<PanelName, string> = {
  norms: 'Head norms',
  preview: 'Live preview',
  audit: 'Audit',
  training: 'Training',
  evaluate: 'Evaluate',
  runs: 'Runs',
  lesson: 'Lesson',
};

/** Panels that stay in the page while hidden, so that a job goes on (and keeps its results) behind other tabs. */
const KEPT_PANELS: readonly PanelName[] = ['audit', 'training', 'evaluate', 'runs', 'lesson'];

@customElement('splade-app')
export class SpladeApp extends LitElement {
  /** Absolute URL of the demo backbone's folder (ends in "/"); defaults to demo/ next to the page. */
  demoUrl: string = demoFolderUrl(location.href);
  @state() private _state: PageState = readState(location.search);
  /** The user accepted the Hub address the link named (asked once, before any download from it). */
  @state() private _hubAgreed = false;
  /** The retrieval sets chosen in the Evaluate tab (runs can be evaluated on them). */
  @state() private _sets: string[] = [];
  /** Bumped when runs may have changed (a run or a sweep ended), so the Runs tab reads them again. */
  @state() private _runsGeneration = 0;
  /** A run a run's page sent to the Audit tab, to compare with the loaded model at the run's k. */
  @state() private _auditRun: { id: string; k: number } | null = null;
  /** The ks the sweep panel offers (a suggested sweep sets them). */
  @state() private _sweepKs: readonly number[] = DEFAULT_SWEEP_KS;
  /** What the page did not take from the link it was opened with (said once, until dismissed). */
  @state() private _linkCorrections: string[] = linkCorrections(location.search);

  private readonly loader = new ModelLoader(this);

  /** The loaded model at the page's k: head statistics, a run's heads, the preview. */
  private readonly views = modelViews(this, this.loader, () => this._state);

  static override styles = [baseStyles, spladeAppStyles];

  /** The Hub base URL in use (null: huggingface.co); a link's address counts only once the user agreed to it. */
  get hubUrl(): string | null {
    return this._state.hub && this._hubAgreed ? this._state.hub : null;
  }

  modelNamed(model: string): void {
    this._setState({ model });
  }

  override connectedCallback() {
    super.connectedCallback();
    void this._start();
  }

  override willUpdate() {
    // the shell's print and presenter styles key on these
    this.setAttribute('panel', this._state.panel);
    this.toggleAttribute('presenting', this._state.lesson.present);
  }

  override render() {
    const s = this._state;
    const { loader } = this;
    const noGpu = loader.gpu === 'none';
    const stats = this.views.stats.value ?? null;
    const mean = stats?.before.summary.mean ?? NaN;
    const askHub = s.hub !== null && !this._hubAgreed;
    return html`<header>
        <h1>splade-lab</h1>
        <p>See how long the rows of a language model's MLM head are, and what dividing the head by k does to SPLADE.</p>
        <span class="gpu muted" id="gpu"
          >${loader.gpu === '' ? 'Starting the GPU…' : noGpu ? 'No WebGPU' : `GPU: ${loader.gpu}`}</span
        >
      </header>
      <main>
        ${askHub ? this._renderNotice('hub-notice', hubConsentNotice(s.hub!)) : nothing}
        ${this._renderLinkCorrections()}
        ${
          // presenting without WebGPU, the lesson's own "Recorded" badge says it: the projector shows the lesson alone
          loader.notice && !(s.lesson.present && noGpu) ? this._renderNotice('notice', loader.notice) : nothing
        }
        <div id="workbench" ?hidden=${s.lesson.present}>
          <section class="card" aria-labelledby="model-heading">
            <h2 id="model-heading">1 · Backbone</h2>
            <model-picker
              .model=${s.model}
              .summary=${loader.summary}
              .progress=${loader.progress}
              ?loading=${loader.loading}
              ?no-gpu=${noGpu}
              @load-model=${(event: CustomEvent<LoadRequest>) => void this._load(event.detail)}
              @cancel-load=${() => loader.cancel()}
            ></model-picker>
            ${
              this.hubUrl
                ? html`<p id="hub-host" class="muted">
                    Hub models come from <strong>${hubHost(this.hubUrl)}</strong>, not huggingface.co (this page's link set it).
                    <button id="hub-reset" @click=${this._useDefaultHub}>Use huggingface.co</button>
                  </p>`
                : nothing
            }
          </section>
          <section class="card" aria-labelledby="k-heading">
            <h2 id="k-heading">2 · Divide the head by k</h2>
            <div class="k-row">
              <k-control .k=${s.k} @k-change=${this._onK}></k-control>
              <suggested-k
                .target=${s.target}
                .meanNorm=${mean}
                @k-change=${this._onK}
                @target-change=${(e: CustomEvent<{ target: number }>) => this._setState({ target: e.detail.target })}
                @sweep-ks=${(e: CustomEvent<{ ks: number[] }>) => ((this._sweepKs = e.detail.ks), this._setState({ panel: 'training' }))}
              ></suggested-k>
            </div>
          </section>
          ${this._renderTabs()} ${this._renderPanel()} ${this._renderAudit()} ${this._renderTraining()} ${this._renderEvaluation()} ${this._renderRuns()}
        </div>
        ${this._renderLesson()}
      </main>
      <footer class="muted" ?hidden=${s.lesson.present}>
        The demo backbone is a tiny BERT (d = 64, 2 layers, the real bert-base-uncased vocabulary) pretrained by splade-lab's own
        masked-LM training on WordNet 3.1 glosses (WordNet licence), its head rows at a mean norm of about 2.5, like ModernBERT's,
        so that k visibly matters. It knows which English words go together, but it is not a real backbone.
      </footer>`;
  }

  private _renderNotice(id: string, notice: NonNullable<ModelLoader['notice']>) {
    return html`<notice-banner
      id=${id}
      tone=${notice.tone}
      heading=${notice.heading}
      message=${notice.message}
      .actions=${notice.actions}
      @notice-action=${(event: CustomEvent<{ action: string }>) => this._onNoticeAction(event.detail.action)}
    ></notice-banner>`;
  }

  private _renderLinkCorrections() {
    if (this._linkCorrections.length === 0) return nothing;
    return html`<notice-banner
      id="link-notice"
      tone="info"
      heading="Some of this link's settings were not used"
      message=${this._linkCorrections.join('\n')}
      .actions=${[ACTIONS.dismiss]}
      @notice-action=${() => (this._linkCorrections = [])}
    ></notice-banner>`;
  }

  private _renderTabs() {
    const s = this._state;
    return html`<div role="tablist" aria-label="Panels" @keydown=${this._onTabKey}>
      ${PANELS.map(
        (panel) =>
          html`<button
            role="tab"
            id="tab-${panel}"
            aria-selected=${String(s.panel === panel)}
            aria-controls="panel-${panel}"
            tabindex=${s.panel === panel ? 0 : -1}
            @click=${() => this._showPanel(panel)}
          >
            ${PANEL_TITLES[panel]}
          </button>`,
      )}
    </div>`;
  }

  private _renderPanel() {
    const s = this._state;
    const noGpu = this.loader.gpu === 'none';
    const previewError = noGpu
      ? 'The live preview needs WebGPU, which this browser does not provide (see the note above).'
      : this.views.preview.error
        ? toPageFailure(this.views.preview.error).message
        : '';
    if (KEPT_PANELS.includes(s.panel)) return nothing;
    return html`<section class="card" role="tabpanel" id="panel-${s.panel}" aria-labelledby="tab-${s.panel}">
      ${
        s.panel === 'norms'
          ? html`<head-norm-panel
              .stats=${this.views.stats.value ?? null}
              .runHeads=${this.views.runHeads.value ?? null}
              .k=${s.k}
              .target=${s.target}
              ?log-norm=${s.logNorm}
              ?busy=${this.views.stats.status === TaskStatus.PENDING}
              paper-row=${(this.hubUrl === null && paperRowFor(s.model)) || ''}
              ?tied=${this.loader.summary?.tiedHead ?? false}
              ?demo=${s.model === DEMO_MODEL}
              @log-norm-change=${(e: CustomEvent<{ logNorm: boolean }>) => this._setState({ logNorm: e.detail.logNorm })}
            ></head-norm-panel>`
          : html`<preview-panel
              .query=${s.query}
              .doc=${s.doc}
              .k=${s.k}
              .result=${this.views.preview.error ? null : (this.views.preview.value ?? null)}
              .error=${previewError}
              ?busy=${this.views.preview.status === TaskStatus.PENDING}
              ?synthetic=${this.loader.summary?.synthetic ?? false}
              @texts-change=${(e: CustomEvent<{ query: string; doc: string }>) => this._setState({ query: e.detail.query, doc: e.detail.doc })}
            ></preview-panel>`
      }
    </section>`;
  }

  /** The audit stays in the page while hidden, so that its reports are still there after a look at other tabs. */
  private _renderAudit() {
    const s = this._state;
    return html`<section class="card" role="tabpanel" id="panel-audit" aria-labelledby="tab-audit" ?hidden=${s.panel !== 'audit'}>
      <audit-panel
        .client=${this.loader.client}
        .summary=${this.loader.summary}
        .k=${s.k}
        .compareRun=${this._auditRun}
        ?no-gpu=${this.loader.gpu === 'none'}
      ></audit-panel>
    </section>`;
  }

  /** The Training panel stays in the page while hidden, so that a run goes on (and keeps its charts) behind other tabs. */
  private _renderTraining() {
    const s = this._state;
    return html`<section
      class="card"
      role="tabpanel"
      id="panel-training"
      aria-labelledby="tab-training"
      ?hidden=${s.panel !== 'training'}
    >
      <training-tab
        .client=${this.loader.client}
        .summary=${this.loader.summary}
        .k=${s.k}
        .hubUrl=${this.hubUrl}
        .sets=${this._sets}
        .sweepKs=${this._sweepKs}
        .demoKs=${s.demoKs}
        .demoSteps=${s.demoSteps}
        ?no-gpu=${this.loader.gpu === 'none'}
        @demo-settings-change=${(e: CustomEvent<{ ks: number[]; steps: number }>) => this._setState({ demoKs: e.detail.ks, demoSteps: e.detail.steps })}
        @runs-change=${this._onRunsChange}
        @use-mlm-model=${(e: CustomEvent<{ run: string }>) => void this._useMlmModel(e.detail.run)}
      ></training-tab>
    </section>`;
  }

  private _renderEvaluation() {
    const s = this._state;
    return html`<section
      class="card"
      role="tabpanel"
      id="panel-evaluate"
      aria-labelledby="tab-evaluate"
      ?hidden=${s.panel !== 'evaluate'}
    >
      <eval-panel
        .client=${this.loader.client}
        .summary=${this.loader.summary}
        .k=${s.k}
        .hubUrl=${this.hubUrl}
        ?no-gpu=${this.loader.gpu === 'none'}
        @sets-change=${(e: CustomEvent<{ chosen: string[] }>) => (this._sets = e.detail.chosen)}
      ></eval-panel>
    </section>`;
  }

  private _renderRuns() {
    return html`<section
      class="card"
      role="tabpanel"
      id="panel-runs"
      aria-labelledby="tab-runs"
      ?hidden=${this._state.panel !== 'runs'}
    >
      <runs-panel
        .client=${this.loader.client}
        .sets=${this._sets}
        .generation=${this._runsGeneration}
        @use-run=${(e: CustomEvent<{ id: string }>) => void this._useRun(e.detail.id)}
        @audit-run=${(e: CustomEvent<{ id: string; k: number }>) => ((this._auditRun = e.detail), this._setState({ panel: 'audit' }))}
      ></runs-panel>
    </section>`;
  }

  /** The lesson stays in the page while hidden, so that its training keeps its frames behind other tabs. */
  private _renderLesson() {
    const s = this._state;
    const shown = s.panel === 'lesson' || s.lesson.present;
    return html`<section class="card" role="tabpanel" id="panel-lesson" aria-labelledby="tab-lesson" ?hidden=${!shown}>
      <lesson-panel
        .client=${this.loader.client}
        .summary=${this.loader.summary}
        .state=${s.lesson}
        ?no-gpu=${this.loader.gpu === 'none'}
        ?active=${shown}
        @lesson-change=${(e: CustomEvent<Partial<LessonState>>) => this._onLessonChange(e.detail)}
      ></lesson-panel>
    </section>`;
  }

  /** A lesson setting changed; the presenter view turned on or off stays on the lesson. */
  private _onLessonChange(patch: Partial<LessonState>) {
    this._setState({ lesson: { ...this._state.lesson, ...patch }, ...(patch.present === undefined ? {} : { panel: 'lesson' }) });
  }

  /** Opens a panel and scrolls it into view when its top is off the upper half of the screen (a projector's 768 px). */
  private _showPanel(panel: PanelName) {
    this._setState({ panel });
    void this.updateComplete.then(() => {
      // the tabs above the panel when they are shown (not while presenting), else the panel itself
      const tabs = this.renderRoot.querySelector('[role="tablist"]');
      const target = tabs?.getClientRects().length ? tabs : this.renderRoot.querySelector(`#panel-${panel}`);
      const top = target?.getBoundingClientRect().top;
      if (top !== undefined && (top < 0 || top > window.innerHeight / 2)) target!.scrollIntoView({ block: 'start' });
    });
  }

  private _onRunsChange() {
    this._runsGeneration++;
  }

  /** A run's trained model: its head is already divided by the run's k, so the page's k goes back to 1. */
  private async _useRun(id: string) {
    this._setState({ k: 1 });
    await this.loader.useRun(id);
    this._setState({ panel: 'norms' });
  }

  /** A masked-LM run's trained model: shown in the Model tab (its head, before any k). */
  private async _useMlmModel(run: string) {
    this._setState({ k: 1 });
    await this.loader.useMlmModel(run);
    this._setState({ panel: 'norms' });
  }

  private async _start() {
    this._syncUrl();
    if (!(await this.loader.start())) return;
    const { model, hub } = this._state;
    if (model === LOCAL_MODEL) {
      this.loader.showNotice({
        tone: 'info',
        heading: 'This link used local files',
        message: 'Pick or drop the model files again above.',
        actions: [ACTIONS.demo],
      });
      return;
    }
    if (await this.loader.useStoredName(model)) return;
    // A link that names another Hub server waits for the user's yes before anything is downloaded from it.
    if (hub !== null && model !== DEMO_MODEL) return;
    await this.loader.load({ model });
  }

  private async _load(request: LoadRequest) {
    await this.loader.load(request);
  }

  private _onNoticeAction(action: string) {
    if (action === ACTIONS.lesson.id) {
      // the no-WebGPU notice stays: it says what else still works
      this._showPanel('lesson');
      return;
    }
    if (action === 'hub-accept' || action === 'hub-default') {
      if (action === 'hub-accept') this._hubAgreed = true;
      else this._setState({ hub: null });
      if (!this.loader.summary && !this.loader.loading && this._state.model !== LOCAL_MODEL)
        void this.loader.load({ model: this._state.model });
      return;
    }
    this.loader.onNoticeAction(action);
  }

  private _useDefaultHub() {
    this._hubAgreed = false;
    this._setState({ hub: null });
  }

  private _onK(event: CustomEvent<{ k: number }>) {
    this._setState({ k: event.detail.k });
  }

  private _setState(patch: Partial<PageState>) {
    this._state = { ...this._state, ...patch };
    this._syncUrl();
  }

  private _syncUrl() {
    const search = writeState(this._state);
    if (search !== location.search) history.replaceState(null, '', `${location.pathname}${search}${location.hash}`);
  }

  /** Arrow keys move between tabs (WAI-ARIA tabs pattern). */
  private _onTabKey(event: KeyboardEvent) {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    const index = (PANELS.indexOf(this._state.panel) + step + PANELS.length) % PANELS.length;
    this._showPanel(PANELS[index]);
    void this.updateComplete.then(() => (this.renderRoot.querySelector(`#tab-${PANELS[index]}`) as HTMLElement | null)?.focus());
  }

  /**
   * Testing aid (the e2e suite calls it from outside the page): destroys the worker's GPU device, which then reports
   * itself lost exactly as after a driver reset. Nothing in the page calls it; for a user it only costs a model reload.
   */
  simulateDeviceLossForTesting(): Promise<void> {
    return this.loader.client?.simulateDeviceLossForTesting() ?? Promise.resolve();
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'splade-app': SpladeApp;
  }
}
