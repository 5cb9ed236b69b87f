// <lesson-vectors>: the lesson's sentence as SPLADE vectors: one (the divided head's) with its terms and expansions,
// or every k side by side with the figures that tell them apart (logits, weights, active dimensions, FLOPS) and
// where their logits sit on the log-saturation curve.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { LessonVector } from '../../worker/api.ts';
import { formatValue } from '../common/series-style.ts';
import './lesson-saturation.ts';
import '../common/sparse-terms.ts';
import { baseStyles, tableStyles } from '../common/theme.ts';

/** The rows of the comparison table: what each figure is, and its value in a vector. */
const FIGURES: readonly { key: string; label: string; value: (v: LessonVector) => string }[] = [
  { key: 'maxLogit', label: 'largest logit', value: (v) => formatValue(v.maxLogit) },
  { key: 'medianLogit', label: 'median logit of the active terms', value: (v) => formatValue(v.medianLogit) },
  { key: 'maxWeight', label: 'largest weight log(1 + logit)', value: (v) => formatValue(v.maxWeight) },
  { key: 'activeDims', label: 'active dimensions', value: (v) => String(v.activeDims) },
  { key: 'flops', label: 'FLOPS of the vector (Σ w²)', value: (v) => formatValue(v.flops) },
];

@customElement('lesson-vectors')
export class LessonVectors extends LitElement {
  @property({ attribute: false }) vectors: LessonVector[] = [];
  /** Every k side by side (step 2), else the divided head's vector alone (step 1). */
  @property({ type: Boolean }) compare = false;
  @property({ type: Number, attribute: 'vocab-size' }) vocabSize = 0;

  static override styles = [
    baseStyles,
    tableStyles,
    css`
      :host {
        display: block;
      }
      .side {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(16em, 1fr));
        gap: 1em;
        margin: 0.6em 0;
      }
    `,
  ];

  override render() {
    if (this.vectors.length === 0) return nothing;
    const of = this.vocabSize ? ` of ${this.vocabSize}` : '';
    if (!this.compare) {
      const v = this.vectors.at(-1)!;
      return html`<sparse-terms
          id="vector"
          heading="Its vector at k = ${v.k} (${v.activeDims}${of} dimensions active)"
          .summary=${v}
        ></sparse-terms>
        <p class="muted">Italic terms marked + are expansions: the model gave weight to words the sentence does not contain.</p>`;
    }
    return html`<div class="side">
        ${this.vectors.map((v) => html`<sparse-terms data-k=${v.k} heading="k = ${v.k}" .summary=${v}></sparse-terms>`)}
      </div>
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
      <lesson-saturation .vectors=${this.vectors}></lesson-saturation>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'lesson-vectors': LessonVectors;
  }
}
