// <head-stats-table>: the head's row-norm statistics at k = 1 and after dividing by k, side by side.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { HeadStatistics } from '../../worker/api.ts';
import { formatK, formatStat } from '../common/format.ts';
import { baseStyles, tableStyles } from '../common/theme.ts';

/** The rows shown, in order; `scales` says whether the figure divides by k (anisotropy does not). */
const ROWS: { key: string; label: string; value: (s: HeadStatistics) => number; scales: boolean }[] = [
  { key: 'mean', label: 'mean row norm', value: (s) => s.summary.mean, scales: true },
  { key: 'max', label: 'max row norm', value: (s) => s.summary.max, scales: true },
  { key: 'p50', label: 'median (p50)', value: (s) => s.summary.p50, scales: true },
  { key: 'p99', label: 'p99', value: (s) => s.summary.p99, scales: true },
  { key: 'std', label: 'standard deviation', value: (s) => s.summary.std, scales: true },
  { key: 'anisotropy', label: 'anisotropy (mean cosine)', value: (s) => s.anisotropy, scales: false },
];

@customElement('head-stats-table')
export class HeadStatsTable extends LitElement {
  @property({ attribute: false }) original: HeadStatistics | null = null;
  @property({ attribute: false }) rescaled: HeadStatistics | null = null;

  static override styles = [
    baseStyles,
    tableStyles,
    css`
      table {
        font-size: 0.95em;
      }
      th[scope='row'] {
        text-align: left;
        font-weight: normal;
      }
      thead th {
        text-align: right;
      }
    `,
  ];

  override render() {
    const { original: before, rescaled: after } = this;
    if (!before || !after) return html``;
    return html`<table>
      <caption>
        This model's head
      </caption>
      <thead>
        <tr>
          <th scope="col"><span class="visually-hidden">statistic</span></th>
          <th scope="col">k = 1</th>
          <th scope="col" data-k="after">k = ${formatK(after.k)}</th>
        </tr>
      </thead>
      <tbody>
        ${ROWS.map(
          (row) =>
            html`<tr data-stat=${row.key}>
              <th scope="row">${row.label}</th>
              <td class="num" data-k="1">${formatStat(row.value(before))}</td>
              <td class="num" data-k="after" title=${row.scales ? 'divided by k' : 'unchanged by k'}>
                ${formatStat(row.value(after))}
              </td>
            </tr>`,
        )}
        ${
          before.summary.nonFiniteRows > 0
            ? html`<tr data-stat="non-finite">
                <th scope="row">rows with NaN or Inf (left out)</th>
                <td class="num" data-k="1">${before.summary.nonFiniteRows}</td>
                <td class="num" data-k="after">${after.summary.nonFiniteRows}</td>
              </tr>`
            : nothing
        }
      </tbody>
    </table>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'head-stats-table': HeadStatsTable;
  }
}
