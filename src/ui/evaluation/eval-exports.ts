// <eval-exports>: takes the evaluated set away: its document vectors for a search engine (Anserini JSONL, Qdrant,
// Elasticsearch sparse_vector _bulk) and SPLADE's TREC run, as the CLI's encode and eval --run write them.
import { LitElement, css, html } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { toPageFailure, type WorkerClient } from '../../worker/api.ts';
import { downloadFile } from '../common/download.ts';
import { baseStyles } from '../common/theme.ts';

export type EvalExportsClient = Pick<WorkerClient, 'exportEvaluated'>;

type Format = Parameters<WorkerClient['exportEvaluated']>[0];

const FORMATS: { format: Format; label: string; title: string }[] = [
  {
    format: 'anserini',
    label: 'Anserini JSONL',
    title: 'one {"id", "contents", "vector": {term: integer weight}} per document, for Anserini/Pyserini impact indexes',
  },
  {
    format: 'qdrant',
    label: 'Qdrant',
    title:
      'one Qdrant point {"id", "vector": {"splade": {"indices", "values"}}, "payload"} per document, for a named sparse vector',
  },
  {
    format: 'es',
    label: 'Elasticsearch sparse_vector',
    title:
      '_bulk NDJSON: {"index": {"_id"}} then {"splade": {term: weight}, "text"} per document ("." in a term written "__", as Elasticsearch names tokens), for a sparse_vector or rank_features field',
  },
  { format: 'trec', label: 'TREC run', title: "SPLADE's ranking of every judged query, in trec_eval's run format" },
];

@customElement('eval-exports')
export class EvalExports extends LitElement {
  @property({ attribute: false }) client: EvalExportsClient | null = null;
  /** The evaluated set the files come from. */
  @property({ type: String }) set = '';
  @state() private _message = '';

  static override styles = [
    baseStyles,
    css`
      :host {
        display: block;
      }
      .row {
        display: flex;
        flex-wrap: wrap;
        gap: 0.4em;
        align-items: center;
      }
    `,
  ];

  override render() {
    return html`<div class="row">
        <span>Download from ${this.set}:</span>
        ${FORMATS.map((f) => html`<button class="export" data-format=${f.format} title=${f.title} ?disabled=${!this.client || !this.set} @click=${() => this._export(f.format)}>${f.label}</button>`)}
      </div>
      <p class="muted" role="status" id="export-status">${this._message}</p>`;
  }

  private async _export(format: Format) {
    if (!this.client) return;
    try {
      const file = await this.client.exportEvaluated(format);
      downloadFile(file);
      this._message = `Saved ${file.name}.`;
    } catch (error) {
      this._message = `The export failed: ${toPageFailure(error).message}`;
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'eval-exports': EvalExports;
  }
}
