// <runs-panel>: every run kept in this browser: a sortable table (status, k, lambdas, steps, time, last losses, the
// first evaluation), the storage used, and per run: its details, use its model, evaluate it, export it, delete it
// (after asking); the selected runs are compared below.
import { Task } from '@lit/task';
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { EVAL_DEFAULTS, toPageFailure, type RunRecord, type WorkerClient } from '../../worker/api.ts';
import { downloadFile } from '../common/download.ts';
import { formatBytes, formatDuration, formatK } from '../common/format.ts';
import { JobController } from '../common/job-controller.ts';
import '../common/panel-explainer.ts';
import './run-compare.ts';
import './run-details.ts';
import './take-it-to.ts';
import type { RunExport } from './take-it-to.ts';
import { baseStyles, tableStyles, trainingPanelStyles } from '../common/theme.ts';

export type RunsClient = Pick<
  WorkerClient,
  'runs' | 'deleteRun' | 'storageUsed' | 'useRun' | 'exportRun' | 'evaluateRuns' | 'cancelJob'
>;

type SortKey = 'createdAt' | 'k' | 'lambda' | 'step' | 'loss' | 'ndcg';

const COLUMNS: { key: SortKey; label: string }[] = [
  { key: 'createdAt', label: 'started' },
  { key: 'k', label: 'k' },
  { key: 'lambda', label: 'λq / λd' },
  { key: 'step', label: 'steps' },
  { key: 'loss', label: 'last loss' },
  { key: 'ndcg', label: 'nDCG@10 (first set)' },
];

function sortValue(run: RunRecord, key: SortKey): number | string {
  switch (key) {
    case 'createdAt':
      return run.createdAt;
    case 'k':
      return run.k;
    case 'lambda':
      return run.recipe.lambdaQueries * 1e6 + run.recipe.lambdaDocuments;
    case 'step':
      return run.step;
    case 'loss':
      return run.reports.at(-1)?.total ?? Infinity;
    case 'ndcg':
      return run.evaluations[0]?.splade.metrics.ndcg_cut_10 ?? -1;
  }
}

@customElement('runs-panel')
export class RunsPanel extends LitElement {
  @property({ attribute: false }) client: RunsClient | null = null;
  /** Names of the retrieval sets read in the Evaluate tab (runs can be evaluated on them). */
  @property({ attribute: false }) sets: string[] = [];
  /** Changes whenever runs may have changed elsewhere (a training or a sweep ended). */
  @property({ type: Number }) generation = 0;
  @state() private _selected: Set<string> = new Set();
  @state() private _sort: { key: SortKey; descending: boolean } = { key: 'createdAt', descending: true };
  /** The run whose details are open, if any. */
  @state() private _opened: string | null = null;
  @state() private _message = '';

  private readonly job = new JobController(this);
  private refreshes = 0;
  private readonly runs = new Task(this, {
    task: async ([client]) => (client ? { runs: await client.runs(), bytes: await client.storageUsed() } : null),
    args: () => [this.client, this.generation, this.refreshes] as const,
  });

  static override styles = [
    baseStyles,
    tableStyles,
    trainingPanelStyles,
    css`
      :host {
        display: block;
      }
      /* the tab's section headings, sized as the h4 they were */
      h3 {
        font-size: 1em;
        margin: 1.33em 0;
      }
      table {
        width: 100%;
      }
      th,
      td {
        text-align: left;
      }
      th button {
        font: inherit;
        border: none;
        background: none;
        padding: 0;
        cursor: pointer;
        text-decoration: underline dotted;
      }
      .actions {
        display: flex;
        gap: 0.3em;
        flex-wrap: wrap;
      }
      .actions button {
        font-size: 0.85em;
      }
      .status-failed {
        color: #a33;
      }
    `,
  ];

