// <audit-panel>: the expansion audit of typed texts (or the evaluated set's documents) by the loaded model: where their
// SPLADE weight goes at the page's k (a corpus report), and the same texts from two sides compared, each the loaded
// model at a k or a stored run's trained model (terms gained and lost, each text's change in active dimensions and
// FLOPS). The worker computes both with the CLI's audit (app/model/corpus-audit.ts, audit-diff.ts).
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import {
  AUDIT_LIMITS,
  K_RANGE,
  LESSON_SENTENCE,
  describeRange,
  inRange,
  type AuditDiff,
  type AuditSide,
  type CorpusAudit,
  type ModelSummary,
  type RunRecord,
  type WorkerClient,
} from '../../worker/api.ts';
import '../common/panel-explainer.ts';
import { JobController } from '../common/job-controller.ts';
import { formatK } from '../common/format.ts';
import { baseStyles } from '../common/theme.ts';
import './audit-corpus-report.ts';
import './audit-diff-report.ts';

export type AuditClient = Pick<WorkerClient, 'auditCorpus' | 'auditDiff'> &
  Partial<Pick<WorkerClient, 'runs' | 'evaluatedDocuments'>>;

/** A handful of sentences on different topics: each expands into its own field's words. */
export const DEFAULT_AUDIT_TEXTS = [
  LESSON_SENTENCE,
  'the doctor gave the patient a vaccine',
  'the court ruled that the contract was void',
  'the striker scored a goal in the last minute',
  'bake the bread in a hot oven until golden',
];

/** Terms per list of the corpus report, and gained and lost terms of the comparison. */
const CORPUS_TOP = 20;
const DIFF_TOP = 50;

@customElement('audit-panel')
export class AuditPanel extends LitElement {
  @property({ attribute: false }) client: AuditClient | null = null;
  @property({ attribute: false }) summary: ModelSummary | null = null;
  /** The page's k: the corpus report is made at it. */
  @property({ type: Number }) k = 1;
  @property({ type: Boolean, attribute: 'no-gpu' }) noGpu = false;
  /** A run sent from its page: it becomes the second side, the loaded model at the run's k the first. */
  @property({ attribute: false }) compareRun: { id: string; k: number } | null = null;

  @state() private _texts = DEFAULT_AUDIT_TEXTS.join('\n');
  @state() private _ks: [number, number] = [1, 8];
  /** Each side's run id, or '' for the loaded model (at that side's k). */
  @state() private _sideRuns: [string, string] = ['', ''];
  /** The stored runs with a saved model, newest first (read when the panel starts and when a side's list is opened). */
  @state() private _runs: RunRecord[] = [];
  @state() private _corpus: CorpusAudit | null = null;
  @state() private _diff: { diff: AuditDiff; names: [string, string] } | null = null;

  private readonly job = new JobController(this);

  static override styles = [
    baseStyles,
    css`
      :host {
        display: block;
      }
      label {
        font-weight: 600;
      }
      textarea {
        display: block;
        width: 100%;
        box-sizing: border-box;
        min-height: 7.5em;
        margin: 0.2em 0 0.6em;
        resize: vertical;
      }
      .actions {
        display: flex;
        flex-wrap: wrap;
        gap: 0.6em 1.2em;
        align-items: center;
      }
      .actions input {
        width: 5em;
      }
      .error {
        border-left: 6px solid #d55e00;
        padding: 0.4em 0.8em;
        background: #fff5ee;
      }
      h3 {
        margin: 1em 0 0.3em;
        font-size: 1.05em;
      }
    `,
  ];

  override firstUpdated() {
    void this._refreshRuns();
  }

  override willUpdate(changed: Map<PropertyKey, unknown>) {
    if (changed.has('compareRun') && this.compareRun) {
      this._sideRuns = ['', this.compareRun.id];
      this._ks = [this.compareRun.k, this._ks[1]];
      void this._refreshRuns();
    }
    // another model's numbers would be mislabelled: a new model clears the reports
    if (changed.has('summary') && changed.get('summary') !== undefined) {
      this._corpus = null;
      this._diff = null;
    }
  }

