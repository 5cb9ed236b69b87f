// <eval-panel>: evaluates the loaded model under the page's k on retrieval sets, beside BM25: sets, lengths and
// pruning, progress with time left and cancel, the results table (stored per model, back after a reload), the search
// view, the queries where SPLADE and BM25 differ most, and the evaluated set's vectors and run as files.
import { Task } from '@lit/task';
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import {
  EVAL_DEFAULTS,
  EVAL_LIMITS,
  type EvaluateProgress,
  type ModelSummary,
  type SetEvaluation,
  type WorkerClient,
} from '../../worker/api.ts';
import './dataset-chooser.ts';
import './eval-differences.ts';
import './eval-exports.ts';
import './eval-results-table.ts';
import './index-estimate.ts';
import { formatBytes, formatDuration, formatK } from '../common/format.ts';
import { JobController } from '../common/job-controller.ts';
import { readNumberFields } from '../common/number-fields.ts';
import '../common/panel-explainer.ts';
import './search-view.ts';
import './publish-search.ts';
import { baseStyles, fieldStyles, trainingPanelStyles } from '../common/theme.ts';

export type EvalClient = Pick<
  WorkerClient,
  | 'openDataset'
  | 'evaluate'
  | 'savedEvaluations'
  | 'cancelJob'
  | 'search'
  | 'document'
  | 'evaluatedQueries'
  | 'differences'
  | 'exportEvaluated'
  | 'indexEstimate'
  | 'publishEvaluated'
>;

const FIELDS = [
  { key: 'queryLength', label: 'Query tokens', range: EVAL_LIMITS.queryLength, value: EVAL_DEFAULTS.queryLength },
  { key: 'documentLength', label: 'Document tokens', range: EVAL_LIMITS.documentLength, value: EVAL_DEFAULTS.documentLength },
  { key: 'prune', label: 'Keep top weights (0: all)', range: EVAL_LIMITS.prune, value: EVAL_DEFAULTS.prune },
] as const;

/** Time left of a stage from its rate so far. */
class StageClock {
  private key = '';
  private started = 0;

  left(progress: EvaluateProgress): number {
    const key = `${progress.setIndex} ${progress.stage}`;
    if (key !== this.key) {
      this.key = key;
      this.started = performance.now();
    }
    const elapsed = performance.now() - this.started;
    return progress.done > 0 ? (elapsed / progress.done) * (progress.total - progress.done) : NaN;
  }
}

const STAGE_WORDS = {
  queries: 'encoding queries',
  documents: 'encoding documents',
  search: 'searching',
  bm25: 'indexing for BM25',
} as const;

@customElement('eval-panel')
export class EvalPanel extends LitElement {
  @property({ attribute: false }) client: EvalClient | null = null;
  @property({ attribute: false }) summary: ModelSummary | null = null;
  @property({ type: Number }) k = 1;
  @property({ attribute: false }) hubUrl: string | null = null;
  @property({ type: Boolean, attribute: 'no-gpu' }) noGpu = false;
  @state() private _chosen: string[] = [];
  /** This page's last evaluation (one result per set). */
  @state() private _latest: SetEvaluation[] = [];
  /** The set the worker keeps for the search view ('' before any evaluation). */
  @state() private _kept = '';

  private readonly job = new JobController(this);
  private evaluationsDone = 0;
  private readonly saved = new Task(this, {
    task: async ([client, summary]) => (client && summary ? client.savedEvaluations() : []),
    args: () => [this.client, this.summary, this.evaluationsDone] as const,
  });

  static override styles = [
    baseStyles,
    trainingPanelStyles,
    fieldStyles,
    css`
      :host {
        display: block;
      }
      h3 {
        font-size: 1em;
        margin: 1em 0 0.3em;
      }
    `,
  ];

