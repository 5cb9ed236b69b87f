// <lesson-vectors>: the lesson's sentence as SPLADE vectors: one (the divided head's) with its terms and expansions and
// whether it is sparse at all, or every k side by side with the figures that tell them apart (logits, weights, active
// dimensions, FLOPS), what dividing did, and where their logits sit on the log-saturation curve. Special pieces are
// said apart from the top terms.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { LessonVector } from '../../worker/api.ts';
import { divisionClaims, sparsityClaim } from '../../contract/lesson/lesson-claims.ts';
import { formatValue } from '../common/series-style.ts';
import { renderSpecialApart } from './lesson-special.ts';
import './lesson-saturation.ts';
import '../common/sparse-terms.ts';
import { baseStyles, tableStyles } from '../common/theme.ts';

/** The rows of the comparison table: what each figure is, and its value in a vector. */
const FIGURES: readonly { key: string; label: string; value: (v: LessonVector) => string }[] = [
  { key: 'maxLogit', label: 'largest logit', value: (v) => formatValue(v.maxLogit) },
  { key: 'medianLogit', label: 'median logit (active terms)', value: (v) => formatValue(v.medianLogit) },
  { key: 'maxWeight', label: 'largest weight', value: (v) => formatValue(v.maxWeight) },
  { key: 'activeDims', label: 'active dimensions', value: (v) => String(v.activeDims) },
  { key: 'flops', label: 'FLOPS (Σ w²)', value: (v) => formatValue(v.flops) },
];

@customElement('lesson-vectors')
export class LessonVectors extends LitElement {
  @property({ attribute: false }) vectors: LessonVector[] = [];
  /** Every k side by side (step 2), else the divided head's vector alone (step 1). */
  @property({ type: Boolean }) compare = false;
  /** The vectors are the demo backbone's (step 1 then says why its raw vector is dense, if it is). */
  @property({ type: Boolean }) demo = false;
  /** Presenter view (the saturation curve's figures are left to the table). */
  @property({ type: Boolean }) presenter = false;

  static override styles = [
    baseStyles,
    tableStyles,
    css`
      :host {
        display: block;
      }
      .side {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(min(16em, 100%), 1fr));
        gap: 1em;
        margin: 0.6em 0;
      }
      /* the figures beside the curve where the width allows (a projector's 1024 px does) */
      .figures {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(min(17em, 100%), 1fr));
        gap: 0.5em 1.5em;
        align-items: start;
      }
      .claim {
        font-weight: 600;
      }
      ul.claims {
        padding-left: 1.2em;
      }
    `,
  ];

  override render() {
    if (this.vectors.length === 0) return nothing;
    if (!this.compare) {
      const v = this.vectors.at(-1)!;
      const claim = sparsityClaim(v, this.demo);
      return html`<p class="claim" id="sparsity-claim" data-sparse=${String(claim.sparse)} data-mostly-zero=${String(claim.mostlyZero)}>
          ${claim.text}
        </p>
        <sparse-terms
          id="vector"
          heading="Its vector at k = ${v.k} (${v.activeDims} of ${v.vocabSize} dimensions active)"
          .summary=${v}
        ></sparse-terms>
        ${renderSpecialApart(v.special, v.specialDims, v.k)}
        <p class="muted">Italic terms marked + are expansions: the model gave weight to words the sentence does not contain.</p>`;
    }
    const claims = divisionClaims(this.vectors);
    return html`<div class="side">
        ${this.vectors.map(
          (v) =>
            html`<div>
              <sparse-terms data-k=${v.k} heading="k = ${v.k}" .summary=${v}></sparse-terms>
              ${renderSpecialApart(v.special, v.specialDims, v.k)}
            </div>`,
        )}
      </div>
      <ul class="claims" id="division-claims">
        ${claims.map((c) => html`<li class="claim" data-k=${c.k} data-fewer=${String(c.fewerTerms)}>${c.text}</li>`)}
      </ul>
      <div class="figures">
      <table id="figures">
        <caption>
          The same sentence under each k
        </caption>
        <thead>
          <tr>
            <th scope="col">Figure</th>
            ${this.vectors.map((v) => html`<th scope="col" class="num" data-k=${v.k}>k = ${v.k}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${FIGURES.map(
            (f) =>
              html`<tr data-figure=${f.key}>
                <th scope="row">${f.label}</th>
                ${this.vectors.map((v) => html`<td class="num" data-k=${v.k}>${f.value(v)}</td>`)}
              </tr>`,
          )}
        </tbody>
      </table>
      <lesson-saturation .vectors=${this.vectors} ?presenter=${this.presenter}></lesson-saturation>
      </div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'lesson-vectors': LessonVectors;
  }
}
