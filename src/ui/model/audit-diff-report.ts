// <audit-diff-report>: two sides' vectors of the same texts compared (a model at two k, or runs), as the CLI's
// `audit --against` reports it: the terms the second side gains and loses (heaviest by summed weight) and each text's change in active
// dimensions and FLOPS (its sum of squared weights); downloadable as TSV (the CLI's --out blocks) or JSON.
import { LitElement, css, html } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { diffTables, tablesTsv, type AuditDiff, type ReportTable } from '../../worker/api.ts';
import { downloadFile } from '../common/download.ts';
import { reportTableStyles, reportTableView } from '../common/report-table-view.ts';
import { baseStyles } from '../common/theme.ts';

@customElement('audit-diff-report')
export class AuditDiffReport extends LitElement {
  @property({ attribute: false }) diff: AuditDiff | null = null;
  /** The two sides' names ("demo at k = 8", "run 1a2b3c4d: demo, k = 8, 200 steps"): the second against the first. */
  @property({ attribute: false }) names: readonly [string, string] = ['the model at k = 1', 'the model at k = 8'];

  static override styles = [
    baseStyles,
    reportTableStyles,
    css`
      :host {
        display: block;
      }
      .downloads {
        display: flex;
        gap: 0.4em;
        margin: 0.3em 0 0.6em;
      }
      .terms {
        display: grid;
        grid-template-columns: 1fr 1fr;
        gap: 1em;
        align-items: start;
      }
    `,
  ];

  override render() {
    const diff = this.diff;
    if (!diff) return html``;
    const [gained, lost, perText] = diffTables(diff, this._names(), 0);
    const signed = (value: number, digits: number) => (value > 0 ? '+' : '') + value.toFixed(digits);
    return html`<p id="diff-summary">
        ${this.names[1]} against ${this.names[0]} on ${diff.texts} texts: per text on average, active
        dimensions ${signed(diff.meanDimsChange, 1)} and FLOPS ${signed(diff.meanFlopsChange, 3)};
        ${diff.gainedTerms} terms gained and ${diff.lostTerms} lost in all
        (${diff.gained.length < diff.gainedTerms || diff.lost.length < diff.lostTerms ? 'the heaviest are listed' : 'all listed'}).
      </p>
      <div class="downloads">
        <button id="diff-tsv" @click=${() => this._download('tsv')}>Download TSV</button>
        <button id="diff-json" @click=${() => this._download('json')}>Download JSON</button>
      </div>
      ${reportTableView(this._namedColumns(perText), 'diff-per-text')}
      <div class="terms">${reportTableView(gained, 'diff-gained')} ${reportTableView(lost, 'diff-lost')}</div>`;
  }

  /** The per-text table with its columns named by side ("dims, B" for "against dims"); the TSV keeps the CLI's names. */
  private _namedColumns(table: ReportTable): ReportTable {
    const [first, second] = this.names;
    const name = (column: string) =>
      column.startsWith('against ')
        ? `${column.slice(8)}, ${second}`
        : column === 'dims' || column === 'flops'
          ? `${column}, ${first}`
          : column;
    return { ...table, columns: table.columns.map((c) => ({ ...c, name: name(c.name) })) };
  }

  private _names() {
    return { model: this.names[0], against: this.names[1] };
  }

  private _download(kind: 'tsv' | 'json') {
    const diff = this.diff;
    if (!diff) return;
    const name = `audit-${this.names[0]}-vs-${this.names[1]}`.replace(/[^\w.-]+/g, '-').replace(/-+/g, '-') + `.${kind}`;
    if (kind === 'tsv')
      downloadFile({ name, type: 'text/tab-separated-values', bytes: tablesTsv(diffTables(diff, this._names(), 0)) });
    else {
      const json = { model: this.names[0], against: this.names[1], ...diff };
      downloadFile({ name, type: 'application/json', bytes: JSON.stringify(json, null, 2) });
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'audit-diff-report': AuditDiffReport;
  }
}
