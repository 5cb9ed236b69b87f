// <mlm-panel>: masked-LM training of the loaded backbone in the page (on the lesson world's documents or a picked text
// file), optionally from its head divided by k (short rows, to watch them grow): the masked-LM loss and the head's mean
// row norm plotted side by side as it learns, time left, resume after a cancel or a reload, and the trained model
// loaded as the page's model (its head in the norm view).
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import {
  K_RANGE,
  MLM_DEFAULTS,
  MLM_LIMITS,
  TRAIN_LIMITS,
  type HeadGrowth,
  type MlmEvent,
  type MlmStepReport,
  type ModelSummary,
  type PageMlmRequest,
} from '../../worker/api.ts';
import { formatDuration, formatK } from '../common/format.ts';
import { JobController } from '../common/job-controller.ts';
import type { ChartSeries } from '../common/loss-chart.ts';
import '../common/loss-chart.ts';
import '../common/panel-explainer.ts';
import { readNumberFields, type NumberField } from '../common/number-fields.ts';
import { baseStyles, fieldRowStyles, trainingPanelStyles } from '../common/theme.ts';
import type { TrainingClient } from './training-client.ts';

type MlmField = 'steps' | 'batchSize' | 'maxLength' | 'peakLr' | 'mlmProbability';

/**
 * The form's numbers: what a class can run in a minute or two on the demo backbone. The learning rate is the lesson's
 * recorded run's: from the demo's head divided by 5, 30 steps of 8 grow its mean row norm by about 10% (0.499 to 0.550
 * measured on SwiftShader), where 1e-3 gave 3%.
 */
const FIELDS: readonly (NumberField<MlmField> & { initial: number; step: string })[] = [
  { key: 'steps', label: 'Steps', range: { ...TRAIN_LIMITS.steps, min: 1 }, initial: 30, step: '1' },
  { key: 'batchSize', label: 'Batch', range: TRAIN_LIMITS.batchSize, initial: 8, step: '1' },
  { key: 'maxLength', label: 'Tokens per sequence', range: TRAIN_LIMITS.documentLength, initial: 64, step: '1' },
  { key: 'peakLr', label: 'Peak learning rate', range: TRAIN_LIMITS.peakLr, initial: 2e-3, step: 'any' },
  {
    key: 'mlmProbability',
    label: 'Masking probability',
    range: MLM_LIMITS.mlmProbability,
    initial: MLM_DEFAULTS.mlmProbability,
    step: 'any',
  },
];

/** The head's divisor: its own field, whose first value depends on the model (see defaultK). */
const K_FIELD: NumberField<'k'> = { key: 'k', label: 'Head divided by k first', range: K_RANGE };

/**
 * The divisor a run starts with: the demo backbone's head is already long (mean row norm about 2.5, a fully
 * pretrained ModernBERT's), and a short run leaves it flat, so its head starts divided by 5 (rows 0.5 long, as the
 * lesson's recording of growing rows starts); any other model's starts as loaded (adapting it to a text).
 */
export function defaultK(summary: ModelSummary | null): number {
  return summary?.synthetic ? 5 : 1;
}

/** A change of the mean row norm below this share reads as "barely moved". */
const FLAT = 0.01;

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
  /** The divisor in the field (its note follows it). */
  @state() private _k: number | null = null;
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

  override willUpdate(changed: Map<string, unknown>): void {
    // a newly loaded model proposes its own divisor
    if (changed.has('summary')) this._k = defaultK(this.summary);
  }

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
          rows grow over a long pretraining: that is where the long rows come from that the paper divides by k. A head that is
          already long barely moves in a short run, so to watch the growth, start from the head divided by k (short rows, as
          before pretraining; the demo backbone starts divided by 5). With k = 1 you adapt a backbone to your own text as it is,
          before SPLADE training (domain-adaptive pretraining).
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
        <label
          >${K_FIELD.label}
          <input id="mlm-k" type="number" step="any" .value=${String(this._k ?? 1)} @change=${this._onK}
        /></label>
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
      <p id="mlm-k-note" class="muted">${this._kNote()}</p>
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

  /** What the divisor in the field does, in one sentence. */
  private _kNote(): string {
    const k = this._k ?? 1;
    if (!(k > 0)) return '';
    if (k === 1)
      return (
        "The head as loaded. A head that is already long (the demo's mean row norm is about 2.5) barely moves in a " +
        'short run, and its row-norm chart stays two flat lines: divide it first (e.g. k = 5) to watch rows grow.'
      );
    return (
      `The head starts divided by k = ${formatK(k)}: every row ${formatK(k)} times shorter, as before pretraining grew ` +
      'them. Watch the mean row norm rise as the predictions sharpen. The trained model keeps the rows it ends with.'
    );
  }

  private _onK(event: Event) {
    this._k = Number((event.target as HTMLInputElement).value);
    void this._checkResumable();
  }

  /** The request of the form (null after marking a bad field). */
  private _request(resume: boolean): PageMlmRequest | null {
    const values = readNumberFields(this.renderRoot, [...FIELDS, K_FIELD], 'mlm-');
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
            const left = (steps - r.step - 1) * r.msPerStep;
            progress(
              `Step ${r.step + 1} of ${steps} · about ${formatDuration(r.msPerStep)} per step (measured over the last steps) · ` +
                `${formatDuration(left)} left · loss ${r.loss.toFixed(3)}, accuracy ${(100 * r.accuracy).toFixed(1)}%, largest logit ${r.logitScale.toFixed(2)}`,
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
    this.job.setStatus(`Done: ${result.step} steps (${result.msPerStep.toFixed(0)} ms a step).${this._growthLine(request.k)}`);
  }

  /** How the mean row norm moved over the drawn points, and what to do when it barely did. */
  private _growthLine(k: number | undefined): string {
    const [first, last] = [this._growth[0], this._growth.at(-1)];
    if (!first || !last || !(first.meanRowNorm > 0)) return '';
    const change = last.meanRowNorm / first.meanRowNorm - 1;
    const moved =
      ` The head's mean row norm went from ${first.meanRowNorm.toFixed(3)} to ${last.meanRowNorm.toFixed(3)} ` +
      `(${change >= 0 ? '+' : ''}${(100 * change).toFixed(1)}%).`;
    if (Math.abs(change) >= FLAT) return moved;
    return (
      moved +
      (k === undefined || k === 1
        ? ' It barely moved: this head is already long for so short a run. Start from the head divided by k (e.g. 5) to watch rows grow.'
        : ' It barely moved: train longer, or with a larger learning rate.')
    );
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
