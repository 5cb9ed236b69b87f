// <train-panel>: real SPLADE fine-tuning of the loaded backbone in the worker: the data (TrainingData), k and the
// recipe (<recipe-form>, on the page's shared RecipeState), start / cancel / resume (IndexedDB checkpoints per model +
// data + k + lambdas), probes and alarms, live loss and active-dimension charts.
import { Task } from '@lit/task';
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import {
  DEFAULT_PROBES,
  K_RANGE,
  PROBE_LIMITS,
  inRange,
  toPageFailure,
  type Alarm,
  type ModelSummary,
  type ProbeSnapshot,
  type ProbeText,
  type StepReport,
  type TrainRequest,
} from '../../worker/api.ts';
import './alarm-list.ts';
import './probe-view.ts';
import { JobController } from '../common/job-controller.ts';
import { markField } from '../common/number-fields.ts';
import { formatDuration, formatK } from '../common/format.ts';
import type { ChartSeries } from '../common/loss-chart.ts';
import '../common/loss-chart.ts';
import '../common/panel-explainer.ts';
import './recipe-form.ts';
import { RecipeListener, RecipeState } from './recipe-state.ts';
import type { TrainingClient } from './training-client.ts';
import { TrainingData } from './training-data.ts';
import { baseStyles, fieldStyles, trainingPanelStyles } from '../common/theme.ts';
import { K_MAX, K_MIN, K_RANGE_MESSAGE } from '../url-state.ts';
import { PAPER_LAMBDAS } from '../../contract/training/recipe.ts';

/** The default probes of one role, one per line. */
function probeLines(role: ProbeText['role']): string {
  return DEFAULT_PROBES.filter((p) => p.role === role)
    .map((p) => p.text)
    .join('\n');
}

@customElement('train-panel')
export class TrainPanel extends LitElement {
  @property({ attribute: false }) client: TrainingClient | null = null;
  /** The loaded backbone (null while none is). */
  @property({ attribute: false }) summary: ModelSummary | null = null;
  /** The page's k: the default k of a run. */
  @property({ type: Number }) k = 1;
  @property({ type: Boolean, attribute: 'no-gpu' }) noGpu = false;
  /** The Hub base URL in use (null: huggingface.co). */
  @property({ attribute: false }) hubUrl: string | null = null;
  /** The recipe (the page shares one with the sweep and the calibrator; a panel alone has its own). */
  @property({ attribute: false }) recipe = new RecipeState();
  /** k typed here; null follows the page's k. */
  @state() private _trainK: number | null = null;
  @state() private _reports: StepReport[] = [];
  @state() private _checkpointError = '';
  @state() private _provenance = '';
  /** Step of the last checkpoint this run saved (-1: none yet). */
  @state() private _saved = -1;
  /** The run's first and newest probe snapshots. */
  @state() private _probes: { start: ProbeSnapshot; latest: ProbeSnapshot } | null = null;
  /** Alarms raised in this tab (a resumed run keeps those of its earlier part: they do not pause it again). */
  @state() private _alarms: Alarm[] = [];
  /** What the run said along the way that changes nothing of its results (a cached batch tokenized again, ...). */
  @state() private _notes: string[] = [];
  /** The running training: status, error, cancel. */
  private readonly job = new JobController(this);
  /** The triplets to train on. */
  private readonly data = new TrainingData(this);
  /** A changed recipe may name other lambdas, which find another saved run. */
  private readonly recipeListener = new RecipeListener(this, () => this.recipe, {
    'recipe-change': () => this.requestUpdate(),
  });
  /** Bumped after each run, so the saved checkpoint is read again. */
  private runsFinished = 0;
  /** The newest saved checkpoint for this model + data + k + lambdas (latest request wins). */
  private readonly checkpoint = new Task(this, {
    task: async ([client, summary, data, k, lambdaQueries, lambdaDocuments]) => {
      this._checkpointError = '';
      return client && summary && data ? client.trainingCheckpoint(k, { lambdaQueries, lambdaDocuments }) : null;
    },
    args: () => {
      const { lambdaQueries, lambdaDocuments } = this.recipe.lambdas();
      return [
        this.client,
        this.summary,
        this.data.summary,
        this.trainK,
        lambdaQueries,
        lambdaDocuments,
        this.runsFinished,
      ] as const;
    },
    onComplete: (found) => found && this.recipe.showSaved(found),
    onError: (error) => (this._checkpointError = `The saved checkpoint cannot be read: ${toPageFailure(error).message}`),
  });

