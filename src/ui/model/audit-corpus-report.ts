// <audit-corpus-report>: where a few texts' SPLADE weight goes, as the CLI's `audit --corpus` reports it: by origin
// (input terms, expansions) and by kind of piece as a table and a bar chart, the most frequent expansions and the terms
// active in the most texts; downloadable as TSV (the CLI's --out blocks) or JSON, the chart as SVG or PNG.
import { LitElement, css, html, svg } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { KIND_NAMES, PIECE_KINDS, corpusTables, tablesTsv, type CorpusAudit } from '../../worker/api.ts';
import '../common/chart-download.ts';
import { downloadFile } from '../common/download.ts';
import { formatK } from '../common/format.ts';
import { reportTableStyles, reportTableView } from '../common/report-table-view.ts';
import { OKABE_ITO, baseStyles } from '../common/theme.ts';

/** Chart geometry (view box units): label column, bar length at 100%, row height. */
const LABEL_W = 150;
const BAR_W = 330;
const ROW_H = 22;
const TOP = 26;

@customElement('audit-corpus-report')
export class AuditCorpusReport extends LitElement {
  @property({ attribute: false }) audit: CorpusAudit | null = null;
  /** The model's name, in file names and the JSON. */
  @property({ type: String }) model = '';

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
        flex-wrap: wrap;
        align-items: center;
        margin: 0.3em 0 0.6em;
      }
      .pair {
        display: grid;
        grid-template-columns: minmax(0, 1fr) minmax(0, 1fr);
        gap: 1.5em;
        align-items: start;
      }
      svg {
        max-width: 560px;
        width: 100%;
        height: auto;
        display: block;
      }
    `,
  ];

  override render() {
    const audit = this.audit;
    if (!audit) return html``;
    const [weights, expansions, widespread] = corpusTables(audit);
    const skipped = audit.skipped ? ` (${audit.skipped} blank lines skipped)` : '';
    return html`<p id="corpus-summary">
        At k = ${formatK(audit.k)}: ${audit.documents} texts${skipped}, per text
        <strong id="corpus-mean-dims" data-value=${audit.meanActiveDims}>${audit.meanActiveDims.toFixed(1)}</strong> active
        dimensions and a summed weight of ${audit.meanWeight.toFixed(2)}.
        <span class="muted">Subword pieces: ${audit.subwordMarking}; stop words: ${audit.stopWords}.</span>
      </p>
      <div class="downloads">
        <button id="corpus-tsv" @click=${() => this._download('tsv')}>Download TSV</button>
        <button id="corpus-json" @click=${() => this._download('json')}>Download JSON</button>
        <chart-download name=${this._fileName()}></chart-download>
      </div>
      <div class="pair">${this._chart(audit)} ${reportTableView(weights, 'corpus-weights')}</div>
      <div class="pair">${reportTableView(expansions, 'corpus-expansions')} ${reportTableView(widespread, 'corpus-widespread')}</div>`;
  }

  /** One bar per kind of piece (its share of the weight), split into the part on the texts' own terms and on expansions. */
  private _chart(audit: CorpusAudit) {
    const rows = [
      { name: 'all terms', share: 1, expansion: audit.origins.expansion.weightShare },
      ...PIECE_KINDS.map((kind) => ({
        name: KIND_NAMES[kind],
        share: audit.kinds[kind].weightShare,
        expansion: audit.kinds[kind].weightShare * audit.kinds[kind].expansionShare,
      })),
    ];
    const height = TOP + rows.length * ROW_H + 30;
    const width = LABEL_W + BAR_W + 70;
    const label = `Share of the summed weight at k = ${formatK(audit.k)} by kind of term: ${rows
      .map((r) => `${r.name} ${(100 * r.share).toFixed(1)}% (${(100 * r.expansion).toFixed(1)}% on expansions)`)
      .join('; ')}`;
    return html`<svg id="corpus-chart" role="img" aria-label=${label} viewBox="0 0 ${width} ${height}">
      <text x="0" y="14" font-size="12" font-weight="600">Where the weight goes at k = ${formatK(audit.k)}</text>
      ${rows.map((row, i) => {
        const y = TOP + i * ROW_H;
        const input = (row.share - row.expansion) * BAR_W;
        const expanded = row.expansion * BAR_W;
        return svg`<g data-kind=${row.name}>
          <text x=${LABEL_W - 6} y=${y + 14} font-size="12" text-anchor="end">${row.name}</text>
          <rect class="input" x=${LABEL_W} y=${y + 3} width=${input} height=${ROW_H - 8} fill=${OKABE_ITO.blue}></rect>
          <rect class="expansion" x=${LABEL_W + input} y=${y + 3} width=${expanded} height=${ROW_H - 8}
            fill=${OKABE_ITO.vermillion}></rect>
          <text x=${LABEL_W + input + expanded + 4} y=${y + 14} font-size="11">${(100 * row.share).toFixed(1)}%</text>
        </g>`;
      })}
      <g transform="translate(${LABEL_W}, ${TOP + rows.length * ROW_H + 8})" font-size="11">
        <rect width="12" height="10" fill=${OKABE_ITO.blue}></rect>
        <text x="16" y="9">the texts' own terms</text>
        <rect x="150" width="12" height="10" fill=${OKABE_ITO.vermillion}></rect>
        <text x="166" y="9">expansions</text>
      </g>
    </svg>`;
  }

  private _fileName(): string {
    const k = this.audit ? formatK(this.audit.k) : '';
    return `audit-${this.model || 'model'}-k${k}`.replace(/[^\w.-]+/g, '-');
  }

  private _download(kind: 'tsv' | 'json') {
    const audit = this.audit;
    if (!audit) return;
    const name = `${this._fileName()}.${kind}`;
    if (kind === 'tsv') downloadFile({ name, type: 'text/tab-separated-values', bytes: tablesTsv(corpusTables(audit)) });
    else downloadFile({ name, type: 'application/json', bytes: JSON.stringify({ model: this.model, ...audit }, null, 2) });
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'audit-corpus-report': AuditCorpusReport;
  }
}
