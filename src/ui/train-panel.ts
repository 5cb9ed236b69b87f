// <train-panel>: real SPLADE fine-tuning of the loaded backbone in the worker: a triplet TSV, k and a small recipe,
// start / cancel / resume (IndexedDB checkpoints per model + data + k), live loss and active-dimension charts.
import { Task } from '@lit/task';
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import './drop-zone.ts';
import {
  DEFAULT_PROBES,
  K_RANGE,
  PROBE_LIMITS,
  TRAIN_LIMITS,
  describeRange,
  inRange,
  toPageFailure,
  type Alarm,
  type CheckpointInfo,
  type ModelSummary,
  type NumberRange,
  type ProbeSnapshot,
  type ProbeText,
  type StepReport,
  type TrainRequest,
  type TripletsSummary,
} from '../worker/api.ts';
import './alarm-list.ts';
import './batch-cache-list.ts';
import './probe-view.ts';
import { JobController } from './job-controller.ts';
import { formatBytes, formatDuration, formatK } from './format.ts';
import type { ChartSeries } from './loss-chart.ts';
import './loss-chart.ts';
import './panel-explainer.ts';
import type { TrainingClient } from './training-client.ts';
import { baseStyles, fieldStyles, trainingPanelStyles } from './theme.ts';
import { K_MAX, K_MIN, K_RANGE_MESSAGE } from './url-state.ts';

/** Laptop-sized defaults; the rest of the recipe is the paper's (AdamW, lr 1e-4, warm-up 0.1, λ_q 5e-2, λ_d 3e-3). */
const TRAIN_DEFAULTS = {
  steps: 100,
  batchSize: 8,
  gradAccum: 1,
  queryLength: 32,
  documentLength: 128,
  checkpointEvery: 50,
  peakLr: 1e-4,
  warmupRatio: 0.1,
  maxGradNorm: 1,
  lambdaQueries: 5e-2,
  lambdaDocuments: 3e-3,
} as const;
type Field = keyof typeof TRAIN_DEFAULTS;

/** The part of the form's recipe a calibration shares (see TrainPanel.recipeSettings). */
export type TrainingRecipeSettings = Pick<
  TrainRequest,
  'warmupRatio' | 'maxGradNorm' | 'gradAccum' | 'dropout' | 'optimizer' | 'flopsOver'
>;
/** What a sweep shares: that, the peak lr and the lambdas (see TrainPanel.sweepSettings). */
export type SweepRecipeSettings = TrainingRecipeSettings &
  Required<Pick<TrainRequest, 'peakLr' | 'lambdaQueries' | 'lambdaDocuments'>>;
/**
 * The paper's recipe (PAPER.md): 64 triplets per GPU on 8 GPUs (here 8 accumulated micro-batches), 256 tokens, AdamW
 * at 1e-4 with 10% warm-up, transformers' clipping at 1.0, the backbone's dropout. Heavy for a laptop: one click away.
 */