  override render() {
    const running = this.job.running;
    const ready = !!this.client && !!this.summary && this._chosen.length > 0 && !this.noGpu && !running;
    const saved = this.saved.value ?? [];
    return html`<panel-explainer heading="What am I looking at? (evaluation)">
        <p>
          The loaded model, its head divided by the page's k, encodes every query and document of a retrieval set into a sparse
          vector on the GPU; documents are ranked for each query by the exact dot product s(q, d) = v_q · v_d over an inverted
          index. The measures are trec_eval's, computed the same way as the command line's. BM25 runs on the same set beside it.
          Active dimensions are the non-zero weights per vector, and avg_flops the multiplications an inverted index spends per
          query-document pair.
        </p>
      </panel-explainer>
      <dataset-chooser
        .client=${this.client}
        .hubUrl=${this.hubUrl}
        ?disabled=${running || this.noGpu}
        @sets-change=${(e: CustomEvent<{ chosen: string[] }>) => (this._chosen = e.detail.chosen)}
      ></dataset-chooser>
      <div class="fields">
        ${FIELDS.map((f) => {
          const cap = f.key === 'prune' ? f.range.max : Math.min(f.range.max, this.summary?.maxTokens ?? f.range.max);
          return html`<label class="field"
            >${f.label}
            <input
              id=${f.key}
              type="number"
              min=${f.range.min}
              max=${cap}
              step="1"
              value=${Math.min(f.value, cap)}
              ?disabled=${running}
          /></label>`;
        })}
        <button id="evaluate" class="primary" ?disabled=${!ready} @click=${this._evaluate}>
          Evaluate at k = ${formatK(this.k)}${this._chosen.length > 1 ? ` on ${this._chosen.length} sets` : ''}
        </button>
        ${running ? html`<button id="cancel-eval" @click=${() => this.job.cancel()}>Cancel</button>` : nothing}
        <span class="muted">${this._needs()}</span>
      </div>
      <p id="eval-status" role="status" aria-live="polite">${this.job.status}</p>
      ${this.job.error ? html`<p class="error" role="alert" id="eval-error">${this.job.error}</p>` : nothing}
      ${
        this._latest.length
          ? html`<eval-results-table id="latest" heading="This evaluation" .evaluations=${this._latest}></eval-results-table>
              ${this._memoryLine(this._latest)}`
          : nothing
      }
      ${saved.length ? html`<eval-results-table id="saved" heading="All stored results of this model (kept in this browser)" .evaluations=${saved}></eval-results-table>` : nothing}
      ${
        this._kept
          ? html`<h3>Take the vectors and the run away</h3>
              <eval-exports .client=${this.client} set=${this._kept}></eval-exports>
              <h3>Index and latency estimate</h3>
              <index-estimate
                .client=${this.client}
                .set=${this._kept}
                .generation=${this.evaluationsDone}
                .evaluation=${this._latest.at(-1) ?? null}
              ></index-estimate>
              <h3>Publish as a static search</h3>
              <publish-search .client=${this.client} .set=${this._kept} .generation=${this.evaluationsDone}></publish-search>`
          : nothing
      }
      <h3>Search the evaluated set</h3>
      <search-view .client=${this.client} .set=${this._kept} .generation=${this.evaluationsDone}></search-view>
      ${
        this._kept
          ? html`<h3>Where SPLADE and BM25 differ</h3>
              <eval-differences .client=${this.client} .set=${this._kept} .generation=${this.evaluationsDone}></eval-differences>`
          : nothing
      }
      <p class="provenance muted">
        ${this.summary?.synthetic ? 'The demo backbone is a tiny MLM pretrained on WordNet glosses, never trained for retrieval before this: its results show the machinery and what k does, not what a real model retrieves.' : nothing}
      </p>`;
  }

  private _memoryLine(list: SetEvaluation[]) {
    const m = list.at(-1)?.memory;
    return m
      ? html`<p class="muted" id="eval-memory">
          Memory (estimated before encoding from the first documents, ${m.sampleActiveDims.toFixed(0)} active dimensions each):
          vectors ${formatBytes(m.vectorBytes)}, index ${formatBytes(m.indexBytes)}, GPU batch ${formatBytes(m.gpuBytes)}.
        </p>`
      : nothing;
  }

  private _needs(): string {
    if (this.noGpu) return 'Evaluation encodes on the GPU and needs WebGPU, which this browser does not provide.';
    if (!this.summary) return 'Load a backbone above first.';
    if (this._chosen.length === 0) return 'Read a set first.';
    return '';
  }

  private _settings(): Record<(typeof FIELDS)[number]['key'], number> | null {
    return readNumberFields(this.renderRoot, FIELDS);
  }

  private async _evaluate() {
    const client = this.client;
    const settings = this._settings();
    if (!client || !settings) return;
    const sets = [...this._chosen];
    const clock = new StageClock();
    const results = await this.job.run(
      {
        starting: `Evaluating at k = ${formatK(this.k)}: compiling the GPU kernels…`,
        cancel: () => client.cancelJob(),
        cancelling: 'Cancelling after the current batch…',
        cancelled: () => 'Cancelled: nothing of this evaluation was kept.',
        failed: (failure) => `The evaluation stopped: ${failure.message}`,
      },
      (progress) =>
        client.evaluate({ k: this.k, ...settings, topK: EVAL_DEFAULTS.topK, sets }, (p) => {
          const left = clock.left(p);
          progress(
            `${p.set}${p.sets > 1 ? ` (${p.setIndex + 1} of ${p.sets})` : ''}: ${STAGE_WORDS[p.stage]} ${p.done} of ${p.total}` +
              `${Number.isFinite(left) ? ` · ${formatDuration(left)} left in this stage` : ''}`,
          );
        }),
    );
    if (results) {
      this._latest = results;
      this._kept = results.at(-1)?.set.name ?? '';
      this.job.setStatus(`Done: ${results.map((r) => r.set.name).join(', ')} at k = ${formatK(this.k)}.`);
    }
    this.evaluationsDone++;
    this.requestUpdate();
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'eval-panel': EvalPanel;
  }
}