  override render() {
    const texts = this._textList();
    const ready = !!this.client && !!this.summary && !this.noGpu && !this.job.running && texts.length > 0;
    const ksValid = this._ks.every((k, i) => this._sideRuns[i] !== '' || inRange(k, K_RANGE));
    const tooMany = texts.length > AUDIT_LIMITS.texts;
    const model = this.summary?.name ?? '';
    return html`<panel-explainer>
        <p>
          Which terms carry a SPLADE vector's weight? Each active term is either one of the text's own tokens or an
          <i>expansion</i> the model added. The report sums the weight of the texts' vectors by origin and by kind of piece
          (special tokens, numbers, stop words, subword pieces, other words), and lists the most frequent expansions and the
          terms active in most texts (stop-list candidates). The comparison encodes the same texts at two k: dividing the head
          by a larger k lowers every logit, so terms drop out (lost) and a few may appear (gained); FLOPS of a text is the sum
          of its squared weights, the regulariser's cost of that one vector.
        </p>
        <span class="formula">w<sub>j</sub> = max<sub>t</sub> log(1 + ReLU(h<sub>t</sub> · W_head[j] / k + b[j])),&nbsp;&nbsp;
          FLOPS = Σ<sub>j</sub> w<sub>j</sub><sup>2</sup></span>
      </panel-explainer>
      <label for="audit-texts">Texts, one per line (at most ${AUDIT_LIMITS.texts}, ${AUDIT_LIMITS.maxLength} tokens each)</label>
      <textarea id="audit-texts" .value=${this._texts} @input=${this._onTexts}></textarea>
      ${
        this.client?.evaluatedDocuments
          ? html`<p>
              <button id="audit-use-set" ?disabled=${this.job.running} @click=${this._useEvaluatedSet}>
                Use the evaluated set's documents
              </button>
              <span class="muted">(the first ${AUDIT_LIMITS.texts}, as the last evaluation encoded them)</span>
            </p>`
          : nothing
      }
      <div class="actions">
        <button id="audit-run" class="primary" ?disabled=${!ready || tooMany} @click=${this._runCorpus}>
          Report at k = ${formatK(this.k)}
        </button>
        <span>
          ${this._side(0, 'Compare')} ${this._side(1, 'with')}
          <button id="diff-run" ?disabled=${!ready || tooMany || !ksValid} @click=${this._runDiff}>Compare</button>
        </span>
      </div>
      ${tooMany ? html`<p class="error" role="alert">${texts.length} texts: the page audits at most ${AUDIT_LIMITS.texts} at once.</p>` : nothing}
      ${ksValid ? nothing : html`<p class="error" role="alert">k must be ${describeRange(K_RANGE)}.</p>`}
      ${this.noGpu ? html`<p class="muted">The audit needs WebGPU, which this browser does not provide.</p>` : nothing}
      <p id="audit-status" role="status" aria-live="polite">${this.job.status}</p>
      ${this.job.error ? html`<p class="error" role="alert" id="audit-error">${this.job.error}</p>` : nothing}
      ${
        this._corpus
          ? html`<h3>Where the weight goes</h3>
              <audit-corpus-report .audit=${this._corpus} model=${model}></audit-corpus-report>`
          : nothing
      }
      ${
        this._diff
          ? html`<h3>${this._diff.names[1]} against ${this._diff.names[0]}</h3>
              <audit-diff-report .diff=${this._diff.diff} .names=${this._diff.names}></audit-diff-report>`
          : nothing
      }`;
  }

  /** One side of the comparison: the loaded model (at a k) or a stored run; ids diff-model-a/-b, diff-k1/-k2. */
  private _side(which: 0 | 1, label: string) {
    const [model, k] = which === 0 ? ['diff-model-a', 'diff-k1'] : ['diff-model-b', 'diff-k2'];
    const runs = this._runs;
    return html`<label for=${model}>${label}</label>
      <select id=${model} @focus=${this._refreshRuns} @change=${(e: Event) => this._onSideRun(e, which)}>
        <option value="" ?selected=${this._sideRuns[which] === ''}>the loaded model</option>
        ${runs.map((r) => html`<option value=${r.id} ?selected=${this._sideRuns[which] === r.id}>${this._runName(r)}</option>`)}
      </select>
      ${
        this._sideRuns[which] === ''
          ? html`<label for=${k}>at k =</label>
              <input id=${k} type="number" min=${K_RANGE.min} max=${K_RANGE.max} step="any" .value=${String(this._ks[which])}
                @change=${(e: Event) => this._onK(e, which)} />`
          : nothing
      }`;
  }

