// <sweep-panel>: the paper's answer to "which k?": one run per k (default 1, 2, 4, 8, 16) or per lambda pair of its
// Figure 2 grid, on the loaded backbone and the triplets picked above, one after another in the worker, with
// progress per run and overall, cancel, resume after a reload, and an evaluation of each finished run if asked.
import { Task } from '@lit/task';
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import {
  DEFAULT_SWEEP_KS,
  EVAL_DEFAULTS,
  FIGURE2_LAMBDAS,
  TRAIN_LIMITS,
  type ModelSummary,
  type PageSweepRequest,
  type SweepEvent,
  type SweepPlan,
  type TripletsSummary,
  type WorkerClient,
} from '../../worker/api.ts';
import { formatDuration, formatK } from '../common/format.ts';
import { JobController, type ProgressReport } from '../common/job-controller.ts';
import { readNumberFields } from '../common/number-fields.ts';
import type { SweepRecipeSettings } from '../training/recipe-state.ts';
import { baseStyles, fieldStyles, trainingPanelStyles } from '../common/theme.ts';
import { parseKList } from '../url-state.ts';

export type SweepClient = Pick<WorkerClient, 'sweep' | 'pendingSweep' | 'resumeSweep' | 'cancelJob'>;

const FIELDS = [
  { key: 'steps', label: 'Steps per run', value: 100, range: TRAIN_LIMITS.steps },
  { key: 'batchSize', label: 'Batch (triplets)', value: 8, range: TRAIN_LIMITS.batchSize },
  { key: 'queryLength', label: 'Query tokens', value: 32, range: TRAIN_LIMITS.queryLength },
  { key: 'documentLength', label: 'Document tokens', value: 128, range: TRAIN_LIMITS.documentLength },
] as const;

function runWords(request: { k: number; lambdaQueries?: number; lambdaDocuments?: number }, grid: boolean): string {
  return grid ? `λq ${request.lambdaQueries}, λd ${request.lambdaDocuments}` : `k = ${formatK(request.k)}`;
}

@customElement('sweep-panel')
export class SweepPanel extends LitElement {
  @property({ attribute: false }) client: SweepClient | null = null;
  @property({ attribute: false }) summary: ModelSummary | null = null;
  /** The triplets read in the training panel above (the sweep trains on them). */
  @property({ attribute: false }) triplets: TripletsSummary | null = null;
  /** Sets read in the Evaluate tab (each finished run can be evaluated on them). */
  @property({ attribute: false }) sets: string[] = [];
  /** The page's k: the k of every run of a lambda grid. */
  @property({ type: Number }) k = 1;
  /** The k values the field starts with (a suggested sweep fills them). */
  @property({ attribute: false }) ks: readonly number[] = DEFAULT_SWEEP_KS;
  /** The training form's recipe, peak lr and lambdas, which every run trains with (a lambda grid sets its own lambdas). */
  @property({ attribute: false }) recipe: (() => SweepRecipeSettings | null) | undefined;
  @state() private _grid = false;
  @state() private _ksError = '';

  private readonly job = new JobController(this);
  private finished = 0;
  /** Runs in the sweep that is running. */
  private total = 1;
  private readonly pending = new Task(this, {
    task: async ([client, summary, triplets]) => (client && summary && triplets ? client.pendingSweep() : null),
    args: () => [this.client, this.summary, this.triplets, this.finished] as const,
  });

  static override styles = [
    baseStyles,
    trainingPanelStyles,
    fieldStyles,
    css`
      :host {
        display: block;
      }
      #ks {
        width: 11em;
      }
    `,
  ];

  override render() {
    const running = this.job.running;
    const ready = !!this.client && !!this.summary && !!this.triplets && !running;
    const pending = this.pending.value ?? null;
    return html`<p class="muted">
        Same backbone, triplets, recipe and seed for every run; only k (or the lambdas) changes. The recipe is the training
        form's: its peak lr, λ_q and λ_d (a lambda grid sets its own), optimizer, warm-up, clipping, dropout and micro-batches.
        Each run is kept in the Runs tab with its model; compare them there.
      </p>
      <div class="fields">
        <label class="field"
          >k values
          <input
            id="ks"
            .value=${this.ks.map(formatK).join(', ')}
            ?disabled=${running || this._grid}
            aria-invalid=${String(!!this._ksError)}
        /></label>
        <label
          ><input
            type="checkbox"
            id="grid"
            .checked=${this._grid}
            ?disabled=${running}
            @change=${(e: Event) => (this._grid = (e.target as HTMLInputElement).checked)}
          />
          instead, the lambda grid of the paper's Figure 2 at k = ${formatK(this.k)}</label
        >
        ${FIELDS.map((f) => html`<label class="field">${f.label} <input id="sweep-${f.key}" type="number" value=${f.value} ?disabled=${running} /></label>`)}
        <label
          ><input type="checkbox" id="sweep-evaluate" ?disabled=${running || this.sets.length === 0} /> evaluate each run on
          ${this.sets.length ? this.sets.join(', ') : 'the sets read in the Evaluate tab (none yet)'}</label
        >
      </div>
      ${this._ksError ? html`<p class="error" role="alert">${this._ksError}</p>` : nothing}
      <div class="fields">
        <button id="start-sweep" class="primary" ?disabled=${!ready} @click=${this._start}>Run the sweep</button>
        ${pending ? html`<button id="resume-sweep" ?disabled=${!ready} @click=${() => this._resume(pending)}>Resume the sweep (${pending.finished.length} of ${pending.runs.length} runs done)</button>` : nothing}
        ${running ? html`<button id="cancel-sweep" @click=${() => this.job.cancel()}>Cancel</button>` : nothing}
        <span class="muted"
          >${this.summary ? (this.triplets ? '' : 'Pick triplets above first.') : 'Load a backbone first.'}</span
        >
      </div>
      <p id="sweep-status" role="status" aria-live="polite">${this.job.status}</p>
      ${this.job.error ? html`<p class="error" role="alert" id="sweep-error">${this.job.error}</p>` : nothing}`;
  }

