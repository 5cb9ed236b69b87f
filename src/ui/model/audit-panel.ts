// <audit-panel>: the expansion audit of a few typed texts by the loaded model: where their SPLADE weight goes at the
// page's k (a corpus report), and the same texts at two k compared (terms gained and lost, each text's change in
// active dimensions and FLOPS). The worker computes both with the CLI's audit (app/model/corpus-audit.ts, audit-diff.ts).
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import {
  AUDIT_LIMITS,
  K_RANGE,
  LESSON_SENTENCE,
  describeRange,
  inRange,
  type AuditDiff,
  type CorpusAudit,
  type ModelSummary,
  type WorkerClient,
} from '../../worker/api.ts';
import '../common/panel-explainer.ts';
import { JobController } from '../common/job-controller.ts';
import { formatK } from '../common/format.ts';
import { baseStyles } from '../common/theme.ts';
import './audit-corpus-report.ts';
import './audit-diff-report.ts';

export type AuditClient = Pick<WorkerClient, 'auditCorpus' | 'auditDiff'>;

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

  @state() private _texts = DEFAULT_AUDIT_TEXTS.join('\n');
  @state() private _ks: [number, number] = [1, 8];
  @state() private _corpus: CorpusAudit | null = null;
  @state() private _diff: { diff: AuditDiff; ks: [number, number] } | null = null;

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

  override willUpdate(changed: Map<PropertyKey, unknown>) {
    // another model's numbers would be mislabelled: a new model clears the reports
    if (changed.has('summary') && changed.get('summary') !== undefined) {
      this._corpus = null;
      this._diff = null;
    }
  }

  override render() {
    const texts = this._textList();
    const ready = !!this.client && !!this.summary && !this.noGpu && !this.job.running && texts.length > 0;
    const ksValid = this._ks.every((k) => inRange(k, K_RANGE));
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
      <div class="actions">
        <button id="audit-run" class="primary" ?disabled=${!ready || tooMany} @click=${this._runCorpus}>
          Report at k = ${formatK(this.k)}
        </button>
        <span>
          <label for="diff-k1">Compare k =</label>
          <input id="diff-k1" type="number" min=${K_RANGE.min} max=${K_RANGE.max} step="any" .value=${String(this._ks[0])}
            @change=${(e: Event) => this._onK(e, 0)} />
          <label for="diff-k2">with k =</label>
          <input id="diff-k2" type="number" min=${K_RANGE.min} max=${K_RANGE.max} step="any" .value=${String(this._ks[1])}
            @change=${(e: Event) => this._onK(e, 1)} />
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
          ? html`<h3>k = ${formatK(this._diff.ks[1])} against k = ${formatK(this._diff.ks[0])}</h3>
              <audit-diff-report .diff=${this._diff.diff} .ks=${this._diff.ks} model=${model}></audit-diff-report>`
          : nothing
      }`;
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
    const ks: [number, number] = [...this._ks];
    const texts = this._textList();
    const starting = `Encoding ${texts.length} texts at k = ${formatK(ks[0])} and k = ${formatK(ks[1])}…`;
    const diff = await this.job.run(this._jobOptions(starting), () => client.auditDiff(texts, ks[0], ks[1], DIFF_TOP));
    if (!diff) return;
    this._diff = { diff, ks };
    this.job.setStatus(`Done: ${diff.texts} texts compared at k = ${formatK(ks[0])} and k = ${formatK(ks[1])}.`);
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
