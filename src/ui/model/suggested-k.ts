// <suggested-k>: a target mean row norm (default BERT-base's 1.40) and the k that brings the head's mean norm to it.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { GOOD_DIVIDED_NORMS, suggestSweepKs } from '../../worker/api.ts';
import { formatK, formatStat } from '../common/format.ts';
import { K_MAX, K_MIN } from '../url-state.ts';
import { baseStyles } from '../common/theme.ts';

/** k = mean row norm / target, kept inside the k control's range. */
export function suggestK(meanNorm: number, target: number): number {
  return Math.min(K_MAX, Math.max(K_MIN, meanNorm / target));
}

@customElement('suggested-k')
export class SuggestedK extends LitElement {
  /** Mean row norm the head should have after dividing by k. */
  @property({ type: Number }) target = 1.4;
  /** Mean row norm of the head at k = 1 (NaN until statistics exist). */
  @property({ type: Number, attribute: 'mean-norm' }) meanNorm: number = NaN;

  static override styles = [
    baseStyles,
    css`
      :host {
        display: block;
      }
      .row {
        display: flex;
        flex-wrap: wrap;
        align-items: center;
        gap: 0.5em 1em;
      }
      input {
        width: 5em;
      }
      p {
        margin: 0.3em 0 0;
        font-size: 0.9em;
      }
    `,
  ];

  override render() {
    const known = Number.isFinite(this.meanNorm);
    const k = known ? suggestK(this.meanNorm, this.target) : NaN;
    return html`<div class="row">
        <label
          >Target mean row norm
          <input id="target" type="number" min="0.01" step="0.01" .value=${String(this.target)} @change=${this._onTarget}
        /></label>
        ${
          known
            ? html`<span id="suggestion"
                  >suggested k = ${formatStat(this.meanNorm)} / ${formatStat(this.target)} ≈ <strong>${formatK(k)}</strong></span
                >
                <button class="primary" @click=${() => this._use(k)}>Use k = ${formatK(k)}</button>`
            : nothing
        }
      </div>
      <p class="muted">
        A heuristic, not a rule from the paper: BERT-base (mean norm 1.40) trains well at k = 1, so bringing another head's mean
        row norm near 1.40 is a reasonable first k. The paper found the best k by training several (e.g. ModernBERT did best at k
        = 8–16, RoBERTa at k = 2–4).
      </p>
      ${known ? this._sweep() : nothing}`;
  }

  /** The ks whose divided norms cover the region where the paper's backbones did best: the sweep decides. */
  private _sweep() {
    const ks = suggestSweepKs(this.meanNorm);
    const norms = ks.map((k) => formatStat(this.meanNorm / k));
    return html`<p id="suggested-sweep">
      Suggested sweep: <strong>k = ${ks.map(formatK).join(', ')}</strong> (mean norms after dividing ${norms[0]} …
      ${norms.at(-1)}). The paper's backbones did best between about ${GOOD_DIVIDED_NORMS.min} and ${GOOD_DIVIDED_NORMS.max}, but
      the best k differs by backbone (RoBERTa collapsed at 16, ALBERT did worse at any k > 1): the sweep decides.
      <button
        id="use-sweep"
        @click=${() => this.dispatchEvent(new CustomEvent('sweep-ks', { detail: { ks }, bubbles: true, composed: true }))}
      >
        Sweep these
      </button>
    </p>`;
  }

  private _onTarget(event: Event) {
    const input = event.target as HTMLInputElement;
    const value = Number(input.value);
    if (!(value > 0) || !Number.isFinite(value)) {
      input.setCustomValidity('The target must be a positive number');
      input.reportValidity();
      return;
    }
    input.setCustomValidity('');
    this.target = value;
    this.dispatchEvent(new CustomEvent('target-change', { detail: { target: value }, bubbles: true, composed: true }));
  }

  private _use(k: number) {
    this.dispatchEvent(new CustomEvent('k-change', { detail: { k: Number(k.toPrecision(4)) }, bubbles: true, composed: true }));
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'suggested-k': SuggestedK;
  }
}
