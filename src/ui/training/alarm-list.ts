// <alarm-list>: the alarms a run raised, each with its step, the evidence, what to change and the ranges it uses.
import { LitElement, css, html, unsafeCSS } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { Alarm } from '../../worker/api.ts';
import { OKABE_ITO, baseStyles } from '../common/theme.ts';

@customElement('alarm-list')
export class AlarmList extends LitElement {
  @property({ attribute: false }) alarms: Alarm[] = [];

  static override styles = [
    baseStyles,
    css`
      :host {
        display: block;
      }
      ul {
        list-style: none;
        padding: 0;
        margin: 0;
      }
      li {
        border-left: 4px solid ${unsafeCSS(OKABE_ITO.orange)};
        padding: 0.3em 0.6em;
        margin: 0 0 0.5em;
        background: #fff8ee;
      }
      li.alarm {
        border-left-color: ${unsafeCSS(OKABE_ITO.vermillion)};
        background: #fff1ec;
      }
      p {
        margin: 0.2em 0;
      }
    `,
  ];

  override render() {
    if (this.alarms.length === 0) return html`<p class="muted" id="no-alarms">No alarm so far.</p>`;
    return html`<ul aria-label="Alarms">
      ${this.alarms.map(
        (a) =>
          html`<li class=${a.severity} data-rule=${a.rule}>
            <p><strong>${a.severity === 'alarm' ? 'Alarm' : 'Warning'} at step ${a.step}: ${a.title}</strong></p>
            <p>${a.evidence}</p>
            <p><strong>What to change:</strong> ${a.advice}</p>
            <details>
              <summary>Ranges used</summary>
              <p>${a.ranges}</p>
            </details>
          </li>`,
      )}
    </ul>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'alarm-list': AlarmList;
  }
}