  override render() {
    const data = this.runs.value;
    const runs = this._sorted(data?.runs ?? []);
    const selected = runs.filter((r) => this._selected.has(r.id));
    return html`<panel-explainer heading="What am I looking at? (runs)">
        <p>
          Every training in this tab, or in a sweep, is a run: its backbone, k, recipe, data, every report, its checkpoints, its
          trained model and its evaluations, kept in this browser (IndexedDB) so that it survives a reload. Select runs to compare
          their curves (the paper's Figure 4), a table like its Table 2 and effectiveness against FLOPS (its Figure 2); evaluate
          them on the sets read in the Evaluate tab.
        </p>
      </panel-explainer>
      <p class="muted" id="storage">
        ${data ? `${data.runs.length} runs${data.bytes !== null ? `; this site stores ${formatBytes(data.bytes)} in this browser` : ''}.` : 'Reading the runs…'}
      </p>
      ${runs.length ? this._table(runs) : html`<p class="muted" id="no-runs">No run yet: train in the Training tab (one run, or a sweep of k).</p>`}
      ${this._details(runs.find((r) => r.id === this._opened))}
      <div class="actions">
        <button
          id="evaluate-runs"
          ?disabled=${selected.length === 0 || this.sets.length === 0 || this.job.running}
          @click=${() => this._evaluate(selected)}
        >
          Evaluate the ${selected.length || ''} selected run${selected.length === 1 ? '' : 's'} on
          ${this.sets.length ? this.sets.join(', ') : 'a set (read one in the Evaluate tab)'}
        </button>
        ${this.job.running ? html`<button id="cancel-runs" @click=${() => this.job.cancel()}>Cancel</button>` : nothing}
      </div>
      <p id="runs-status" role="status" aria-live="polite">${this.job.status || this._message}</p>
      ${this.job.error ? html`<p class="error" role="alert" id="runs-error">${this.job.error}</p>` : nothing}
      <h3>Compare the selected runs</h3>
      <run-compare .runs=${selected}></run-compare>`;
  }

  private _table(runs: RunRecord[]) {
    const arrow = (key: SortKey) => (this._sort.key === key ? (this._sort.descending ? ' ▼' : ' ▲') : '');
    return html`<table id="runs-table">
      <thead>
        <tr>
          <th scope="col"><span class="visually-hidden">select</span></th>
          <th scope="col">backbone</th>
          ${COLUMNS.map((c) => html`<th scope="col" aria-sort=${this._sort.key === c.key ? (this._sort.descending ? 'descending' : 'ascending') : 'none'}><button data-sort=${c.key} @click=${() => this._sortBy(c.key)}>${c.label}${arrow(c.key)}</button></th>`)}
          <th scope="col">status</th>
          <th scope="col">actions</th>
        </tr>
      </thead>
      <tbody>
        ${runs.map((run) => {
          const last = run.reports.at(-1);
          const first = run.evaluations[0];
          return html`<tr data-run=${run.id}>
            <td>
              <input
                type="checkbox"
                aria-label="select run k = ${run.k}"
                .checked=${this._selected.has(run.id)}
                @change=${(e: Event) => this._select(run.id, (e.target as HTMLInputElement).checked)}
              />
            </td>
            <td>
              ${run.model.name}${run.sweep ? html`<br /><span class="muted">sweep run ${run.sweep.index + 1} of ${run.sweep.total}</span>` : nothing}
            </td>
            <td>${new Date(run.createdAt).toLocaleString()}</td>
            <td>${formatK(run.k)}</td>
            <td>
              ${
                run.recipe.inferenceFree
                  ? html`${run.recipe.inferenceFree.trained ? `L1 ${run.recipe.inferenceFree.trained.l1}` : '–'} / ${run.recipe.lambdaDocuments}<br /><span
                      class="muted inference-free"
                      >inference-free${run.recipe.inferenceFree.trained ? ', table trained' : ''}</span
                    >`
                  : html`${run.recipe.lambdaQueries} / ${run.recipe.lambdaDocuments}`
              }${run.recipe.loss ? html`<br /><span class="muted loss">${run.recipe.loss}</span>` : nothing}
            </td>
            <td>
              ${run.step} of ${run.recipe.schedule.totalSteps}<br /><span class="muted">${formatDuration(run.trainingMs)}</span>
            </td>
            <td>${last ? last.total.toPrecision(4) : '–'}</td>
            <td>${first ? `${first.splade.metrics.ndcg_cut_10.toFixed(4)} (${first.set.name})` : '–'}</td>
            <td class="status-${run.status}" title=${run.message}>${run.status}</td>
            <td class="actions">
              <button
                class="details"
                aria-expanded=${String(this._opened === run.id)}
                @click=${() => (this._opened = this._opened === run.id ? null : run.id)}
              >
                Details
              </button>
              <button class="use" ?disabled=${!run.savedModel} @click=${() => this._use(run)}>Use</button>
              <button class="export-model" ?disabled=${!run.savedModel} @click=${() => this._export(run, 'model')}>
                Model (.zip)
              </button>
              <button
                class="export-onnx"
                ?disabled=${!run.savedModel}
                title="the model as one ONNX file: input ids and mask in, the SPLADE vector out (pooling inside)"
                @click=${() => this._export(run, 'onnx')}
              >
                ONNX
              </button>
              <button class="export-json" @click=${() => this._export(run, 'json')}>JSON</button>
              <button class="export-csv" @click=${() => this._export(run, 'csv')}>CSV</button>
              <button class="delete" ?disabled=${run.status === 'running'} @click=${() => this._delete(run)}>Delete</button>
            </td>
          </tr>`;
        })}
      </tbody>
    </table>`;
  }