const PAPER_FIELDS: Partial<Record<Field, number>> = {
  batchSize: 64,
  gradAccum: 8,
  queryLength: 256,
  documentLength: 256,
  peakLr: 1e-4,
  warmupRatio: 0.1,
  maxGradNorm: 1,
  lambdaQueries: 5e-2,
  lambdaDocuments: 3e-3,
};
/** The fields of a run, each bounded by the application's one set of limits (TRAIN_LIMITS). */
const FIELDS: { key: Field; label: string; limit: keyof typeof TRAIN_LIMITS }[] = [
  { key: 'steps', label: 'Steps', limit: 'steps' },
  { key: 'batchSize', label: 'Batch (triplets)', limit: 'batchSize' },
  { key: 'gradAccum', label: 'Micro-batches per step', limit: 'gradAccum' },
  { key: 'queryLength', label: 'Query tokens', limit: 'queryLength' },
  { key: 'documentLength', label: 'Document tokens', limit: 'documentLength' },
  { key: 'checkpointEvery', label: 'Checkpoint every', limit: 'checkpointEvery' },
  { key: 'peakLr', label: 'Peak lr', limit: 'peakLr' },
  { key: 'warmupRatio', label: 'Warm-up (fraction)', limit: 'ratio' },
  { key: 'maxGradNorm', label: 'Clip grad norm (0: off)', limit: 'maxGradNorm' },
  { key: 'lambdaQueries', label: 'λ_q', limit: 'lambda' },
  { key: 'lambdaDocuments', label: 'λ_d', limit: 'lambda' },
];

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
  @state() private _data: TripletsSummary | null = null;
  @state() private _dataError = '';
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
  /** The λ fields, as the saved run is looked up by them. */
  @state() private _lambdas: { lambdaQueries: number; lambdaDocuments: number } = {
    lambdaQueries: TRAIN_DEFAULTS.lambdaQueries,
    lambdaDocuments: TRAIN_DEFAULTS.lambdaDocuments,
  };
  /** The running training: status, error, cancel. */
  private readonly job = new JobController(this);
  /** Bumped after each run, so the saved checkpoint is read again. */
  private runsFinished = 0;
  /** Bumped after the cache changes (a run, a clear), so the cached batches are listed again. */
  private cacheChanges = 0;
  /** The batches cached in this browser (a reloaded tab trains from them without the file). */
  private readonly caches = new Task(this, {
    task: async ([client]) => (client ? client.batchCaches() : []),
    args: () => [this.client, this.cacheChanges] as const,
  });
  /** The newest saved checkpoint for this model + data + k (latest request wins). */
  private readonly checkpoint = new Task(this, {
    task: async ([client, summary, data, k, lambdaQueries, lambdaDocuments]) => {
      this._checkpointError = '';
      return client && summary && data ? client.trainingCheckpoint(k, { lambdaQueries, lambdaDocuments }) : null;
    },
    args: () =>
      [
        this.client,
        this.summary,
        this._data,
        this.trainK,
        this._lambdas.lambdaQueries,
        this._lambdas.lambdaDocuments,
        this.runsFinished,
      ] as const,
    onComplete: (found) => found && this._showRecipe(found),
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

  /** Sets the λ fields (from the converter or the calibrator). */
  setLambdas(lambdas: { lambdaQueries: number; lambdaDocuments: number }): void {
    for (const [key, value] of Object.entries(lambdas)) {
      const field = this.renderRoot.querySelector<HTMLInputElement>(`#${key}`);
      if (field) field.value = String(Number(value.toPrecision(4)));
    }
    this._readLambdas();
  }

  private _onLambda = () => this._readLambdas();

  /** The λ fields as numbers (the paper's where a field is not a valid number), for finding a saved run. */
  private _readLambdas(): void {
    const read = (key: 'lambdaQueries' | 'lambdaDocuments') => {
      const value = Number(this.renderRoot.querySelector<HTMLInputElement>(`#${key}`)?.value);
      return inRange(value, TRAIN_LIMITS.lambda) ? value : TRAIN_DEFAULTS[key];
    };
    this._lambdas = { lambdaQueries: read('lambdaQueries'), lambdaDocuments: read('lambdaDocuments') };
  }

  private get trainK(): number {
    return this._trainK ?? this.k;
  }

  override render() {
    const running = this.job.running;
    const ready = !!this.client && !!this.summary && !!this._data && !this.noGpu && !running;
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
          FLOPS(d) with AdamW, the paper's recipe (lr 1e-4 with warm-up and linear decay, λ_q = 5e-2 and λ_d = 3e-3 ramped up over
          the first third, gradients clipped at 1.0, the backbone's dropout). Several micro-batches per step average their
          gradients, as the paper's 8 GPUs did. Active dimensions count the non-zero vocabulary weights of a vector: the FLOPS
          terms push them down. Checkpoints are kept in this browser (IndexedDB), so a reloaded tab can resume.
        </p>
      </panel-explainer>
      <drop-zone @files-drop=${this._onDrop}>
        <label
          >Triplets (TSV, one per line: query <kbd>Tab</kbd> positive <kbd>Tab</kbd> negative; or JSONL with query or anchor,
          positive, negative):
          <input
            id="triplets"
            type="file"
            accept=".tsv,.txt,.jsonl,.ndjson,text/tab-separated-values,text/plain,application/jsonl"
            @change=${this._onFile}
            ?disabled=${running}
        /></label>
        <span class="muted">or drop the file here</span>
      </drop-zone>
      <details id="hub-data">
        <summary>…or a Hugging Face dataset (its Parquet files)</summary>
        <div class="fields">
          <label class="field"
            >Dataset id
            <input
              id="hub-dataset"
              type="text"
              placeholder="sentence-transformers/msmarco-msmarco-MiniLM-L-6-v3"
              size="44"
              ?disabled=${running}
          /></label>
          <label class="field"
            >Subset <input id="hub-subset" type="text" placeholder="triplet" size="10" ?disabled=${running}
          /></label>
          <label class="field">Split <input id="hub-split" type="text" value="train" size="8" ?disabled=${running} /></label>
          <button id="read-hub" ?disabled=${running || !this.client} @click=${this._onHub}>Read</button>
        </div>
        <p class="muted">Rows are read into this tab's memory: a large dataset (MS MARCO's triplets) needs a few GB.</p>
      </details>
      <p id="data" aria-live="polite">${this._dataLine()}</p>
      <details id="batch-caches" ?open=${!this._data && (this.caches.value?.length ?? 0) > 0}>
        <summary>Batches cached in this browser (${this.caches.value?.length ?? 0})</summary>
        <p class="muted">
          A run caches its tokenized batches here before its first step, so that a reloaded tab can resume it without the file:
          load the same backbone, then train from the cached batches.
        </p>
        <batch-cache-list
          .entries=${this.caches.value ?? []}
          ?disabled=${running}
          @use-cache=${this._onUseCache}
          @clear-cache=${this._onClearCache}
        ></batch-cache-list>
      </details>
      ${this._dataError ? html`<p class="error" role="alert" id="data-error">${this._dataError}</p>` : nothing}
      <div class="fields">
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
        ${FIELDS.map(
          (f) =>
            html`<label class="field"
              >${f.label}
              <input
                id=${f.key}
                type="number"
                min=${TRAIN_LIMITS[f.limit].min}
                max=${TRAIN_LIMITS[f.limit].max}
                step=${(TRAIN_LIMITS[f.limit] as NumberRange).integer ? '1' : 'any'}
                value=${TRAIN_DEFAULTS[f.key]}
                ?disabled=${running}
                @change=${f.limit === 'lambda' ? this._onLambda : nothing}
            /></label>`,
        )}
        <label class="field"
          >Dropout (blank: the backbone's)
          <input
            id="dropout"
            type="number"
            min="0"
            max=${TRAIN_LIMITS.dropout.max}
            step="any"
            placeholder="config"
            ?disabled=${running}
        /></label>
        <label class="field"
          >FLOPS over
          <select id="flops-over" ?disabled=${running}>
            <option value="micro-batch" selected>each micro-batch (as each GPU)</option>
            <option value="step">the whole step</option>
          </select></label
        >
        <label class="field"
          >Optimiser
          <select id="optimizer" ?disabled=${running}>
            <option value="adamw" selected>AdamW</option>
            <option value="sgd">SGD</option>
          </select></label
        >
      </div>
      <p class="muted">
        <button id="paper-recipe" type="button" ?disabled=${running} @click=${this._usePaperRecipe}>
          Use the paper's values
        </button>
        batch 64 × 8 micro-batches (the paper's 8 GPUs), 256 tokens, lr 1e-4 with 10% warm-up, clipping at 1.0, the backbone's
        dropout, λ_q 5e-2 and λ_d 3e-3. Each micro-batch is its own pool of in-batch negatives and its own FLOPS batch.
      </p>
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
        ${this.summary?.synthetic ? ' The demo backbone has random weights: it trains, but its figures say nothing about real models.' : nothing}
      </p>`;
  }

  private _dataLine() {
    const d = this._data;
    if (!d) return this._dataError ? '' : 'No triplets yet.';
    if (d.cacheFingerprint)
      return `${d.name}: ${d.triplets} triplets, from the batches cached in this browser (the file is not loaded).`;
    const notes = [d.header ? 'header line skipped' : '', d.blankLines ? `${d.blankLines} blank lines skipped` : '']
      .filter(Boolean)
      .join(', ');
    return `${d.name}: ${d.triplets} triplets (${formatBytes(d.bytes)})${notes ? `; ${notes}` : ''}.`;
  }

  /** What is still missing before a run can start. */
  private _needs(): string {
    if (this.noGpu) return 'Training needs WebGPU, which this browser does not provide.';
    if (!this.summary) return 'Load a backbone above first.';
    if (!this._data) return 'Pick a triplet file first.';
    return '';
  }

  private _onDrop(event: CustomEvent<File[]>) {
    if (!this.job.running) void this._read(event.detail[0]);
  }

  private _onFile(event: Event) {
    const file = (event.target as HTMLInputElement).files?.[0];
    if (file) void this._read(file);
  }

  private async _read(file: File) {
    if (!this.client) return;
    this._data = null;
    this._dataError = '';
    try {
      this._data = await this.client.readTriplets(file);
      this.dispatchEvent(new CustomEvent('triplets-change', { detail: { summary: this._data }, bubbles: true, composed: true }));
    } catch (error) {
      this._dataError =
        `${file.name} cannot be used for training. ${toPageFailure(error).message}\n` +
        'Each line must be: query, Tab, positive passage, Tab, negative passage; or, in a .jsonl file, {"query": ..., "positive": ..., "negative": ...}.';
    }
  }

  private _onHub = async () => {
    const value = (id: string) => this._field(id).value.trim();
    const repo = value('hub-dataset');
    if (!this.client || !repo) return;
    this._data = null;
    this._dataError = '';
    this.job.setStatus(`Reading ${repo} from the Hub…`);
    try {
      this._data = await this.client.readHubTriplets({
        repo,
        subset: value('hub-subset') || undefined,
        split: value('hub-split') || undefined,
        hubUrl: this.hubUrl ?? undefined,
      });
      this.job.setStatus('');
      this.dispatchEvent(new CustomEvent('triplets-change', { detail: { summary: this._data }, bubbles: true, composed: true }));
    } catch (error) {
      this.job.setStatus('');
      this._dataError = `${repo} cannot be used for training. ${toPageFailure(error).message}`;
    }
  };

  private _onUseCache = async (event: CustomEvent<{ fingerprint: string }>) => {
    if (!this.client) return;
    this._dataError = '';
    try {
      this._data = await this.client.useCachedBatches(event.detail.fingerprint);
      this.dispatchEvent(new CustomEvent('triplets-change', { detail: { summary: this._data }, bubbles: true, composed: true }));
    } catch (error) {
      this._dataError = toPageFailure(error).message;
    }
  };

  private _onClearCache = async (event: CustomEvent<{ fingerprint?: string }>) => {
    if (!this.client) return;
    await this.client.clearBatchCache(event.detail.fingerprint);
    if (
      this._data?.cacheFingerprint &&
      (event.detail.fingerprint === undefined || this._data.cacheFingerprint === event.detail.fingerprint)
    )
      this._data = null;
    this.cacheChanges++;
  };

  private _onK(event: Event) {
    const field = event.target as HTMLInputElement;
    const k = Number(field.value);
    const ok = inRange(k, K_RANGE);
    field.setCustomValidity(ok ? '' : `${K_RANGE_MESSAGE}.`);
    if (!ok) return void field.reportValidity();
    this._trainK = k;
  }

  /** Puts a saved run's settings in the fields (what resuming uses, and a starting point for a new run). */
  private _showRecipe({ recipe }: CheckpointInfo) {
    this._setFields({
      steps: recipe.schedule.totalSteps,
      batchSize: recipe.batchSize,
      gradAccum: recipe.gradAccum ?? 1,
      queryLength: recipe.queryLength,
      documentLength: recipe.documentLength,
      peakLr: recipe.schedule.peakLr,
      warmupRatio: recipe.schedule.warmupRatio,
      maxGradNorm: recipe.maxGradNorm ?? 0,
      lambdaQueries: recipe.lambdaQueries,
      lambdaDocuments: recipe.lambdaDocuments,
    });
    this._field('dropout').value = recipe.dropout === 'config' ? '' : String(recipe.dropout ?? 0);
    this._select('optimizer').value = recipe.optimizer.kind ?? 'adamw';
    this._select('flops-over').value = recipe.flopsOver ?? 'micro-batch';
  }

  private _usePaperRecipe = () => {
    this._setFields(PAPER_FIELDS);
    this._field('dropout').value = '';
    this._select('optimizer').value = 'adamw';
    this._select('flops-over').value = 'micro-batch';
    this._readLambdas();
  };

  private _setFields(values: Partial<Record<Field, number>>): void {
    for (const [key, value] of Object.entries(values)) this._field(key).value = String(value);
  }

  private _field(id: string): HTMLInputElement {
    return this.renderRoot.querySelector<HTMLInputElement>(`#${id}`)!;
  }

  private _select(id: string): HTMLSelectElement {
    return this.renderRoot.querySelector<HTMLSelectElement>(`#${id}`)!;
  }

  /** The numeric fields among `keys`, checked, or null after saying which is wrong. */
  private _values<K extends Field>(keys: readonly K[]): Record<K, number> | null {
    const values = {} as Record<K, number>;
    for (const f of FIELDS) {
      if (!keys.includes(f.key as K)) continue;
      const field = this._field(f.key);
      const value = Number(field.value);
      const ok = field.value.trim() !== '' && inRange(value, TRAIN_LIMITS[f.limit]);
      field.setCustomValidity(ok ? '' : `${f.label} must be ${describeRange(TRAIN_LIMITS[f.limit])}.`);
      if (!ok) {
        field.reportValidity();
        return null;
      }
      values[f.key as K] = value;
    }
    return values;
  }

  /**
   * The form's recipe beyond batch, lengths, lr and lambdas (optimizer, warm-up, clipping, dropout, accumulation), which
   * a calibration trains with so that its lambdas carry over to this form's run; null after saying what is wrong.
   */
  recipeSettings(): TrainingRecipeSettings | null {
    const values = this._values(['warmupRatio', 'maxGradNorm', 'gradAccum'] as const);
    const dropout = this._dropout();
    if (!values || dropout === null) return null;
    return {
      ...values,
      dropout,
      optimizer: this._select('optimizer').value as TrainRequest['optimizer'],
      flopsOver: this._select('flops-over').value as TrainRequest['flopsOver'],
    };
  }

  /** The recipe and also the peak lr and the lambdas, which every run of a sweep trains with; null after saying what is wrong. */
  sweepSettings(): SweepRecipeSettings | null {
    const recipe = this.recipeSettings();
    const values = this._values(['peakLr', 'lambdaQueries', 'lambdaDocuments'] as const);
    return recipe && values ? { ...recipe, ...values } : null;
  }

  private _request(resume: boolean): TrainRequest | null {
    const values = this._values(FIELDS.map((f) => f.key));
    const recipe = this.recipeSettings();
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

  /** The dropout field: undefined (blank: the backbone's), a rate, or null after saying what is wrong. */
  private _dropout(): number | undefined | null {
    const field = this._field('dropout');
    if (field.value.trim() === '') return undefined;
    const rate = Number(field.value);
    const ok = inRange(rate, TRAIN_LIMITS.dropout);
    field.setCustomValidity(ok ? '' : `Dropout must be ${describeRange(TRAIN_LIMITS.dropout)}, or blank for the backbone's.`);
    if (!ok) {
      field.reportValidity();
      return null;
    }
    return rate;
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
    field?.setCustomValidity(tooMany ? `At most ${PROBE_LIMITS.texts} probe texts in all.` : '');
    if (tooMany) {
      field?.reportValidity();
      return null;
    }
    return probes;
  }

  private async _train(resume: boolean) {
    const client = this.client;
    const request = this._request(resume);
    if (!client || !request) return;
    this._reports = [];
    this._saved = -1;
    this._probes = null;
    if (!resume) this._alarms = [];
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
    this.cacheChanges++;
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
