// <lesson-panel>: the paper's story as a guided lesson in four steps (a SPLADE vector; why long head rows break it;
// training k = 1 against a divided head; what k trades), playable (play, pause, one step, speed, keyboard shortcuts),
// live on this GPU or recorded (the bundled trace) without WebGPU, with a presenter view and a printable summary.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import {
  K_RANGE,
  LESSON_LIMITS,
  LESSON_SENTENCE,
  TRAIN_LIMITS,
  describeRange,
  inRange,
  toPageFailure,
  type LessonTrace,
  type LessonVector,
  type ModelSummary,
  type WorkerClient,
} from '../worker/api.ts';
import { LessonPlayback } from './lesson-playback.ts';
import { fetchLessonTrace, liveLesson, recordedLesson, type LessonChoice, type LessonSource } from './lesson-source.ts';
import './lesson-summary.ts';
import './lesson-training.ts';
import './lesson-vectors.ts';
import { baseStyles } from './theme.ts';
import { LESSON_SPEEDS, LESSON_STEPS, parseLessonKs, type LessonState } from './url-state.ts';

/** A live step slower than this suggests the recording (a whole lesson would take minutes more). */
export const SLOW_STEP_MS = 6000;

const STEP_TITLES: Record<(typeof LESSON_STEPS)[number], string> = {
  vector: 'A SPLADE vector',
  'long-rows': 'Why long head rows break it',
  training: 'Training side by side',
  trade: 'What k trades',
};

/** The keys the lesson answers to (shown beside the controls). */
const SHORTCUTS = [
  ['Space', 'play or pause the training'],
  ['→ or .', 'one training step'],
  ['PageDown / PageUp or n / p', 'next or previous lesson step'],
  ['1 to 4', 'go to a lesson step'],
  ['+ / −', 'faster or slower'],
  ['f', 'presenter view on or off'],
] as const;

