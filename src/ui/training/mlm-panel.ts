// <mlm-panel>: masked-LM training of the loaded backbone in the page (on the lesson world's documents or a picked text
// file): the masked-LM loss and the head's mean row norm plotted side by side as it learns, resume after a cancel or
// a reload, and the trained model loaded as the page's model (its head in the norm view).
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import {
  MLM_DEFAULTS,
  MLM_LIMITS,
  TRAIN_LIMITS,
  type HeadGrowth,
  type MlmEvent,
  type MlmStepReport,
  type ModelSummary,
  type PageMlmRequest,
} from '../../worker/api.ts';
import { JobController } from '../common/job-controller.ts';
import type { ChartSeries } from '../common/loss-chart.ts';
import '../common/loss-chart.ts';
import '../common/panel-explainer.ts';
import { readNumberFields, type NumberField } from '../common/number-fields.ts';
import { baseStyles, fieldRowStyles, trainingPanelStyles } from '../common/theme.ts';
import type { TrainingClient } from './training-client.ts';

type MlmField = 'steps' | 'batchSize' | 'maxLength' | 'peakLr' | 'mlmProbability';

/** The form's numbers: what a class can run in a minute or two on the demo backbone. */
const FIELDS: readonly (NumberField<MlmField> & { initial: number; step: string })[] = [
  { key: 'steps', label: 'Steps', range: { ...TRAIN_LIMITS.steps, min: 1 }, initial: 30, step: '1' },
  { key: 'batchSize', label: 'Batch', range: TRAIN_LIMITS.batchSize, initial: 8, step: '1' },
  { key: 'maxLength', label: 'Tokens per sequence', range: TRAIN_LIMITS.documentLength, initial: 64, step: '1' },
  { key: 'peakLr', label: 'Peak learning rate', range: TRAIN_LIMITS.peakLr, initial: 1e-3, step: 'any' },
  {
    key: 'mlmProbability',
    label: 'Masking probability',
    range: MLM_LIMITS.mlmProbability,
    initial: MLM_DEFAULTS.mlmProbability,
    step: 'any',
  },
];

/** Reports every this many steps: about 30 points on the charts. */
function reportEvery(steps: number): number {
  return Math.max(1, Math.round(steps / 30));
}

@customElement('mlm-panel')
export class MlmPanel extends LitElement {
  @property({ attribute: false }) client: TrainingClient | null = null;
  @property({ attribute: false }) summary: ModelSummary | null = null;
  @property({ type: Boolean, attribute: 'no-gpu' }) noGpu = false;
  @state() private _reports: MlmStepReport[] = [];
  @state() private _growth: HeadGrowth[] = [];
  /** The text: the lesson world's documents, or a picked file. */
  @state() private _file: File | null = null;
  @state() private _lineByLine = false;
  /** The step of a checkpoint the current settings would resume, or null. */
  @state() private _resumable: number | null = null;
  /** The finished run's key (its trained model can be loaded). */
  @state() private _trained: string | null = null;
  private readonly job = new JobController(this);

  static override styles = [
    baseStyles,
    trainingPanelStyles,
    fieldRowStyles,
    css`
      :host {
        display: block;
      }
      label.inline {
        flex-direction: row;
        align-items: center;
      }
      input[type='number'] {
        width: 7em;
      }
      fieldset {
        border: 1px solid #ccc;
        border-radius: 4px;
      }
    `,
  ];

  override updated(changed: Map<string, unknown>): void {
    if (changed.has('summary') || changed.has('client')) void this._checkResumable();
  }

  override render() {
    const disabled = this.job.running || this.noGpu || !this.client || !this.summary;
    const lossSeries: ChartSeries[] = [
      { label: 'masked-LM loss', points: this._reports.map((r) => ({ x: r.step + 1, y: r.loss })) },
    ];
    const normSeries: ChartSeries[] = [
      { label: 'mean row norm', points: this._growth.map((g) => ({ x: g.step, y: g.meanRowNorm })) },
      { label: '99th percentile', points: this._growth.map((g) => ({ x: g.step, y: g.p99RowNorm })) },
    ];
    return html`<panel-explainer heading="What am I looking at? (masked-LM training)">
        <p>
          A backbone learns its MLM head by masked-language-model training: some tokens of each sequence are hidden and the model
          is trained to predict them (cross-entropy over the hidden positions only). To make its predictions confident, the head's
          rows grow: that is where the long rows come from that the paper divides by k. Here you can watch it, and adapt a
          backbone to your own text before SPLADE training (domain-adaptive pretraining).
        </p>
      </panel-explainer>
      <form @submit=${this._onSubmit}>
        <fieldset>
          <legend>Text</legend>
          <label class="inline"
            ><input type="radio" name="mlm-text" id="mlm-text-lesson" ?checked=${!this._file} @change=${this._useLessonText} />
            The lesson world's generated documents</label
          >
          <label class="inline"
            >A text file (.txt one document per line, or .jsonl with "text")
            <input id="mlm-file" type="file" accept=".txt,.jsonl,text/plain" @change=${this._onFile}
          /></label>
          <label class="inline"
            ><input type="checkbox" id="mlm-line-by-line" .checked=${this._lineByLine} @change=${this._onLayout} /> One document per
            sequence (instead of full blocks of text)</label
          >
        </fieldset>
        ${FIELDS.map(
          (f) =>
            html`<label
              >${f.label}
              <input id="mlm-${f.key}" type="number" step=${f.step} .value=${String(f.initial)} @change=${this._checkResumable}
            /></label>`,
        )}
        <button id="mlm-start" class="primary" type="submit" ?disabled=${disabled}>Train as a masked LM</button>
        ${
          this._resumable !== null && !this.job.running
            ? html`<button id="mlm-resume" type="button" ?disabled=${disabled} @click=${() => this.run(true)}>
              Resume from step ${this._resumable}
            </button>`
            : nothing
        }
        ${this.job.running ? html`<button id="mlm-cancel" type="button" @click=${() => this.job.cancel()}>Cancel</button>` : nothing}
      </form>
      <p id="mlm-status" role="status" aria-live="polite">
        ${this.noGpu ? 'Masked-LM training runs on the GPU and needs WebGPU, which this browser does not provide.' : this.job.status}
      </p>
      ${this.job.error ? html`<p class="error" role="alert" id="mlm-error">${this.job.error}</p>` : nothing}
      <div class="charts">
        <loss-chart id="mlm-loss-chart" heading="Masked-LM loss" y-label="cross-entropy" .log=${false} .series=${lossSeries}></loss-chart>
        <loss-chart
          id="mlm-norm-chart"
          heading="The head's row norms"
          y-label="row L2 norm"
          .log=${false}
          .zero=${false}
          .series=${normSeries}
        ></loss-chart>
      </div>
      ${
        this._trained && !this.job.running
          ? html`<p>
            <button id="mlm-use" type="button" @click=${this._onUse}>Use the trained model</button>
            <span class="muted">It replaces the loaded model: see its head in the Model tab, or train it as SPLADE.</span>
          </p>`
          : nothing
      }`;
  }

