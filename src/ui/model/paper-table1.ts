// <paper-table1>: the paper's Table 1 (row-norm statistics of seven backbones), the closest backbone highlighted.
import { LitElement, css, html } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { PAPER_TABLE1, PAPER_TABLE1_SOURCE } from './paper-table1-data.ts';
import { formatStat } from '../common/format.ts';
import { baseStyles, tableStyles } from '../common/theme.ts';

@customElement('paper-table1')
export class PaperTable1 extends LitElement {
  /** Backbone name of the row matching the loaded model ("" for none). */
  @property({ type: String }) highlight = '';

  static override styles = [
    baseStyles,
    tableStyles,
    css`
      th {
        text-align: right;
      }
      th:first-child,
      td:first-child {
        text-align: left;
      }
      tr.match {
        background: #fff3cf;
        font-weight: 600;
      }
      .source {
        font-size: 0.8em;
        max-width: 30em;
      }
    `,
  ];

  override render() {
    return html`<table>
        <caption>
          Reference: the paper's Table 1 (k = 1)
        </caption>
        <thead>
          <tr>
            <th scope="col">backbone</th>
            <th scope="col">params</th>
            <th scope="col">mean</th>
            <th scope="col">max</th>
            <th scope="col">aniso.</th>
          </tr>
        </thead>
        <tbody>
          ${PAPER_TABLE1.map(
            (row) =>
              html`<tr
                class=${row.backbone === this.highlight ? 'match' : ''}
                aria-current=${row.backbone === this.highlight ? 'true' : 'false'}
              >
                <td>${row.backbone}</td>
                <td class="num">${row.params}</td>
                <td class="num">${formatStat(row.meanNorm)}</td>
                <td class="num">${formatStat(row.maxNorm)}</td>
                <td class="num">${formatStat(row.anisotropy)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
      <p class="source muted">
        ${PAPER_TABLE1_SOURCE}. Norms are per-row L2 norms of W_head; anisotropy is the mean cosine similarity of rows.
      </p>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'paper-table1': PaperTable1;
  }
}