  static override styles = [
    baseStyles,
    trainingPanelStyles,
    fieldStyles,
    css`
      :host {
        display: block;
      }
      kbd {
        border: 1px solid #999;
        border-radius: 3px;
        padding: 0 0.25em;
        font-size: 0.85em;
        background: #f4f4f4;
      }
      .actions {
        display: flex;
        gap: 0.8em;
        align-items: center;
        flex-wrap: wrap;
      }
      .error {
        white-space: pre-wrap;
      }
    `,
  ];

  /** A run is going on. */
  get running(): boolean {
    return this.job.running;
  }

  /** The data chooser's news, on the run's status line. */
  dataStatus(message: string): void {
    this.job.setStatus(message);
  }

  /** The calibrator's share of the recipe (see RecipeState.recipeSettings). */
  recipeSettings() {
    return this.recipe.recipeSettings();
  }

  /** The sweep's share of the recipe (see RecipeState.sweepSettings). */
  sweepSettings() {
    return this.recipe.sweepSettings();
  }

  private get trainK(): number {
    return this._trainK ?? this.k;
  }

  override render() {
    const running = this.job.running;
    const ready = !!this.client && !!this.summary && !!this.data.summary && !this.noGpu && !running;
    const cp = this.checkpoint.value ?? null;
    const error = this.job.error || this._checkpointError;
    const finished = cp !== null && cp.step >= cp.recipe.schedule.totalSteps;
    const points = (value: (r: StepReport) => number) => this._reports.map((r) => ({ x: r.step + 1, y: value(r) }));
    const loss: ChartSeries[] = [
      { label: 'total loss L', points: points((r) => r.total) },
      { label: 'ranking loss L_rank', points: points((r) => r.rank) },
    ];
    const active: ChartSeries[] = [
      { label: 'queries', points: points((r) => r.activeQueries) },
      { label: 'documents', points: points((r) => r.activeDocuments) },
    ];
    return html`<panel-explainer heading="What am I looking at? (real training)">
        <p>
          This fine-tunes the whole loaded backbone as SPLADE on your triplets, in this tab, after dividing its head by k. Each
          step takes a batch of (query, positive, negative) lines and lowers L = L<sub>rank</sub> + λ<sub>q</sub> FLOPS(q) + λ<sub
            >d</sub
          >
          FLOPS(d) with AdamW, the paper's recipe (lr 1e-4 with warm-up and linear decay, λ_q = ${PAPER_LAMBDAS.queries.toExponential()} and λ_d = ${PAPER_LAMBDAS.documents.toExponential()} ramped up over
          the first third, gradients clipped at 1.0, the backbone's dropout). Several micro-batches per step average their
          gradients, as the paper's 8 GPUs did. Active dimensions count the non-zero vocabulary weights of a vector: the FLOPS
          terms push them down. Checkpoints are kept in this browser (IndexedDB), so a reloaded tab can resume.
        </p>
      </panel-explainer>
      ${this.data.render(running)}
      <recipe-form .state=${this.recipe} ?disabled=${running}>
        <label class="field"
          >k (divides the head)
          <input
            id="train-k"
            type="number"
            min=${K_MIN}
            max=${K_MAX}
            step="any"
            .value=${formatK(this.trainK)}
            @change=${this._onK}
            ?disabled=${running}
        /></label>
      </recipe-form>
      <details id="health-settings">
        <summary>Probes and alarms</summary>
        <p class="muted">
          Probe texts are encoded with the model as it trains (before the first step and at every report): their top terms, active
          dimensions and scores show what training does to real text. One text per line, at most ${PROBE_LIMITS.texts} in all.
        </p>
        <div class="fields">
          <label class="field"
            >Query probes
            <textarea id="probe-queries" rows="3" cols="40" ?disabled=${running} .value=${probeLines('query')}></textarea>
          </label>
          <label class="field"
            >Document probes
            <textarea id="probe-documents" rows="3" cols="40" ?disabled=${running} .value=${probeLines('document')}></textarea>
          </label>
        </div>
        <label
          ><input id="pause-on-alarm" type="checkbox" ?disabled=${running} /> Pause the run when an alarm is raised (a checkpoint
          is kept; Resume goes on)</label
        >
      </details>
      <div class="actions">
        ${
          cp && !finished
            ? html`<button id="resume" class="primary" ?disabled=${!ready} @click=${() => this._train(true)}>
                Resume run from step ${cp.step}
              </button>`
            : nothing
        }
        <button id="start" class=${cp && !finished ? '' : 'primary'} ?disabled=${!ready} @click=${() => this._train(false)}>
          ${cp ? 'Start a new run (discards the saved one)' : 'Start training'}
        </button>
        ${running ? html`<button id="cancel-train" @click=${this._onCancel}>Cancel</button>` : nothing}
        <span class="muted" id="needs">${this._needs()}</span>
      </div>
      ${
        cp
          ? html`<p class="muted" id="checkpoint">
              Saved ${finished ? 'finished run' : 'run'} for this model, data and k = ${formatK(this.trainK)}: step ${cp.step} of
              ${cp.recipe.schedule.totalSteps} (batch ${cp.recipe.batchSize}, lengths
              ${cp.recipe.queryLength}/${cp.recipe.documentLength})${finished ? '.' : '; resuming keeps its settings.'}
            </p>`
          : nothing
      }
      <p id="train-status" role="status" aria-live="polite">${this.job.status}</p>
      ${this._saved >= 0 ? html`<p class="muted" id="saved">Last checkpoint of this run: step ${this._saved}, in this browser's IndexedDB.</p>` : nothing}
      ${error ? html`<p class="error" role="alert" id="train-error">${error}</p>` : nothing}
      <section id="health" aria-label="Training health">
        <h3>Alarms</h3>
        <alarm-list id="alarms" .alarms=${this._alarms}></alarm-list>
        ${this._notes.map((note) => html`<p class="muted note">Note: ${note}</p>`)}
        <h3>Probes</h3>
        <probe-view id="probes" .start=${this._probes?.start ?? null} .latest=${this._probes?.latest ?? null}></probe-view>
      </section>
      <div class="charts">
        <loss-chart id="train-loss" heading="Training loss" y-label="loss" .series=${loss}></loss-chart>
        <loss-chart
          id="train-active"
          heading="Active dimensions per vector"
          y-label="non-zero weights"
          .series=${active}
        ></loss-chart>
      </div>
      <p class="provenance muted" id="train-provenance">
        ${this._provenance ? `Figures from ${this._provenance}.` : 'No training run yet.'}
        ${this.summary?.synthetic ? ' The demo backbone is a tiny MLM pretrained by splade-lab on WordNet glosses: it trains, but its figures say little about real models.' : nothing}
      </p>`;
  }

  /** What is still missing before a run can start. */
  private _needs(): string {
    if (this.noGpu) return 'Training needs WebGPU, which this browser does not provide.';
    if (!this.summary) return 'Load a backbone above first.';
    if (!this.data.summary) return 'Pick a triplet file first.';
    return '';
  }

  private _onK(event: Event) {
    const field = event.target as HTMLInputElement;
    const k = Number(field.value);
    const ok = inRange(k, K_RANGE);
    markField(field, ok ? '' : `${K_RANGE_MESSAGE}.`);
    if (ok) this._trainK = k;
  }

  private _request(resume: boolean): TrainRequest | null {
    const values = this.recipe.runValues();
    const recipe = this.recipe.recipeSettings();
    if (!values || !recipe) return null;
    const probes = this._probeTexts();
    if (!probes) return null;
    const pause = this.renderRoot.querySelector<HTMLInputElement>('#pause-on-alarm')?.checked ?? false;
    return {
      k: this.trainK,
      resume,
      ...values,
      ...recipe,
      probes,
      stopOnAlarm: pause,
      ignoreAlarms: resume ? this._alarms.map((a) => a.rule) : [],
    };
  }

  /** The probe texts typed (one per line), or null after saying what is wrong. */
  private _probeTexts(): ProbeText[] | null {
    const read = (id: string, role: ProbeText['role']) =>
      (this.renderRoot.querySelector<HTMLTextAreaElement>(`#${id}`)?.value ?? '')
        .split('\n')
        .map((text) => text.trim())
        .filter(Boolean)
        .map((text) => ({ role, text }));
    const probes = [...read('probe-queries', 'query'), ...read('probe-documents', 'document')];
    const field = this.renderRoot.querySelector<HTMLTextAreaElement>('#probe-queries');
    const tooMany = probes.length > PROBE_LIMITS.texts;
    if (field) markField(field, tooMany ? `At most ${PROBE_LIMITS.texts} probe texts in all.` : '');
    return tooMany ? null : probes;
  }

