// <k-control>: the divisor k of the MLM head, as a log-scale slider, a number field and one-press presets.
import { LitElement, css, html } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { K_RANGE, inRange } from '../../worker/api.ts';
import { K_MAX, K_MIN, K_RANGE_MESSAGE } from '../url-state.ts';
import { formatK } from '../common/format.ts';
import { baseStyles } from '../common/theme.ts';

/** Slider positions are log2(k) in quarter steps: four arrow presses double k. */
const SLIDER_STEP = 0.25;
const PRESETS = [1, 2, 4, 8, 16];

@customElement('k-control')
export class KControl extends LitElement {
  /** The current divisor (k = 1 is plain SPLADE). */
  @property({ type: Number }) k = 1;

  static override styles = [
    baseStyles,
    css`
      :host {
        display: block;
      }
      fieldset {
        border: 1px solid #bbb;
        border-radius: 6px;
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        gap: 0.6em 1em;
        padding: 0.5em 0.9em 0.7em;
        margin: 0;
      }
      legend {
        font-weight: 600;
        padding: 0 0.3em;
      }
      input[type='range'] {
        width: 260px;
        accent-color: #0072b2;
      }
      input[type='number'] {
        width: 5.5em;
      }
      .presets {
        display: flex;
        gap: 0.3em;
      }
      .presets button[aria-pressed='true'] {
        background: #0072b2;
        color: #fff;
        border-color: #0072b2;
      }
    `,
  ];

  override render() {
    const position = Math.log2(this.k);
    return html`<fieldset>
      <legend>k: divide the MLM head by k</legend>
      <label for="slider" class="visually-hidden">k, on a logarithmic scale</label>
      <input
        id="slider"
        type="range"
        min=${Math.log2(K_MIN)}
        max=${Math.log2(K_MAX)}
        step=${SLIDER_STEP}
        .value=${String(position)}
        aria-valuetext=${`k = ${formatK(this.k)}`}
        @input=${this._onSlider}
      />
      <label
        >k =
        <input id="number" type="number" min=${K_MIN} max=${K_MAX} step="any" .value=${formatK(this.k)} @change=${this._onNumber}
      /></label>
      <div class="presets" role="group" aria-label="Common values of k">
        ${PRESETS.map(
          (k) =>
            html`<button aria-pressed=${String(Math.abs(this.k - k) < 1e-9)} @click=${() => this._emit(k)}>k = ${k}</button>`,
        )}
      </div>
    </fieldset>`;
  }

  private _onSlider(event: Event) {
    this._emit(2 ** Number((event.target as HTMLInputElement).value));
  }

  private _onNumber(event: Event) {
    const input = event.target as HTMLInputElement;
    const value = Number(input.value);
    if (!inRange(value, K_RANGE)) {
      input.setCustomValidity(`${K_RANGE_MESSAGE}.`);
      input.reportValidity();
      return;
    }
    input.setCustomValidity('');
    this._emit(value);
  }

  private _emit(k: number) {
    const rounded = Number(k.toPrecision(4));
    this.k = rounded;
    this.dispatchEvent(new CustomEvent('k-change', { detail: { k: rounded }, bubbles: true, composed: true }));
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'k-control': KControl;
  }
}
