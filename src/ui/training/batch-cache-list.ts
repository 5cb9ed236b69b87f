// <batch-cache-list>: the batches cached in this browser (what data, which batch shape, how many, how large), each
// usable for training without its file (after a reload) and clearable; `use-cache` and `clear-cache` events ask the
// panel to act.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { BatchCacheEntry } from '../../worker/api.ts';
import { formatBytes } from '../common/format.ts';
import { baseStyles, tableStyles } from '../common/theme.ts';

/** A cache's batch shape on one line (a line break inside the cell would show in its text). */
function shapeText(e: BatchCacheEntry): string {
  const negatives = (e.shape.negatives ?? 1) > 1 ? `, ${e.shape.negatives} negatives` : '';
  return `batch ${e.shape.batchSize}, lengths ${e.shape.queryLength}/${e.shape.documentLength}${negatives}, seed ${e.seed}`;
}

@customElement('batch-cache-list')
export class BatchCacheList extends LitElement {
  @property({ attribute: false }) entries: BatchCacheEntry[] = [];
  @property({ type: Boolean }) disabled = false;

  static override styles = [
    baseStyles,
    tableStyles,
    css`
      :host {
        display: block;
      }
    `,
  ];

  private ask(kind: 'use-cache' | 'clear-cache', fingerprint?: string) {
    this.dispatchEvent(new CustomEvent(kind, { detail: { fingerprint }, bubbles: true, composed: true }));
  }

  override render() {
    if (this.entries.length === 0) return html`<p class="muted" id="no-cached-batches">No batches cached in this browser.</p>`;
    const total = this.entries.reduce((sum, e) => sum + e.bytes, 0);
    return html`<table aria-label="Cached batches">
        <thead>
          <tr>
            <th>Data</th>
            <th>Batches</th>
            <th>Shape</th>
            <th>Size</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          ${this.entries.map(
            (e) =>
              html`<tr data-fingerprint=${e.fingerprint}>
                <td>${e.data.name} (${e.data.triplets} triplets)</td>
                <td>${e.batches}</td>
                <td>${shapeText(e)}</td>
                <td>${formatBytes(e.bytes)}</td>
                <td>
                  <button class="use-cache" ?disabled=${this.disabled} @click=${() => this.ask('use-cache', e.fingerprint)}>
                    Train from these
                  </button>
                  <button class="clear-cache" ?disabled=${this.disabled} @click=${() => this.ask('clear-cache', e.fingerprint)}>
                    Clear
                  </button>
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
      <p class="muted">
        ${formatBytes(total)} in all.
        ${this.entries.length > 1 ? html`<button id="clear-all-caches" ?disabled=${this.disabled} @click=${() => this.ask('clear-cache')}>Clear all</button>` : nothing}
      </p>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'batch-cache-list': BatchCacheList;
  }
}
