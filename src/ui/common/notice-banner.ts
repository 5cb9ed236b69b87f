// <notice-banner>: an error, warning or note in plain words, with optional action buttons (retry, reload, dismiss).
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { baseStyles } from './theme.ts';

export interface NoticeAction {
  /** Sent back in the `notice-action` event. */
  id: string;
  label: string;
}

export type NoticeTone = 'error' | 'warning' | 'info';

@customElement('notice-banner')
export class NoticeBanner extends LitElement {
  @property({ type: String, reflect: true }) tone: NoticeTone = 'info';
  @property({ type: String }) heading = '';
  /** Plain-language explanation; may hold several lines. */
  @property({ type: String }) message = '';
  @property({ attribute: false }) actions: NoticeAction[] = [];

  static override styles = [
    baseStyles,
    css`
      :host {
        display: block;
      }
      .box {
        border: 2px solid var(--tone);
        border-left-width: 8px;
        border-radius: 4px;
        padding: 0.6em 0.9em;
        background: #fff;
      }
      :host([tone='error']) {
        --tone: #d55e00;
      }
      :host([tone='warning']) {
        --tone: #e69f00;
      }
      :host([tone='info']) {
        --tone: #0072b2;
      }
      h2 {
        font-size: 1.05em;
        margin: 0 0 0.3em;
      }
      p {
        margin: 0;
        white-space: pre-line;
      }
      .actions {
        margin-top: 0.5em;
        display: flex;
        gap: 0.5em;
      }
    `,
  ];

  override render() {
    const icon = this.tone === 'error' ? '✖' : this.tone === 'warning' ? '⚠' : 'ℹ';
    return html`<div class="box" role=${this.tone === 'error' ? 'alert' : 'status'}>
      <h2><span aria-hidden="true">${icon}</span> ${this.heading}</h2>
      <p>${this.message}</p>
      ${
        this.actions.length === 0
          ? nothing
          : html`<div class="actions">
              ${this.actions.map((a) => html`<button data-action=${a.id} @click=${() => this._act(a.id)}>${a.label}</button>`)}
            </div>`
      }
    </div>`;
  }

  private _act(id: string) {
    this.dispatchEvent(new CustomEvent('notice-action', { detail: { action: id }, bubbles: true, composed: true }));
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'notice-banner': NoticeBanner;
  }
}