  private _details(run: RunRecord | undefined) {
    if (!run) return nothing;
    return html`<section id="run-page" aria-label="run details">
      <h3>
        Run k = ${formatK(run.k)} of ${run.model.name}
        <button class="close-details" @click=${() => (this._opened = null)}>Close</button>
      </h3>
      <p>
        <button
          class="audit-run"
          ?disabled=${!run.savedModel}
          title="in the Audit tab: the terms training gained and lost, and each text's change in active dimensions and FLOPS"
          @click=${() => this._audit(run)}
        >
          Audit its vectors against the loaded model at k = ${formatK(run.k)}
        </button>
      </p>
      <run-details .run=${run}></run-details>
      <take-it-to .run=${run} @export-run=${(e: CustomEvent<RunExport>) => this._export(run, e.detail)}></take-it-to>
    </section>`;
  }

  /** Asks the page to open the Audit tab with this run on one side and the loaded model at the run's k on the other. */
  private _audit(run: RunRecord) {
    this.dispatchEvent(new CustomEvent('audit-run', { detail: { id: run.id, k: run.k }, bubbles: true, composed: true }));
  }

  private _sorted(runs: RunRecord[]): RunRecord[] {
    const { key, descending } = this._sort;
    return [...runs].sort((a, b) => {
      const [x, y] = [sortValue(a, key), sortValue(b, key)];
      const order = x < y ? -1 : x > y ? 1 : 0;
      return descending ? -order : order;
    });
  }

  private _sortBy(key: SortKey) {
    this._sort = { key, descending: this._sort.key === key ? !this._sort.descending : key === 'createdAt' || key === 'ndcg' };
  }

  private _select(id: string, on: boolean) {
    const selected = new Set(this._selected);
    if (on) selected.add(id);
    else selected.delete(id);
    this._selected = selected;
  }

  private async _use(run: RunRecord) {
    this.dispatchEvent(new CustomEvent('use-run', { detail: { id: run.id }, bubbles: true, composed: true }));
  }

  private async _export(run: RunRecord, what: 'model' | 'onnx' | 'json' | 'csv') {
    if (!this.client) return;
    try {
      downloadFile(await this.client.exportRun(run.id, what));
      this._message = `Exported run k = ${run.k} (${what}).`;
    } catch (error) {
      this._message = `The export failed: ${toPageFailure(error).message}`;
    }
  }

  private async _delete(run: RunRecord) {
    if (!this.client) return;
    if (
      !confirm(
        `Delete the run k = ${run.k} of ${run.model.name} (${run.step} steps), with its checkpoints and its saved model? This cannot be undone.`,
      )
    )
      return;
    await this.client.deleteRun(run.id);
    this._select(run.id, false);
    this._message = `Deleted the run k = ${run.k}.`;
    this.refreshes++;
    this.requestUpdate();
  }

  private async _evaluate(runs: RunRecord[]) {
    const client = this.client;
    if (!client) return;
    await this.job.run(
      {
        starting: `Evaluating ${runs.length} run(s)…`,
        cancel: () => client.cancelJob(),
        cancelled: () => 'Cancelled: the runs evaluated before are kept.',
        failed: (failure) => `The evaluation stopped: ${failure.message}`,
      },
      (progress) =>
        client.evaluateRuns(
          runs.map((r) => r.id),
          {
            sets: this.sets,
            queryLength: EVAL_DEFAULTS.queryLength,
            documentLength: EVAL_DEFAULTS.documentLength,
            topK: EVAL_DEFAULTS.topK,
            prune: 0,
          },
          (p) => progress(`Run k = ${runs.find((r) => r.id === p.run)?.k}: ${p.set} ${p.stage} ${p.done} of ${p.total}`),
        ),
    );
    if (!this.job.error)
      this.job.setStatus(this.job.status.startsWith('Cancelled') ? this.job.status : `Evaluated ${runs.length} run(s).`);
    this.refreshes++;
    this.requestUpdate();
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'runs-panel': RunsPanel;
  }
}
