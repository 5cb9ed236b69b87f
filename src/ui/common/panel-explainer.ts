// <panel-explainer>: a panel's collapsible "What am I looking at?" text, with the formula behind the panel.
import { LitElement, css, html } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { baseStyles } from './theme.ts';

@customElement('panel-explainer')
export class PanelExplainer extends LitElement {
  /** Summary line of the disclosure. */
  @property({ type: String }) heading = 'What am I looking at?';
  /** Whether the text is shown. */
  @property({ type: Boolean, reflect: true }) open = false;

  static override styles = [
    baseStyles,
    css`
      details {
        background: #f3f7fb;
        border-left: 4px solid #0072b2;
        padding: 0.4em 0.8em;
        border-radius: 0 4px 4px 0;
      }
      summary {
        cursor: pointer;
        font-weight: 600;
      }
      ::slotted(.formula) {
        font-family: 'STIX Two Math', 'Cambria Math', Georgia, serif;
        font-size: 1.05em;
        display: block;
        margin: 0.4em 0;
      }
    `,
  ];

  override render() {
    return html`<details ?open=${this.open} @toggle=${this._onToggle}>
      <summary>${this.heading}</summary>
      <slot></slot>
    </details>`;
  }

  private _onToggle(event: Event) {
    this.open = (event.target as HTMLDetailsElement).open;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'panel-explainer': PanelExplainer;
  }
}
