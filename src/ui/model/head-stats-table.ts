// <head-stats-table>: the head's row-norm statistics at k = 1 and after dividing by k, side by side; at k = 1, which
// divides nothing, one column and a line saying so.
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
      p {
        font-size: 0.85em;
        max-width: 22em;
        margin: 0.4em 0 0;
      }
    `,
  ];

  override render() {
    const { original: before, rescaled: after } = this;
    if (!before || !after) return html``;
    // k = 1 divides nothing: a second column would repeat the first
    const divided = after.k !== before.k;
    return html`<table data-k=${formatK(after.k)}>
        <caption>
          This model's head
        </caption>
        <thead>
          <tr>
            <th scope="col"><span class="visually-hidden">statistic</span></th>
            <th scope="col" data-k="1">k = 1</th>
            ${divided ? html`<th scope="col" data-k="after">k = ${formatK(after.k)}</th>` : nothing}
          </tr>
        </thead>
        <tbody>
          ${ROWS.map(
            (row) =>
              html`<tr data-stat=${row.key}>
                <th scope="row">${row.label}</th>
                <td class="num" data-k="1">${formatStat(row.value(before))}</td>
                ${
                  divided
                    ? html`<td class="num" data-k="after" title=${row.scales ? 'divided by k' : 'unchanged by k'}>
                        ${formatStat(row.value(after))}
                      </td>`
                    : nothing
                }
              </tr>`,
          )}
          ${
            before.summary.nonFiniteRows > 0
              ? html`<tr data-stat="non-finite">
                  <th scope="row">rows with NaN or Inf (left out)</th>
                  <td class="num" data-k="1">${before.summary.nonFiniteRows}</td>
                  ${divided ? html`<td class="num" data-k="after">${after.summary.nonFiniteRows}</td>` : nothing}
                </tr>`
              : nothing
          }
        </tbody>
      </table>
      ${
        divided
          ? nothing
          : html`<p class="muted" id="k1-note">
              At k = 1 the head is used as loaded: dividing by 1 changes nothing. Pick a larger k above to see the divided head
              beside it.
            </p>`
      }`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'head-stats-table': HeadStatsTable;
  }
}
