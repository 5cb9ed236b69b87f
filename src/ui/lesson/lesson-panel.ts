// <lesson-panel>: the paper's story as a guided lesson in four steps (a SPLADE vector; why long head rows break it;
// training k = 1 against a divided head; what k trades), playable (play, pause, one step, speed, keyboard shortcuts),
// live on this GPU or recorded (the bundled trace) without WebGPU, with a presenter view a clicker drives (PageDown
// scrolls through a step, then moves on) and a printable summary.
import { LitElement, html, nothing, type PropertyValues } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import {
  K_RANGE,
  LESSON_LIMITS,
  TRAIN_LIMITS,
  describeRange,
  inRange,
  toPageFailure,
  type LessonTrace,
  type ModelSummary,
  type WorkerClient,
} from '../../worker/api.ts';
import { LessonKeys, SHORTCUTS } from './lesson-keys.ts';
import { LESSON_NARRATION, STEP_TITLES } from './lesson-narration.ts';
import { lessonPanelStyles } from './lesson-panel-styles.ts';
import { LessonPlayback } from './lesson-playback.ts';
import { scrollWithinStep, stuckHeight } from './lesson-scroll.ts';
import { LessonSentence } from './lesson-sentence.ts';
import {
  fetchHeadGrowth,
  fetchLessonTrace,
  liveLesson,
  recordedLesson,
  type LessonChoice,
  type LessonSource,
} from './lesson-source.ts';
import './lesson-head-growth.ts';
import type { HeadGrowthTrace } from '../../contract/lesson/head-growth-trace.ts';
import './lesson-summary.ts';
import './lesson-training.ts';
import './lesson-vectors.ts';
import { formatDuration } from '../common/format.ts';
import { baseStyles } from '../common/theme.ts';
import { LESSON_SPEEDS, LESSON_STEPS, parseLessonKs, type LessonState } from '../url-state.ts';

/** Live steps slower than this on average suggest the recording (a whole lesson would take minutes more). */
export const SLOW_STEP_MS = 6000;

@customElement('lesson-panel')
export class LessonPanel extends LitElement {
  @property({ attribute: false }) client: WorkerClient | null = null;
  /** The loaded model (live lessons train it), null before one is loaded. */
  @property({ attribute: false }) summary: ModelSummary | null = null;
  @property({ attribute: false }) state!: LessonState;
  /** The recording (fetched next to the page when first needed; tests may set it). */
  @property({ attribute: false }) trace: LessonTrace | null = null;
  /** The recorded masked-LM run of step 2's "where long rows come from" (fetched when step 2 is first shown). */
  @property({ attribute: false }) growth: HeadGrowthTrace | null = null;
  @property({ attribute: false }) growthProblem = '';
  @property({ type: Boolean, attribute: 'no-gpu' }) noGpu = false;
  /** The panel is shown: it answers to the keyboard. */
  @property({ type: Boolean }) active = false;
  @property({ type: Boolean, reflect: true }) presenter = false;
  @property({ type: String, attribute: 'page-url' }) pageUrl: string = location.href;
  /** Live steps slower than this on average offer the recording. */
  @property({ attribute: false }) slowStepMs: number = SLOW_STEP_MS;
  /** The step shown at the last render (a new one scrolls the panel's top into view), and whether it was presented. */
  private shownStep = 0;
  private shownPresenting = false;
  /** The page is to scroll to the lesson's top once the new step is rendered (read before the old one goes). */
  private scrollToTop = false;

  private readonly playback = new LessonPlayback(this);
  /** What the current source was built from: a new mode, model or recording builds a new one. */
  private sourceKey = '';
  private readonly keys = new LessonKeys(this);
  /** The sentence's vectors, from the lesson's source (the recording's own sentence when recorded). */
  private readonly sentence = new LessonSentence(this, (text) => {
    const source = this.playback.source;
    const recorded = this.mode === 'recorded' && this.trace ? this.trace.sentence[0].text : text;
    return source ? source.sentence(recorded, this.state.ks) : null;
  });

