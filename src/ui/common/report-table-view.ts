// A report's table (contract/report-table.ts, the same tables the CLI prints) drawn in HTML: a caption, a header row,
// numbers formatted by their column and right-aligned, each cell's raw value in data-value for tests and copy.
import { css, html } from 'lit';
import type { ReportTable } from '../../worker/api.ts';

export const reportTableStyles = css`
  table.report {
    border-collapse: collapse;
    font-size: 0.85em;
    margin: 0.3em 0 0.9em;
  }
  table.report caption {
    text-align: left;
    font-weight: 600;
    padding-bottom: 0.2em;
  }
  table.report th,
  table.report td {
    padding: 0.1em 0.5em;
    border-bottom: 1px solid #e3e3e3;
    text-align: right;
    font-variant-numeric: tabular-nums;
  }
  table.report th:first-child,
  table.report td:first-child {
    text-align: left;
    max-width: 28em;
    overflow-wrap: anywhere;
  }
`;

/** The table with `id`; an empty one reads "none". */
export function reportTableView(table: ReportTable, id: string) {
  return html`<table class="report" id=${id}>
    <caption>
      ${table.title}
    </caption>
    <thead>
      <tr>
        ${table.columns.map((c) => html`<th scope="col">${c.name}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${
        table.rows.length === 0
          ? html`<tr>
              <td colspan=${table.columns.length} class="muted">none</td>
            </tr>`
          : table.rows.map(
              (row) =>
                html`<tr>
                  ${row.map((value, i) => {
                    const format = table.columns[i].format ?? String;
                    return html`<td data-value=${String(value)}>${typeof value === 'number' ? format(value) : value}</td>`;
                  })}
                </tr>`,
            )
      }
    </tbody>
  </table>`;
}