  private _request(): PageSweepRequest | null {
    const values = readNumberFields(this.renderRoot, FIELDS, 'sweep-');
    if (!values) return null;
    const recipe = this.recipe ? this.recipe() : {};
    if (recipe === null) return null;
    const base = { ...recipe, k: this.k, ...values, checkpointEvery: Math.max(1, Math.ceil(values.steps / 4)), resume: false };
    const evaluate = this._evaluation() ?? undefined;
    if (this._grid) return { base, lambdas: FIGURE2_LAMBDAS, evaluate };
    const ks = parseKList(this.renderRoot.querySelector<HTMLInputElement>('#ks')!.value);
    this._ksError = ks ? '' : 'Give k values from 0.25 to 64, separated by commas (at most six).';
    return ks ? { base, ks, evaluate } : null;
  }

  /** The evaluation of each finished run, when asked for: on the sets read in the Evaluate tab. */
  private _evaluation() {
    return this.renderRoot.querySelector<HTMLInputElement>('#sweep-evaluate')?.checked
      ? {
          sets: this.sets,
          queryLength: EVAL_DEFAULTS.queryLength,
          documentLength: EVAL_DEFAULTS.documentLength,
          topK: EVAL_DEFAULTS.topK,
          prune: 0,
        }
      : null;
  }

  private async _start() {
    const request = this._request();
    if (!request || !this.client) return;
    const client = this.client;
    await this._run((progress) => client.sweep(request, (event) => this._onEvent(event, !!request.lambdas, progress)));
  }

  private async _resume(plan: SweepPlan) {
    const client = this.client;
    if (!client) return;
    const grid = new Set(plan.runs.map((r) => r.k)).size === 1 && plan.runs.length > 1;
    const evaluate = this._evaluation();
    await this._run((progress) => client.resumeSweep(plan.id, evaluate, (event) => this._onEvent(event, grid, progress)));
  }

  private async _run(work: (progress: ProgressReport) => Promise<SweepPlan>) {
    const client = this.client!;
    const plan = await this.job.run(
      {
        starting: 'Starting the sweep: uploading the model and compiling the GPU kernels…',
        cancel: () => client.cancelJob(),
        cancelling: 'Cancelling after the current step…',
        cancelled: () =>
          'Cancelled: the finished runs are kept, and the sweep can be resumed (the stopped run from its last checkpoint).',
        failed: (failure) => `The sweep stopped: ${failure.message}`,
      },
      work,
    );
    if (plan) this.job.setStatus(`Done: ${plan.runs.length} runs. Compare them in the Runs tab.`);
    this.finished++;
    this.dispatchEvent(new CustomEvent('runs-change', { bubbles: true, composed: true }));
    this.requestUpdate();
  }

  private _onEvent(event: SweepEvent, grid: boolean, progress: ProgressReport) {
    if (event.kind === 'run-start') {
      this.total = event.total;
      progress(
        `Run ${event.index + 1} of ${event.total} (${runWords(event.request, grid)})${event.resumed ? ', resumed from its checkpoint' : ''}: starting…`,
      );
    } else if (event.kind === 'train' && event.event.kind === 'report') {
      const r = event.event.report;
      const overall = Math.round((100 * (event.index + (r.step + 1) / r.steps)) / this.total);
      const left = (r.steps - r.step - 1) * r.msPerStep;
      progress(
        `Run ${event.index + 1} of ${this.total}: step ${r.step + 1} of ${r.steps} · ${formatDuration(r.msPerStep)} per step · ` +
          `${formatDuration(left)} left in this run · ${overall}% of the sweep · loss ${r.total.toPrecision(4)}`,
      );
    } else if (event.kind === 'run-done') {
      const e = event.evaluations[0];
      progress(
        `Run ${event.index + 1} of ${event.total} done${e ? `: nDCG@10 ${e.splade.metrics.ndcg_cut_10.toFixed(4)} on ${e.set.name}` : ''}.`,
      );
      this.dispatchEvent(new CustomEvent('runs-change', { bubbles: true, composed: true }));
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sweep-panel': SweepPanel;
  }
}
