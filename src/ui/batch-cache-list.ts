// <batch-cache-list>: the batches cached in this browser (what data, which batch shape, how many, how large), each
// usable for training without its file (after a reload) and clearable; `use-cache` and `clear-cache` events ask the
// panel to act.
import { LitElement, css, html, nothing } from 'lit';
import type { BatchCacheEntry } from '../worker/api.ts';
import { formatBytes } from './format.ts';
import { baseStyles, tableStyles } from './theme.ts';

/** "batch 2, lengths 8/16, seed 1" (with ", 3 negatives" before the seed when there are more than one), on one line. */
function shapeText({ shape, seed }: BatchCacheEntry): string {
  const negatives = (shape.negatives ?? 1) > 1 ? `, ${shape.negatives} negatives` : '';
  return `batch ${shape.batchSize}, lengths ${shape.queryLength}/${shape.documentLength}${negatives}, seed ${seed}`;
}

export class BatchCacheList extends LitElement {
  static override properties = {
    entries: { attribute: false },
    disabled: { type: Boolean },
  };

  declare entries: BatchCacheEntry[];
  declare disabled: boolean;

  static override styles = [
    baseStyles,
    tableStyles,
    css`
      :host {
        display: block;
      }
    `,
  ];

  constructor() {
    super();
    this.entries = [];
    this.disabled = false;
  }

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

customElements.define('batch-cache-list', BatchCacheList);

declare global {
  interface HTMLElementTagNameMap {
    'batch-cache-list': BatchCacheList;
  }
}
