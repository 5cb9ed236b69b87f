// <eval-differences>: the queries where SPLADE and BM25 differ most on the last evaluated set, each with the relevant
// document the better system found and the terms each system scored it by: what expansion buys, and what it costs.
import { Task } from '@lit/task';
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { QueryDifference, WorkerClient } from '../../worker/api.ts';
import '../common/term-table.ts';
import { baseStyles } from '../common/theme.ts';

export type DifferencesClient = Pick<WorkerClient, 'differences'>;

const COUNT = 5;

function rank(r: number | null): string {
  return r === null ? 'not in the top 1000' : `rank ${r}`;
}

@customElement('eval-differences')
export class EvalDifferences extends LitElement {
  @property({ attribute: false }) client: DifferencesClient | null = null;
  @property({ type: String }) set = '';
  /** Changes with every evaluation (the same set may be evaluated again under another k). */
  @property({ type: Number }) generation = 0;

  private readonly differences = new Task(this, {
    task: async ([client, set]) => (client && set ? client.differences(COUNT) : null),
    args: () => [this.client, this.set, this.generation] as const,
  });

  static override styles = [
    baseStyles,
    css`
      :host {
        display: block;
      }
      .columns {
        display: grid;
        grid-template-columns: minmax(0, 1fr) minmax(0, 1fr);
        gap: 1em;
      }
      li {
        margin-bottom: 0.8em;
      }
      .pair {
        display: grid;
        grid-template-columns: auto auto;
        gap: 0.6em;
      }
    `,
  ];

  override render() {
    const d = this.differences.value;
    if (!d) return nothing;
    return html`<p class="muted">
        nDCG@10 per query, SPLADE against BM25 on ${d.set}. For each query, the judged-relevant document the better system ranked
        highest, and how each system scored it (italic terms: the model added them to the query).
      </p>
      <div class="columns">
        <section id="splade-better" aria-label="Where SPLADE does better">
          <h4>SPLADE does better</h4>
          ${this._list(d.spladeBetter)}
        </section>
        <section id="bm25-better" aria-label="Where BM25 does better">
          <h4>BM25 does better</h4>
          ${this._list(d.bm25Better)}
        </section>
      </div>`;
  }

  private _list(items: QueryDifference[]) {
    if (items.length === 0) return html`<p class="muted">No such query.</p>`;
    return html`<ol>
      ${items.map(
        (q) =>
          html`<li data-query=${q.queryId}>
            <strong>${q.query}</strong>
            <div class="muted">
              nDCG@10 SPLADE ${q.spladeNdcg10.toFixed(3)}, BM25 ${q.bm25Ndcg10.toFixed(3)}; document ${q.docId}: SPLADE
              ${rank(q.spladeRank)}, BM25 ${rank(q.bm25Rank)}
            </div>
            <div class="pair">
              <div><span class="muted">SPLADE's terms</span><term-table .terms=${q.spladeTerms} limit="6"></term-table></div>
              <div><span class="muted">BM25's terms</span><term-table .terms=${q.bm25Terms} limit="6"></term-table></div>
            </div>
          </li>`,
      )}
    </ol>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'eval-differences': EvalDifferences;
  }
}
