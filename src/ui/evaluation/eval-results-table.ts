// <eval-results-table>: evaluations as the paper reports them: per set and system (SPLADE under k, BM25), nDCG@10,
// MRR@10, Recall@100/1000, MAP, active dimensions, avg_flops, throughput and index size; the mean over several sets.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { meanMetrics, type SetEvaluation, type SystemResult } from '../../worker/api.ts';
import { formatBytes } from '../common/format.ts';
import { baseStyles, tableStyles } from '../common/theme.ts';

const MEASURES: { key: string; label: string }[] = [
  { key: 'ndcg_cut_10', label: 'nDCG@10' },
  { key: 'recip_rank_10', label: 'MRR@10' },
  { key: 'recall_100', label: 'R@100' },
  { key: 'recall_1000', label: 'R@1000' },
  { key: 'map', label: 'MAP' },
];

function measureCells(metrics: Record<string, number>) {
  return MEASURES.map((m) => html`<td class="num" data-measure=${m.key}>${(metrics[m.key] ?? NaN).toFixed(4)}</td>`);
}

@customElement('eval-results-table')
export class EvalResultsTable extends LitElement {
  /** Shown in order; when they are several sets of one batch, their means close the table. */
  @property({ attribute: false }) evaluations: SetEvaluation[] = [];
  @property({ type: String }) heading = 'Results';

  static override styles = [
    baseStyles,
    tableStyles,
    css`
      :host {
        display: block;
        overflow-x: auto;
      }
      table {
        font-size: 0.85em;
      }
      th,
      td {
        padding: 0.2em 0.45em;
        white-space: nowrap;
      }
      td.system {
        white-space: normal;
        min-width: 9em;
      }
      tr.bm25 td,
      tr.bm25 th {
        color: #444;
      }
      tr.mean th,
      tr.mean td {
        border-top: 2px solid #888;
        font-weight: 600;
      }
    `,
  ];

  override render() {
    const list = this.evaluations;
    if (list.length === 0) return nothing;
    const sets = new Set(list.map((e) => e.set.name));
    const sameSettings = list.every((e) => JSON.stringify(e.request) === JSON.stringify(list[0].request));
    const showMean = sets.size > 1 && sets.size === list.length && sameSettings;
    return html`<table>
      <caption>
        ${this.heading}
      </caption>
      <thead>
        <tr>
          <th scope="col">set</th>
          <th scope="col">system</th>
          ${MEASURES.map((m) => html`<th scope="col">${m.label}</th>`)}
          <th scope="col" title="mean non-zero weights per query / per document">active dims q / d</th>
          <th scope="col" title="expected multiplications per query-document pair (sentence-transformers' avg_flops)">
            avg_flops
          </th>
          <th scope="col">docs/s</th>
          <th scope="col">index</th>
        </tr>
      </thead>
      <tbody>
        ${list.map((e) => this._rows(e))} ${showMean ? this._meanRows(list) : nothing}
      </tbody>
    </table>`;
  }

  private _rows(e: SetEvaluation) {
    const r = e.request;
    const s = e.splade;
    const settings = `k = ${r.k}, lengths ${r.queryLength}/${r.documentLength}${r.prune ? `, top ${r.prune} weights` : ''}`;
    return html`<tr class="splade" data-set=${e.set.name} data-k=${r.k}>
        <th scope="row" rowspan=${e.bm25 ? 2 : 1}>
          ${e.set.name}<br /><span class="muted">${e.set.queries} queries, ${e.set.documents} docs</span>
        </th>
        <td class="system">SPLADE (${settings})</td>
        ${measureCells(s.metrics)}
        <td class="num">${s.efficiency.query_active_dims.toFixed(1)} / ${s.efficiency.corpus_active_dims.toFixed(1)}</td>
        <td class="num">${s.efficiency.avg_flops.toFixed(3)}</td>
        <td class="num">${s.documentsPerSecond.toFixed(1)}</td>
        <td class="num">${formatBytes(s.index.memoryBytes)}</td>
      </tr>
      ${e.bm25 ? this._bm25Row(e.bm25, e.set.name) : nothing}`;
  }

  private _bm25Row(b: SystemResult, set: string) {
    return html`<tr class="bm25" data-set=${set}>
      <td class="system">BM25 (k1 0.9, b 0.4)</td>
      ${measureCells(b.metrics)}
      <td class="num">–</td>
      <td class="num">–</td>
      <td class="num">–</td>
      <td class="num">${formatBytes(b.index.memoryBytes)}</td>
    </tr>`;
  }

  private _meanRows(list: SetEvaluation[]) {
    const splade = meanMetrics(list.map((e) => e.splade.metrics));
    const withBm25 = list.filter((e) => e.bm25);
    return html`<tr class="mean splade" data-set="mean">
        <th scope="row" rowspan=${withBm25.length === list.length ? 2 : 1}>mean over ${list.length} sets</th>
        <td>SPLADE (k = ${list[0].request.k})</td>
        ${measureCells(splade)}
        <td colspan="4"></td>
      </tr>
      ${
        withBm25.length === list.length
          ? html`<tr class="mean bm25" data-set="mean">
              <td>BM25</td>
              ${measureCells(meanMetrics(withBm25.map((e) => e.bm25!.metrics)))}
              <td colspan="4"></td>
            </tr>`
          : nothing
      }`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'eval-results-table': EvalResultsTable;
  }
}
