// <search-view>: type a query (or pick one of the set's judged queries) and see its top documents under SPLADE and
// BM25 side by side, each score split into its shared terms (and, when a few terms carry little of it, why), judged-
// relevant hits marked; a hit opens its vector.
import { Task } from '@lit/task';
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import {
  toPageFailure,
  type DocumentView,
  type QueryVectorView,
  type SearchHit,
  type PairAudit,
  type WorkerClient,
} from '../../worker/api.ts';
import '../common/sparse-terms.ts';
import { TERM_ROWS } from '../common/term-table.ts';
import '../common/shared-term-origins.ts';
import '../common/token-origins.ts';
import { formatShare } from '../common/format.ts';
import { baseStyles } from '../common/theme.ts';

export type SearchClient = Pick<WorkerClient, 'search' | 'document' | 'evaluatedQueries'> &
  Partial<Pick<WorkerClient, 'auditPair'>>;

const TOP = 10;
/** Query terms shown above the hits (an expanded query can have hundreds). */
const QUERY_TERMS = 30;

/** Below this share of the first hit's score in its shown terms, the note says where the score is. */
const THIN = 0.5;

/** Milliseconds with the precision their size deserves (a lookup takes hundredths). */
function formatMs(ms: number): string {
  return ms < 1 ? `${ms.toFixed(3)} ms` : ms < 100 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

@customElement('search-view')
export class SearchView extends LitElement {
  @property({ attribute: false }) client: SearchClient | null = null;
  /** Name of the evaluated set the worker keeps (a new evaluation replaces it). */
  @property({ type: String }) set = '';
  /** Changes with every evaluation (the same set may be evaluated again under another k). */
  @property({ type: Number }) generation = 0;
  @state() private _query = '';
  @state() private _opened: DocumentView | null = null;
  /** The searched query's and the opened document's audit (which input token caused each term), once asked for. */
  @state() private _origins: PairAudit | null = null;
  @state() private _auditing = false;

  private readonly queries = new Task(this, {
    task: async ([client, set]) => (client && set ? (await client.evaluatedQueries()).queries : []),
    args: () => [this.client, this.set, this.generation] as const,
  });

  private readonly results = new Task(this, {
    task: async ([client, query]) => (client && query.trim() ? client.search(query, TOP) : null),
    args: () => [this.client, this._query, this.set, this.generation] as const,
  });

  static override styles = [
    baseStyles,
    css`
      :host {
        display: block;
      }
      form {
        display: flex;
        gap: 0.6em;
        flex-wrap: wrap;
        align-items: center;
      }
      #query {
        flex: 1;
        min-width: 20em;
      }
      .columns {
        display: grid;
        grid-template-columns: minmax(0, 1fr) minmax(0, 1fr);
        gap: 1em;
        margin-top: 0.6em;
      }
      ol {
        padding-left: 1.6em;
      }
      li {
        margin-bottom: 0.6em;
      }
      .relevant {
        font-weight: 600;
      }
      .hit-head {
        display: flex;
        gap: 0.6em;
        align-items: baseline;
        flex-wrap: wrap;
      }
      .open {
        font-size: 0.85em;
      }
      .qterm {
        white-space: nowrap;
        margin-right: 0.4em;
      }
    `,
  ];

  override render() {
    if (!this.set) return html`<p class="muted">Evaluate a set first: the search view looks inside the last evaluated set.</p>`;
    const result = this.results.value;
    const error = this.results.error ? toPageFailure(this.results.error).message : '';
    return html`<form @submit=${this._onSubmit}>
        <label for="query">Search ${this.set}:</label>
        <input
          id="query"
          list="judged-queries"
          placeholder="type a query, or pick one of the set's queries"
          .value=${this._query}
        />
        <datalist id="judged-queries">${(this.queries.value ?? []).map((q) => html`<option value=${q.text}></option>`)}</datalist>
        <button type="submit">Search</button>
      </form>
      ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
      ${
        result
          ? html`<p class="muted" id="search-note">
                ${result.queryId ? html`Judged query ${result.queryId}: <span class="relevant">✓ relevant</span> hits are marked.` : "Not one of the set's judged queries: no hit can be marked relevant."}
                Each score is the sum of its terms' products (query weight × document weight). ${this._spread(result.splade)}
              </p>
              ${this._queryVector(result.queryVector)}
              <div class="columns">
                <section aria-labelledby="splade-hits-heading" id="splade-hits">
                  <h4 id="splade-hits-heading">SPLADE</h4>
                  ${this._hits(result.splade, 'splade')}
                </section>
                <section aria-labelledby="bm25-hits-heading" id="bm25-hits">
                  <h4 id="bm25-hits-heading">BM25</h4>
                  ${this._hits(result.bm25, 'bm25')}
                </section>
              </div>`
          : nothing
      }
      ${
        this._opened
          ? html`<section id="opened" aria-label="Document vector">
              <h4>Document ${this._opened.docId} <button class="open" @click=${() => ((this._opened = null), (this._origins = null))}>Close</button></h4>
              <p>${this._opened.text}</p>
              <sparse-terms heading="Its SPLADE vector" level="5" .summary=${this._opened.vector}></sparse-terms>
              ${
                this.client?.auditPair
                  ? this._origins
                    ? html`<h5>Shared with the query "${this._origins.query.text}"</h5>
                        <shared-term-origins id="opened-shared" .pair=${this._origins}></shared-term-origins>
                        <h5>Every term of the document</h5>
                        <token-origins id="opened-origins" .audit=${this._origins.document}></token-origins>`
                    : html`<button id="audit-opened" ?disabled=${this._auditing} @click=${this._audit}>
                        ${this._auditing ? 'Encoding…' : 'Which input tokens caused its terms and the shared ones?'}
                      </button>`
                  : nothing
              }
            </section>`
          : nothing
      }`;
  }

  /** The query's vector as searched: how it was made (a static table's lookup, or the encoder), its time, its terms. */
  private _queryVector(view: QueryVectorView) {
    const how = view.staticTable
      ? 'its tokens weighted by the static table (inference-free: a lookup, no encoder ran)'
      : 'encoded by the model';
    const shown = view.terms.slice(0, QUERY_TERMS);
    return html`<p id="query-vector" data-static=${view.staticTable ? 'yes' : 'no'}>
      Query vector, ${how}, in <span id="query-ms">${formatMs(view.encodeMs)}</span>:
      ${shown.map((t) => html`<span class="qterm" data-term=${t.term} data-weight=${t.weight}>${t.term} <b>${t.weight.toFixed(2)}</b></span> `)}
      ${view.terms.length > shown.length ? html`<span class="muted">and ${view.terms.length - shown.length} more</span>` : nothing}
    </p>`;
  }

  /** Where a score is when its listed terms carry little of it: spread over many shared terms (nearly dense vectors). */
  private _spread(hits: SearchHit[]): string {
    const first = hits[0];
    if (!first || first.terms.length <= TERM_ROWS) return '';
    const shown = first.terms.slice(0, TERM_ROWS).reduce((sum, t) => sum + t.share, 0);
    if (shown >= THIN) return '';
    return (
      `The ${TERM_ROWS} largest products of the first hit make ${formatShare(shown)} of its score; its other ` +
      `${first.terms.length - TERM_ROWS} shared terms make the rest, each a sliver (vectors that share many terms, as ` +
      'nearly dense ones do, spread a score thin), so every share listed is small.'
    );
  }

  private _hits(hits: SearchHit[], system: 'splade' | 'bm25') {
    if (hits.length === 0) return html`<p class="muted">No document shares a term with this query.</p>`;
    return html`<ol>
      ${hits.map(
        (h) =>
          html`<li class=${h.relevant ? 'relevant' : ''} data-doc=${h.docId} data-score=${h.score}>
            <div class="hit-head">
              <span>${h.relevant ? '✓ ' : ''}${h.docId}</span>
              <span class="score">score ${h.score.toFixed(4)}</span>
              ${system === 'splade' ? html`<button class="open" @click=${() => this._open(h.docId)}>Show its vector</button>` : nothing}
            </div>
            <div class="muted">${h.text}</div>
            <term-table .terms=${h.terms}></term-table>
          </li>`,
      )}
    </ol>`;
  }

  private _onSubmit(event: Event) {
    event.preventDefault();
    this._query = this.renderRoot.querySelector<HTMLInputElement>('#query')!.value;
  }

  private async _open(docId: string) {
    if (!this.client) return;
    this._origins = null;
    this._opened = await this.client.document(docId);
  }

  private async _audit() {
    const opened = this._opened;
    const query = this.results.value?.query;
    if (!opened || !query || !this.client?.auditPair) return;
    this._auditing = true;
    try {
      const origins = await this.client.auditPair(query, opened.docId);
      if (this._opened === opened) this._origins = origins;
    } finally {
      this._auditing = false;
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'search-view': SearchView;
  }
}