  private async _train(resume: boolean) {
    const client = this.client;
    const request = this._request(resume);
    if (!client || !request) return;
    this._reports = [];
    this._saved = -1;
    this._probes = null;
    if (!resume) this._alarms = [];
    this._notes = [];
    let total = request.steps ?? 0;
    const result = await this.job.run(
      {
        starting: resume
          ? `Resuming from step ${this.checkpoint.value?.step ?? 0}…`
          : 'Starting: uploading the model and compiling the GPU kernels…',
        cancel: () => client.cancelJob(),
        cancelling: 'Cancelling after the current step…',
        cancelled: () =>
          `Cancelled${this._reports.length ? ` after step ${this._reports.at(-1)!.step + 1}` : ''}; the last checkpoint is kept and can be resumed.`,
        failed: (failure) => `Training stopped: ${failure.message}`,
      },
      (progress) =>
        client.train(request, (event) => {
          if (event.kind === 'start') {
            total = event.recipe.schedule.totalSteps;
            const r = event.recipe;
            this._provenance = `${event.provenance}; batch ${r.batchSize}, lengths ${r.queryLength}/${r.documentLength}, ${total} steps`;
          } else if (event.kind === 'report') {
            this._reports = [...this._reports, event.report];
            const r = event.report;
            const left = (total - r.step - 1) * r.msPerStep;
            progress(
              `Step ${r.step + 1} of ${total} · about ${formatDuration(r.msPerStep)} per step and ${Math.round(r.tokensPerSecond)} tokens/s (measured over the last steps) · ${formatDuration(left)} left`,
            );
          } else if (event.kind === 'checkpoint') {
            this._saved = event.step;
          } else if (event.kind === 'probe') {
            this._probes = { start: this._probes?.start ?? event.snapshot, latest: event.snapshot };
          } else if (event.kind === 'note') {
            this._notes = [...this._notes, event.note];
          } else if (event.kind === 'teacher') {
            if (event.warning) this._notes = [...this._notes, event.warning];
          } else if (event.kind === 'caching') {
            progress(
              `Caching the run's batches in this browser (so that a reload can resume without the file): ${event.done} of ${event.total}`,
            );
          } else if (!this._alarms.some((a) => a.rule === event.alarm.rule)) {
            this._alarms = [...this._alarms, event.alarm];
          }
        }),
    );
    if (result?.paused) {
      this.job.setStatus(
        `Paused at step ${result.step} on ${result.paused.reason}. The checkpoint is kept: Resume goes on, and this alarm will not pause it again.`,
      );
    } else if (result) {
      this.job.setStatus(
        `Done: step ${result.step} of ${total}${Number.isFinite(result.msPerStep) ? `, ${formatDuration(result.msPerStep)} per step on average` : ''}.`,
      );
    }
    this.runsFinished++;
    this.data.cacheChanged();
    this.dispatchEvent(new CustomEvent('runs-change', { bubbles: true, composed: true }));
    this.requestUpdate();
  }

  private _onCancel() {
    this.job.cancel();
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'train-panel': TrainPanel;
  }
}