  /** The form's steps (0 while the field is not a number). */
  private _formSteps(): number {
    return Number(this.renderRoot.querySelector<HTMLInputElement>('#mlm-steps')?.value) || 0;
  }

  /** The request of the form (null after marking a bad field). */
  private _request(resume: boolean): PageMlmRequest | null {
    const values = readNumberFields(this.renderRoot, FIELDS, 'mlm-');
    if (!values) return null;
    return {
      text: this._file ? { kind: 'file', file: this._file } : { kind: 'lesson' },
      layout: this._lineByLine ? 'line-by-line' : 'grouped',
      ...values,
      warmupRatio: 0.1,
      checkpointEvery: Math.max(1, Math.round(values.steps / 5)),
      reportEvery: reportEvery(values.steps),
      resume,
    };
  }

  /** Trains (a new run, or the resumed one) with the form's settings. */
  async run(resume = false): Promise<void> {
    const client = this.client;
    const request = this._request(resume);
    if (!client || !request || this.job.running) return;
    this._trained = null;
    if (!resume) [this._reports, this._growth] = [[], []];
    const steps = request.steps!;
    const result = await this.job.run(
      {
        starting: resume ? 'Resuming from the last checkpoint…' : 'Tokenizing the text…',
        cancel: () => client.cancelJob(),
        cancelling: 'Stopping after this step…',
        cancelled: () => 'Cancelled: the run can resume from its last checkpoint.',
        failed: (failure) => `Masked-LM training stopped: ${failure.message}`,
      },
      (progress) =>
        client.mlm(request, (event: MlmEvent) => {
          if (event.kind === 'start' && event.startStep > 0) {
            this._reports = this._reports.filter((r) => r.step < event.startStep);
            this._growth = this._growth.filter((g) => g.step <= event.startStep);
          } else if (event.kind === 'report') {
            this._reports = [...this._reports, event.report];
            const r = event.report;
            progress(
              `Step ${r.step + 1} of ${steps}: loss ${r.loss.toFixed(3)}, accuracy ${(100 * r.accuracy).toFixed(1)}%, largest logit ${r.logitScale.toFixed(2)}…`,
            );
          } else if (event.kind === 'head') {
            this._growth = [...this._growth.filter((g) => g.step !== event.growth.step), event.growth];
          } else if (event.kind === 'note') {
            progress(event.note);
          }
        }),
    );
    await this._checkResumable();
    if (!result) return;
    this._trained = result.run;
    const [first, last] = [this._growth[0], this._growth.at(-1)];
    const growth =
      first && last
        ? ` The head's mean row norm went from ${first.meanRowNorm.toFixed(3)} to ${last.meanRowNorm.toFixed(3)}.`
        : '';
    this.job.setStatus(`Done: ${result.step} steps (${result.msPerStep.toFixed(0)} ms a step).${growth}`);
  }

  /** Whether the form's run has a checkpoint to resume (after a cancel or a reload). */
  private async _checkResumable(): Promise<void> {
    const request = this.client && this.summary ? this._request(false) : null;
    this._resumable = request ? await this.client!.mlmCheckpoint(request).catch(() => null) : null;
  }

  private _onSubmit(event: Event) {
    event.preventDefault();
    void this.run(false);
  }

  private _useLessonText() {
    this._file = null;
    this.renderRoot.querySelector<HTMLInputElement>('#mlm-file')!.value = '';
    void this._checkResumable();
  }

  private _onFile(event: Event) {
    this._file = (event.target as HTMLInputElement).files?.[0] ?? null;
    void this._checkResumable();
  }

  private _onLayout(event: Event) {
    this._lineByLine = (event.target as HTMLInputElement).checked;
    void this._checkResumable();
  }

  private _onUse() {
    if (!this._trained) return;
    this.dispatchEvent(new CustomEvent('use-mlm-model', { detail: { run: this._trained }, bubbles: true, composed: true }));
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'mlm-panel': MlmPanel;
  }
}
