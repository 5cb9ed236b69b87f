// <term-table>: one score split into the terms query and document share: term, query weight, document weight, their
// product and its share of the score (small shares with the digits they need, not 0.0%), largest first; terms the
// model added to the query are marked.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { TermContribution } from '../../worker/api.ts';
import { formatShare } from './format.ts';
import { baseStyles, termTableStyles } from './theme.ts';

/** Rows a table shows by default (the rest are summed in a last row). */
export const TERM_ROWS = 8;

@customElement('term-table')
export class TermTable extends LitElement {
  @property({ attribute: false }) terms: TermContribution[] = [];
  /** Rows shown (the rest are summed in a last row). */
  @property({ type: Number }) limit = TERM_ROWS;

  static override styles = [
    baseStyles,
    termTableStyles,
    css`
      th,
      td {
        text-align: right;
      }
      th:first-child,
      td:first-child {
        text-align: left;
      }
    `,
  ];

  override render() {
    if (this.terms.length === 0) return html`<p class="muted">No shared term.</p>`;
    const shown = this.terms.slice(0, this.limit);
    const rest = this.terms.slice(this.limit);
    const restProduct = rest.reduce((sum, t) => sum + t.product, 0);
    return html`<table>
      <thead>
        <tr>
          <th scope="col">term</th>
          <th scope="col">query</th>
          <th scope="col">doc</th>
          <th scope="col">product</th>
          <th scope="col">share</th>
        </tr>
      </thead>
      <tbody>
        ${shown.map(
          (t) =>
            html`<tr data-product=${t.product}>
              <td class=${t.expansion ? 'expansion' : ''}>
                ${t.term}${t.expansion ? html` <span class="muted">(expansion)</span>` : nothing}
              </td>
              <td>${t.query.toFixed(3)}</td>
              <td>${t.document.toFixed(3)}</td>
              <td>${t.product.toFixed(4)}</td>
              <td>${formatShare(t.share)}</td>
            </tr>`,
        )}
        ${
          rest.length
            ? html`<tr class="rest" data-product=${restProduct}>
                <td class="muted">${rest.length} more terms</td>
                <td></td>
                <td></td>
                <td>${restProduct.toFixed(4)}</td>
                <td>${formatShare(rest.reduce((sum, t) => sum + t.share, 0))}</td>
              </tr>`
            : nothing
        }
      </tbody>
    </table>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'term-table': TermTable;
  }
}