  static override styles = [baseStyles, lessonPanelStyles];

  /** 'live' unless the URL asks for the recording or there is no WebGPU. */
  get mode(): 'live' | 'recorded' {
    return this.state.mode ?? (this.noGpu ? 'recorded' : 'live');
  }

  /** What computed the recording ("the demo backbone on SwiftShader …"), once it is read. */
  get recordedWith(): string {
    return this.trace ? `${this.trace.model} on ${this.trace.adapter}` : 'the bundled recording';
  }

  get step(): (typeof LESSON_STEPS)[number] {
    return LESSON_STEPS[this.state.step - 1];
  }

  /** Step 3's training can still play. */
  get canPlay(): boolean {
    return !!this.playback.source && !this.playback.finished;
  }

  /** The figures are the demo backbone's (live: the loaded model says so; recorded: the trace's model). */
  get demo(): boolean {
    return this.mode === 'recorded' ? /demo/i.test(this.trace?.model ?? '') : (this.summary?.synthetic ?? false);
  }

  override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('state') && this.shownStep !== 0) {
      const presenting = this.state.present && !this.shownPresenting;
      // read now: once the old step's content is gone the page may be shorter and its scroll position clamped
      const newStep = this.state.step !== this.shownStep && this.active && this.getBoundingClientRect().top < 0;
      this.scrollToTop = presenting || newStep;
    }
    this.presenter = this.state.present;
    this.playback.speed = this.state.speed;
    const p = this.playback;
    // a slow adapter is told once its mean step time is slow, and the notice stays (no flicker as single steps vary)
    if (this.mode === 'live' && p.step > 0 && p.meanStepMs >= this.slowStepMs) p.slowNoticed = true;
    const key = [
      this.mode,
      this.mode === 'live' ? `${this.summary?.name ?? ''}|${!!this.client}` : String(!!this.trace),
      this.state.ks.join(','),
      this.state.seed,
      this.state.steps,
    ].join('/');
    if (key !== this.sourceKey) {
      this.sourceKey = key;
      this.sentence.reset();
      void this.playback.reset(this._buildSource());
      void this._ensureRecording();
    }
  }

  override updated(changed: PropertyValues<this>): void {
    if (changed.has('state')) {
      // a new step starts at its top (the page may be scrolled down the one before); presenting, at the page's top
      if (this.scrollToTop) {
        if (this.state.present) window.scrollTo({ top: 0, behavior: 'instant' });
        else this.scrollIntoView({ block: 'start' });
      }
      this.scrollToTop = false;
      this.shownStep = this.state.step;
      this.shownPresenting = this.state.present;
    }
    if (!this.active) return;
    if (this.step === 'long-rows' && !this.growth && !this.growthProblem) void this._fetchGrowth();
    // every step may need the sentence: steps 1 and 2 show it, the printed summary quotes it
    if (this.sentence.pending && this.playback.source) void this.sentence.show();
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
                    @click=${() => this.goToStep(i + 1)}
                  >
                    ${i + 1} · ${STEP_TITLES[name]}
                  </button>
                </li>`,
            )}
          </ol>
        </nav>
        <section aria-labelledby="step-title" data-step=${this.step}>
          <h2 id="step-title">${stepIndex} · ${STEP_TITLES[this.step]}</h2>
          ${this._renderStep()}
        </section>
        <p class="controls">
          <button id="prev" ?disabled=${stepIndex === 1} @click=${() => this.goToStep(stepIndex - 1)}>← Previous</button>
          <button
            id="next"
            class="primary"
            ?disabled=${stepIndex === LESSON_STEPS.length}
            @click=${() => this.goToStep(stepIndex + 1)}
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
    return html`<p class="controls lesson-head">
      <span id="lesson-mode" class="badge ${recorded ? 'recorded' : 'live'}" data-mode=${this.mode}
        >${recorded ? `Recorded: played back from a trace computed by splade-lab (${this.recordedWith})` : 'Live: computed now on this GPU'}</span
      >
      ${
        recorded
          ? html`<button
              id="switch-mode"
              ?disabled=${this.noGpu}
              title=${this.noGpu ? 'This browser has no WebGPU' : ''}
              @click=${() => this.changeLesson({ mode: 'live' })}
            >
              Compute live instead
            </button>`
          : html`<button id="switch-mode" @click=${() => this.changeLesson({ mode: 'recorded' })}>
              Play the recording instead
            </button>`
      }
      <button
        id="presenter"
        aria-pressed=${String(this.state.present)}
        @click=${() => this.changeLesson({ present: !this.state.present })}
      >
        ${this.state.present ? 'Leave presenter view' : 'Presenter view'}
      </button>
      <button id="print" @click=${() => window.print()}>Print a one-page summary</button>
    </p>`;
  }

  private _renderStep() {
    switch (this.step) {
      case 'vector':
        return html`${LESSON_NARRATION.vector} ${this.sentence.render(this.mode === 'recorded')}
          <lesson-vectors .vectors=${this.sentence.vectors} ?demo=${this.demo}></lesson-vectors>
          ${this._renderDemoCaveat()}`;
      case 'long-rows':
        return html`${LESSON_NARRATION['long-rows']} ${this.sentence.render(this.mode === 'recorded')}
          <lesson-vectors compare .vectors=${this.sentence.vectors} ?demo=${this.demo} ?presenter=${this.state.present}></lesson-vectors>
          <lesson-head-growth .trace=${this.growth} problem=${this.growthProblem} ?presenter=${this.state.present}></lesson-head-growth>`;
      case 'training':
        return html`${LESSON_NARRATION.training} ${this._renderSettings()} ${this._renderControls()}
          <lesson-training
            .frames=${this.playback.frames}
            .facts=${this.playback.facts}
            ?presenter=${this.state.present}
          ></lesson-training>`;
      case 'trade':
        return html`${LESSON_NARRATION.trade} ${this.playback.finished ? nothing : this._renderControls()}
        ${this._renderSummary('summary-screen')} ${this._renderDemoCaveat()}`;
    }
  }

  /** Said beside figures of the random demo backbone, live or recorded. */
  private _renderDemoCaveat() {
    return this.demo
      ? html`<p class="muted demo-caveat">
          The demo backbone is a tiny MLM that splade-lab pretrained on WordNet glosses: it knows which English words go together,
          but it is no real backbone. What it shows is how k changes the logits, the loss and the learning.
        </p>`
      : nothing;
  }

  private _renderSummary(id: string) {
    const source = this.mode === 'recorded' ? `recorded (${this.recordedWith})` : 'computed live in this browser';
    return html`<lesson-summary
      id=${id}
      .frames=${this.playback.frames}
      .facts=${this.playback.facts}
      .vectors=${this.sentence.vectors}
      source=${source}
      model=${this.mode === 'recorded' ? (this.trace?.model ?? '') : (this.summary?.name ?? '')}
    ></lesson-summary>`;
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
      this.changeLesson({ ks: ks!, seed, steps });
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
          : `Step ${p.step} of ${steps}${p.stepTimed && this.mode === 'live' ? ` · ${(p.meanStepMs / 1000).toFixed(1)} s per step on average, about ${formatDuration(p.msLeft)} left` : ''}${p.playing ? ' · playing' : ''}`;
    const slow = this.mode === 'live' && p.slowNoticed && !p.finished;
    return html`<div class="controls" id="training-controls" role="group" aria-label="Training controls">
        <button
          id="play"
          class="primary"
          ?disabled=${p.finished || (!p.playing && p.busy) || !p.source}
          @click=${this.togglePlay}
        >
          ${p.playing ? 'Pause' : 'Play'}
        </button>
        <button id="step-once" ?disabled=${p.finished || p.busy || p.playing || !p.source} @click=${() => this.stepOnce()}>
          Step
        </button>
        <button id="restart" ?disabled=${p.busy || p.playing || !p.facts} @click=${() => void p.reset(this._buildSource())}>
          Restart
        </button>
        <label
          >Speed
          <select
            id="speed"
            @change=${(e: Event) => this.changeLesson({ speed: (e.target as HTMLSelectElement).value as LessonState['speed'] })}
          >
            ${LESSON_SPEEDS.map((s) => html`<option value=${s} ?selected=${s === this.state.speed}>${s}</option>`)}
          </select>
        </label>
        <span id="lesson-status" role="status" aria-live="polite">${status}</span>
      </div>
      ${p.error ? html`<p class="error" role="alert" id="lesson-error">${p.error}</p>` : nothing}
      ${!p.source && this.mode === 'live' ? html`<p class="muted" id="needs-model">The live lesson trains the loaded model: load one above (the demo backbone needs no network).</p>` : nothing}
      ${
        slow
          ? html`<p class="notice" id="slow-notice">
              This GPU takes ${(p.meanStepMs / 1000).toFixed(1)} s a step on average: the ${steps - p.step} steps left would
              take about ${formatDuration(p.msLeft)}.
              <button id="use-recording" @click=${() => this.changeLesson({ mode: 'recorded' })}>
                Play the recording instead
              </button>
            </p>`
          : nothing
      }`;
  }

  private _buildSource(): LessonSource | null {
    if (this.mode === 'recorded') return this.trace ? recordedLesson(this.trace) : null;
    return this.client && this.summary ? liveLesson(this.client) : null;
  }

  private async _fetchGrowth(): Promise<void> {
    this.growthProblem = 'Reading the recorded masked-LM run…';
    try {
      this.growth = await fetchHeadGrowth(this.pageUrl);
      this.growthProblem = '';
    } catch (error) {
      this.growthProblem = `The recorded masked-LM run is not at hand: ${toPageFailure(error).message}`;
    }
  }

  /** Fetches the recording when the recorded mode needs it. */
  private async _ensureRecording(): Promise<void> {
    if (this.mode !== 'recorded' || this.trace) return;
    try {
      this.trace = await fetchLessonTrace(this.pageUrl);
    } catch (error) {
      this.playback.error = toPageFailure(error).message;
      this.sentence.fail(this.playback.error);
    }
  }

  /** One training step (the Step button, → and "."). */
  stepOnce() {
    void this.playback.stepOnce(this._choice());
  }

  /** Plays or pauses the training (the Play button and Space); presenting, playing brings the controls and charts up. */
  togglePlay() {
    if (this.playback.playing) this.playback.pause();
    else if (!this.playback.busy) {
      void this.playback.play(this._choice());
      if (this.state.present)
        void this.updateComplete.then(() =>
          this.renderRoot.querySelector('#training-controls')?.scrollIntoView({ block: 'start' }),
        );
    }
  }

  /**
   * One screen further through the step (PageDown, a clicker), or at its end the next step; -1: back, then the step
   * before. In step 3 the first press forward plays the training (a clicker has no Space), then pages through it.
   */
  advance(direction: 1 | -1) {
    const p = this.playback;
    if (direction > 0 && this.step === 'training' && this.canPlay && !p.playing && p.step <= 0) {
      // (while the heads are being prepared the press waits for nothing: the Play button is not ready either)
      if (!p.busy) this.togglePlay();
      return;
    }
    const section = this.renderRoot.querySelector('section[data-step]');
    const bar = this.renderRoot.querySelector('#training-controls');
    if (section && scrollWithinStep(section, direction, stuckHeight(bar))) return;
    this.goToStep(this.state.step + direction);
  }

  /** Goes to a lesson step (1-based; nothing outside the lesson). */
  goToStep(step: number) {
    if (step >= 1 && step <= LESSON_STEPS.length) this.changeLesson({ step });
  }

  /** Asks the page for another lesson state (it goes into the URL and comes back as `state`). */
  changeLesson(patch: Partial<LessonState>) {
    this.dispatchEvent(new CustomEvent('lesson-change', { detail: patch, bubbles: true, composed: true }));
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'lesson-panel': LessonPanel;
  }
}