function typing(event: KeyboardEvent): boolean {
  const target = event.composedPath()[0] as HTMLElement | undefined;
  return !!target && (['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) || target.isContentEditable);
}

@customElement('lesson-panel')
export class LessonPanel extends LitElement {
  @property({ attribute: false }) client: WorkerClient | null = null;
  /** The loaded model (live lessons train it), null before one is loaded. */
  @property({ attribute: false }) summary: ModelSummary | null = null;
  @property({ attribute: false }) state!: LessonState;
  /** The recording (fetched next to the page when first needed; tests may set it). */
  @property({ attribute: false }) trace: LessonTrace | null = null;
  @property({ type: Boolean, attribute: 'no-gpu' }) noGpu = false;
  /** The panel is shown: it answers to the keyboard. */
  @property({ type: Boolean }) active = false;
  @property({ type: Boolean, reflect: true }) presenter = false;
  @property({ type: String, attribute: 'page-url' }) pageUrl: string = location.href;
  /** A live step slower than this offers the recording. */
  @property({ attribute: false }) slowStepMs: number = SLOW_STEP_MS;
  @state() private _sentence: string = LESSON_SENTENCE;
  @state() private _vectors: LessonVector[] = [];
  @state() private _vectorError = '';
  @state() private _vectorsBusy = false;

  private readonly playback = new LessonPlayback(this);
  /** What the current source was built from: a new mode, model or recording builds a new one. */
  private sourceKey = '';
  private readonly onKey = (event: KeyboardEvent) => this._onKey(event);

  static override styles = [
    baseStyles,
    css`
      :host {
        display: block;
      }
      :host([presenter]) {
        font-size: 1.45rem;
        color: #000;
      }
      :host([presenter]) .narration {
        max-width: 60em;
      }
      :host([presenter]) button {
        border-width: 2px;
        border-color: #000;
      }
      nav ol {
        list-style: none;
        display: flex;
        flex-wrap: wrap;
        gap: 0.4em;
        padding: 0;
        margin: 0.4em 0 0.8em;
      }
      nav button[aria-current='step'] {
        background: #000;
        color: #fff;
        border-color: #000;
        font-weight: 700;
      }
      .badge {
        display: inline-block;
        border-radius: 4px;
        padding: 0.1em 0.5em;
        font-weight: 600;
        border: 2px solid #000;
      }
      .badge.recorded {
        background: #fff4d6;
        border-style: dashed;
      }
      .badge.live {
        background: #e6f4ec;
      }
      .formula {
        font-family: 'STIX Two Math', 'Cambria Math', Georgia, serif;
        font-size: 1.1em;
        display: block;
        margin: 0.5em 0;
      }
      .controls {
        display: flex;
        flex-wrap: wrap;
        gap: 0.5em;
        align-items: center;
        margin: 0.6em 0;
      }
      .error {
        color: #a00;
        font-weight: 600;
      }
      .notice {
        border: 2px solid #e69f00;
        padding: 0.4em 0.7em;
        border-radius: 4px;
      }
      dl.keys {
        display: grid;
        grid-template-columns: auto 1fr;
        gap: 0.1em 0.8em;
        font-size: 0.9em;
      }
      dl.keys dt {
        font-family: ui-monospace, monospace;
      }
      dl.keys dd {
        margin: 0;
      }
      .print-only {
        display: none;
      }
      @media print {
        :host {
          font-size: 11pt;
        }
        .screen-only {
          display: none !important;
        }
        .print-only {
          display: block;
        }
      }
    `,
  ];

  /** 'live' unless the URL asks for the recording or there is no WebGPU. */
  get mode(): 'live' | 'recorded' {
    return this.state.mode ?? (this.noGpu ? 'recorded' : 'live');
  }

  /** What computed the recording ("the synthetic demo backbone on SwiftShader …"), once it is read. */
  get recordedWith(): string {
    return this.trace ? `${this.trace.model} on ${this.trace.adapter}` : 'the bundled recording';
  }

  get step(): (typeof LESSON_STEPS)[number] {
    return LESSON_STEPS[this.state.step - 1];
  }

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('keydown', this.onKey);
  }

  override disconnectedCallback(): void {
    window.removeEventListener('keydown', this.onKey);
    super.disconnectedCallback();
  }

  override willUpdate(): void {
    this.presenter = this.state.present;
    this.playback.speed = this.state.speed;
    const key = [
      this.mode,
      this.mode === 'live' ? `${this.summary?.name ?? ''}|${!!this.client}` : String(!!this.trace),
      this.state.ks.join(','),
      this.state.seed,
      this.state.steps,
    ].join('/');
    if (key !== this.sourceKey) {
      this.sourceKey = key;
      this._vectors = [];
      this._vectorError = '';
      void this.playback.reset(this._buildSource());
      void this._ensureRecording();
    }
  }

  override updated(): void {
    if (!this.active) return;
    // every step may need the sentence: steps 1 and 2 show it, the printed summary quotes it
    if (this._vectors.length === 0 && !this._vectorsBusy && !this._vectorError && this.playback.source) void this._showSentence();
    if (
      (this.step === 'training' || this.step === 'trade') &&
      !this.playback.facts &&
      !this.playback.busy &&
      !this.playback.error &&
      this.playback.source
    ) {
      void this.playback.prepare(this._choice());
    }
  }

  override render() {
    const stepIndex = this.state.step;
    return html`<div class="screen-only">
        ${this._renderHeader()}
        <nav aria-label="Lesson steps">
          <ol>
            ${LESSON_STEPS.map(
              (name, i) =>
                html`<li>
                  <button
                    id="lesson-step-${i + 1}"
                    aria-current=${i + 1 === stepIndex ? 'step' : 'false'}
                    @click=${() => this._go(i + 1)}
                  >
                    ${i + 1} · ${STEP_TITLES[name]}
                  </button>
                </li>`,
            )}
          </ol>
        </nav>
        <section aria-labelledby="step-title" data-step=${this.step}>
          <h3 id="step-title">${stepIndex} · ${STEP_TITLES[this.step]}</h3>
          ${this._renderStep()}
        </section>
        <p class="controls">
          <button id="prev" ?disabled=${stepIndex === 1} @click=${() => this._go(stepIndex - 1)}>← Previous</button>
          <button
            id="next"
            class="primary"
            ?disabled=${stepIndex === LESSON_STEPS.length}
            @click=${() => this._go(stepIndex + 1)}
          >
            Next →
          </button>
        </p>
        <details id="shortcuts">
          <summary>Keyboard shortcuts</summary>
          <dl class="keys">
            ${SHORTCUTS.map(
              ([key, what]) =>
                html`<dt>${key}</dt>
                  <dd>${what}</dd>`,
            )}
          </dl>
        </details>
      </div>
      <div class="print-only" id="print-summary">
        <h2>splade-lab lesson: dividing the MLM head by k</h2>
        ${this._renderSummary('summary-print')}
      </div>`;
  }

  private _renderHeader() {
    const recorded = this.mode === 'recorded';
    return html`<p class="controls">
      <span id="lesson-mode" class="badge ${recorded ? 'recorded' : 'live'}" data-mode=${this.mode}
        >${recorded ? `Recorded: played back from a trace computed by splade-lab (${this.recordedWith})` : 'Live: computed now on this GPU'}</span
      >
      ${
        recorded
          ? html`<button
              id="switch-mode"
              ?disabled=${this.noGpu}
              title=${this.noGpu ? 'This browser has no WebGPU' : ''}
              @click=${() => this._change({ mode: 'live' })}
            >
              Compute live instead
            </button>`
          : html`<button id="switch-mode" @click=${() => this._change({ mode: 'recorded' })}>Play the recording instead</button>`
      }
      <button
        id="presenter"
        aria-pressed=${String(this.state.present)}
        @click=${() => this._change({ present: !this.state.present })}
      >
        Presenter view
      </button>
      <button id="print" @click=${() => window.print()}>Print a one-page summary</button>
    </p>`;
  }

  private _renderStep() {
    switch (this.step) {
      case 'vector':
        return html`<div class="narration">
            <p>
              A SPLADE model reads a text with a language model and, for every word of its vocabulary, asks: how much does this
              text call for it? The answers form a vector as long as the vocabulary, in which most entries are zero. The weight of
              word j is the strongest call any token t makes for it, squashed by a logarithm:
            </p>
            <span class="formula"
              >w<sub>j</sub> = max<sub>t</sub> log(1 + ReLU(h<sub>t</sub> · W<sub>j</sub> / k + b<sub>j</sub>))</span
            >
            <p>Type a sentence to see its vector. Words with weight that are not in the sentence are expansions.</p>
          </div>
          ${this._renderSentenceForm()}
          <lesson-vectors .vectors=${this._vectors} vocab-size=${this.summary?.vocabSize ?? 0}></lesson-vectors>
          ${this._renderDemoCaveat()}`;
      case 'long-rows':
        return html`<div class="narration">
            <p>
              Each word j has a row W<sub>j</sub> in the MLM head, and its logit grows with the row's length. Modern backbones
              have long rows: their logits are large, sit on the flat end of the logarithm, and give many words similar, large
              weights, so the vectors are dense and their FLOPS (what search costs) explode. Dividing the head by k shortens every
              row at once: the logits shrink k times, the weights fall with them and the FLOPS drop; training's FLOPS penalty can
              then push the small weights to zero.
            </p>
            <span class="formula"
              >logit<sub>j</sub> = h · W<sub>j</sub> / k + b<sub>j</sub>,&nbsp;&nbsp; FLOPS(v) = Σ<sub>j</sub>
              w<sub>j</sub>²</span
            >
          </div>
          ${this._renderSentenceForm()}
          <lesson-vectors compare .vectors=${this._vectors} vocab-size=${this.summary?.vocabSize ?? 0}></lesson-vectors>`;
      case 'training':
        return html`<div class="narration">
            <p>
              Now the same backbone is fine-tuned twice from the same weights on the same batches: once with the head as loaded (k
              = 1), once divided. Each step lowers the loss below. Watch the ranking loss, how many words each query keeps, and
              whether held-out queries (never trained on) find their documents better.
            </p>
            <span class="formula"
              >L = L<sub>rank</sub> + λ<sub>q</sub> FLOPS(q) + λ<sub>d</sub> FLOPS(d),&nbsp;&nbsp; FLOPS(V) = Σ<sub>j</sub>
              (mean<sub>i</sub> |v<sub>ij</sub>|)²</span
            >
          </div>
          ${this._renderSettings()} ${this._renderControls()}
          <lesson-training .frames=${this.playback.frames} .facts=${this.playback.facts}></lesson-training>`;
      case 'trade':
        return html`<div class="narration">
            <p>
              k trades effectiveness against cost: a head divided too little starts from saturated, dense vectors and a huge loss;
              divided too much, its weights are too small to separate documents. Here is where each k ended.
            </p>
          </div>
          ${this.playback.finished ? nothing : this._renderControls()} ${this._renderSummary('summary-screen')}
          ${this._renderDemoCaveat()}`;
    }
  }

  /** Said beside figures of the random demo backbone, live or recorded. */
  private _renderDemoCaveat() {
    const demo = this.mode === 'recorded' ? /demo/i.test(this.trace?.model ?? '') : (this.summary?.synthetic ?? false);
    return demo
      ? html`<p class="muted demo-caveat">
          The synthetic demo backbone has random weights: the words it weighs are arbitrary, and its vectors stay dense within
          these few steps. What it shows is how k changes the logits, the loss and the learning, not which words matter.
        </p>`
      : nothing;
  }

  private _renderSummary(id: string) {
    const source = this.mode === 'recorded' ? `recorded (${this.recordedWith})` : 'computed live in this browser';
    return html`<lesson-summary
      id=${id}
      .frames=${this.playback.frames}
      .facts=${this.playback.facts}
      .vectors=${this._vectors}
      source=${source}
      model=${this.mode === 'recorded' ? (this.trace?.model ?? '') : (this.summary?.name ?? '')}
    ></lesson-summary>`;
  }

  private _renderSentenceForm() {
    return html`<form class="controls" @submit=${this._onSentence}>
        <label for="sentence">Sentence</label>
        <input id="sentence" size="48" .value=${this._sentence} ?disabled=${this.mode === 'recorded'} />
        <button id="show-vector" type="submit" ?disabled=${this._vectorsBusy || this.mode === 'recorded'}>Show its vector</button>
        ${this.mode === 'recorded' ? html`<span class="muted">The recording holds this sentence only.</span>` : nothing}
      </form>
      ${this._vectorsBusy ? html`<p class="muted" role="status">Encoding…</p>` : nothing}
      ${this._vectorError ? html`<p class="error" role="alert" id="vector-error">${this._vectorError}</p>` : nothing}`;
  }

  /** The lesson the page asks for: its ks, seed and steps. */
  private _choice(): LessonChoice {
    return { ks: this.state.ks, seed: this.state.seed, steps: this.state.steps };
  }

  /** The ks, the seed and the steps (a new lesson when they change; the recording holds its own only). */
  private _renderSettings() {
    return html`<form
      class="controls"
      id="lesson-settings"
      @change=${this._onSettings}
      @submit=${(e: Event) => e.preventDefault()}
    >
      <label
        >k values <input id="lesson-ks" size="8" .value=${this.state.ks.join(', ')} aria-describedby="lesson-ks-help"
      /></label>
      <label>Seed <input id="lesson-seed" type="number" min="0" step="1" size="6" .value=${String(this.state.seed)} /></label>
      <label
        >Steps
        <input
          id="lesson-steps"
          type="number"
          min=${LESSON_LIMITS.steps.min}
          max=${LESSON_LIMITS.steps.max}
          step="1"
          size="4"
          .value=${String(this.state.steps)}
      /></label>
      <span id="lesson-ks-help" class="muted"
        >2 or 3 different ks from ${K_RANGE.min} to ${K_RANGE.max}; a change of any of these starts the lesson again.</span
      >
    </form>`;
  }

  private _onSettings() {
    const ksField = this.renderRoot.querySelector<HTMLInputElement>('#lesson-ks')!;
    const seedField = this.renderRoot.querySelector<HTMLInputElement>('#lesson-seed')!;
    const ks = parseLessonKs(ksField.value);
    const stepsField = this.renderRoot.querySelector<HTMLInputElement>('#lesson-steps')!;
    const seed = Number(seedField.value);
    const steps = Number(stepsField.value);
    ksField.setCustomValidity(ks ? '' : `Give 2 or 3 different ks from ${K_RANGE.min} to ${K_RANGE.max}, e.g. "1, 8".`);
    seedField.setCustomValidity(inRange(seed, TRAIN_LIMITS.seed) ? '' : `The seed must be ${describeRange(TRAIN_LIMITS.seed)}.`);
    stepsField.setCustomValidity(
      inRange(steps, LESSON_LIMITS.steps) ? '' : `The steps must be ${describeRange(LESSON_LIMITS.steps)}.`,
    );
    const invalid = [ksField, seedField, stepsField].find((field) => !field.checkValidity());
    if (invalid) {
      invalid.reportValidity();
      return;
    }
    if (ks!.join(',') !== this.state.ks.join(',') || seed !== this.state.seed || steps !== this.state.steps)
      this._change({ ks: ks!, seed, steps });
  }

  private _renderControls() {
    const p = this.playback;
    const steps = p.facts?.settings.steps ?? 0;
    const status = p.error
      ? ''
      : !p.facts
        ? p.busy
          ? 'Preparing both heads and measuring them before training…'
          : 'Press Play or Step to start.'
        : p.finished
          ? `Done: ${steps} steps of every k.`
          : `Step ${p.step} of ${steps}${p.lastStepMs && this.mode === 'live' ? ` · ${(p.lastStepMs / 1000).toFixed(1)} s per step` : ''}${p.playing ? ' · playing' : ''}`;
    const slow = this.mode === 'live' && p.step > 0 && p.lastStepMs >= this.slowStepMs && !p.finished;
    return html`<div class="controls" role="group" aria-label="Training controls">
        <button
          id="play"
          class="primary"
          ?disabled=${p.finished || (!p.playing && p.busy) || !p.source}
          @click=${this._togglePlay}
        >
          ${p.playing ? 'Pause' : 'Play'}
        </button>
        <button
          id="step-once"
          ?disabled=${p.finished || p.busy || p.playing || !p.source}
          @click=${() => void p.stepOnce(this._choice())}
        >
          Step
        </button>
        <button id="restart" ?disabled=${p.busy || p.playing || !p.facts} @click=${() => void p.reset(this._buildSource())}>
          Restart
        </button>
        <label
          >Speed
          <select
            id="speed"
            @change=${(e: Event) => this._change({ speed: (e.target as HTMLSelectElement).value as LessonState['speed'] })}
          >
            ${LESSON_SPEEDS.map((s) => html`<option value=${s} ?selected=${s === this.state.speed}>${s}</option>`)}
          </select>
        </label>
        <span id="lesson-status" role="status" aria-live="polite">${status}</span>
      </div>
      ${p.error ? html`<p class="error" role="alert" id="lesson-error">${p.error}</p>` : nothing}
      ${!p.source && this.mode === 'live' ? html`<p class="muted" id="needs-model">The live lesson trains the loaded model: load one above (the synthetic demo needs no network).</p>` : nothing}
      ${
        slow
          ? html`<p class="notice" id="slow-notice">
              This GPU took ${(p.lastStepMs / 1000).toFixed(1)} s for one step: the rest would take about
              ${Math.ceil(((steps - p.step) * p.lastStepMs) / 60000)} minutes.
              <button id="use-recording" @click=${() => this._change({ mode: 'recorded' })}>Play the recording instead</button>
            </p>`
          : nothing
      }`;
  }

  private _buildSource(): LessonSource | null {
    if (this.mode === 'recorded') return this.trace ? recordedLesson(this.trace) : null;
    return this.client && this.summary ? liveLesson(this.client) : null;
  }

  /** Fetches the recording when the recorded mode needs it. */
  private async _ensureRecording(): Promise<void> {
    if (this.mode !== 'recorded' || this.trace) return;
    try {
      this.trace = await fetchLessonTrace(this.pageUrl);
    } catch (error) {
      this.playback.error = toPageFailure(error).message;
      this._vectorError = this.playback.error;
    }
  }

  private async _showSentence(): Promise<void> {
    const source = this.playback.source;
    if (!source) return;
    this._vectorsBusy = true;
    this._vectorError = '';
    try {
      this._vectors = await source.sentence(
        this.mode === 'recorded' && this.trace ? this.trace.sentence[0].text : this._sentence,
        this.state.ks,
      );
    } catch (error) {
      this._vectorError = toPageFailure(error).message;
    } finally {
      this._vectorsBusy = false;
    }
  }

  private _onSentence(event: Event) {
    event.preventDefault();
    this._sentence = this.renderRoot.querySelector<HTMLInputElement>('#sentence')!.value;
    void this._showSentence();
  }

  private _togglePlay() {
    if (this.playback.playing) this.playback.pause();
    else void this.playback.play(this._choice());
  }

  private _go(step: number) {
    if (step >= 1 && step <= LESSON_STEPS.length) this._change({ step });
  }

  private _change(patch: Partial<LessonState>) {
    this.dispatchEvent(new CustomEvent('lesson-change', { detail: patch, bubbles: true, composed: true }));
  }

  private _onKey(event: KeyboardEvent) {
    if (!this.active || typing(event) || event.ctrlKey || event.metaKey || event.altKey) return;
    const speeds = LESSON_SPEEDS;
    const speedIndex = speeds.indexOf(this.state.speed);
    const actions: Record<string, () => void> = {
      ' ': () => (this.step === 'training' ? this._togglePlay() : this._change({ step: 3 })),
      ArrowRight: () => void this.playback.stepOnce(this._choice()),
      '.': () => void this.playback.stepOnce(this._choice()),
      PageDown: () => this._go(this.state.step + 1),
      n: () => this._go(this.state.step + 1),
      PageUp: () => this._go(this.state.step - 1),
      p: () => this._go(this.state.step - 1),
      '+': () => this._change({ speed: speeds[Math.min(speeds.length - 1, speedIndex + 1)] }),
      '-': () => this._change({ speed: speeds[Math.max(0, speedIndex - 1)] }),
      f: () => this._change({ present: !this.state.present }),
      ...Object.fromEntries(LESSON_STEPS.map((_, i) => [String(i + 1), () => this._go(i + 1)])),
    };
    const action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'lesson-panel': LessonPanel;
  }
}