  private _runName(run: RunRecord): string {
    return `${run.model.name} trained at k = ${formatK(run.k)}, ${run.step} steps (run of ${new Date(run.createdAt).toLocaleString()})`;
  }

  /** A side's name in headings, tables and file names. */
  private _sideName(side: AuditSide): string {
    if (side.kind === 'loaded') return `${this.summary?.name || 'the model'} at k = ${formatK(side.k)}`;
    const run = this._runs.find((r) => r.id === side.id);
    return run ? this._runName(run) : `run ${side.id}`;
  }

  private async _refreshRuns() {
    const runs = await this.client?.runs?.().catch(() => null);
    if (runs) this._runs = runs.filter((r) => r.savedModel !== null).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  private _onSideRun(event: Event, which: 0 | 1) {
    const runs: [string, string] = [...this._sideRuns];
    runs[which] = (event.target as HTMLSelectElement).value;
    this._sideRuns = runs;
  }

  private async _useEvaluatedSet() {
    const client = this.client;
    if (!client?.evaluatedDocuments) return;
    const read = await this.job.run(this._jobOptions('Reading the evaluated set…'), () =>
      client.evaluatedDocuments!(AUDIT_LIMITS.texts),
    );
    if (!read) return;
    // one text per line: a document's own line breaks become spaces
    this._texts = read.texts.map((text) => text.replace(/\s+/g, ' ').trim()).join('\n');
    this.job.setStatus(`Texts: the first ${read.texts.length} of the ${read.total} documents of ${read.set}.`);
  }

  /** The typed texts, blank lines left out. */
  private _textList(): string[] {
    return this._texts.split('\n').filter((line) => line.trim() !== '');
  }

  private _onTexts(event: Event) {
    this._texts = (event.target as HTMLTextAreaElement).value;
  }

  private _onK(event: Event, which: 0 | 1) {
    const ks: [number, number] = [...this._ks];
    ks[which] = Number((event.target as HTMLInputElement).value);
    this._ks = ks;
  }

  private async _runCorpus() {
    const client = this.client;
    if (!client) return;
    const k = this.k;
    const texts = this._textList();
    const audit = await this.job.run(this._jobOptions(`Auditing ${texts.length} texts at k = ${formatK(k)}…`), () =>
      client.auditCorpus(texts, k, CORPUS_TOP),
    );
    if (!audit) return;
    this._corpus = audit;
    this.job.setStatus(`Done: ${audit.documents} texts at k = ${formatK(k)}.`);
  }

  private async _runDiff() {
    const client = this.client;
    if (!client) return;
    const sides = [0, 1].map((i): AuditSide => {
      const run = this._sideRuns[i];
      return run === '' ? { kind: 'loaded', k: this._ks[i] } : { kind: 'run', id: run };
    }) as [AuditSide, AuditSide];
    const names: [string, string] = [this._sideName(sides[0]), this._sideName(sides[1])];
    const texts = this._textList();
    const starting = `Encoding ${texts.length} texts with ${names[0]} and with ${names[1]}…`;
    const diff = await this.job.run(this._jobOptions(starting), () => client.auditDiff(texts, sides, DIFF_TOP));
    if (!diff) return;
    this._diff = { diff, names };
    this.job.setStatus(`Done: ${diff.texts} texts compared, ${names[1]} against ${names[0]}.`);
  }

  private _jobOptions(starting: string) {
    return {
      starting,
      cancel: () => undefined,
      cancelled: () => 'Stopped.',
      failed: (failure: { message: string }) => `The audit stopped: ${failure.message}`,
    };
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'audit-panel': AuditPanel;
  }
}
