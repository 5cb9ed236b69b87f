// <sparse-terms>: one text's SPLADE vector as its top terms with weight bars; terms the model added are marked; special
// pieces ([CLS], [SEP], [unusedN]) keep their weights but are said apart, under the list, never among the top terms; an
// empty vector says why it is empty.
import { LitElement, css, html, unsafeCSS } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { html as staticHtml, unsafeStatic } from 'lit/static-html.js';
import type { SparseSummary } from '../../worker/api.ts';
import { formatStat } from './format.ts';
import { OKABE_ITO, baseStyles } from './theme.ts';

@customElement('sparse-terms')
export class SparseTerms extends LitElement {
  @property({ type: String }) heading = '';
  /** The heading's level in the page's outline (h3 by default; deeper where the element sits under an h4). */
  @property({ type: Number }) level: 3 | 4 | 5 | 6 = 3;
  @property({ attribute: false }) summary: SparseSummary | null = null;
  /** A line in place of the counts, for a vector kept only as its top terms (a recording). */
  @property({ type: String }) caption = '';

  static override styles = [
    baseStyles,
    css`
      :host {
        display: block;
      }
      .heading {
        font-size: 1em;
        margin: 0 0 0.3em;
      }
      ol {
        list-style: none;
        padding: 0;
        margin: 0;
        display: grid;
        grid-template-columns: auto 1fr auto;
        gap: 0.15em 0.6em;
        align-items: center;
      }
      li {
        display: contents;
      }
      .term.expansion {
        font-style: italic;
      }
      .bar {
        height: 0.8em;
        background: ${unsafeCSS(OKABE_ITO.blue)};
        border-radius: 2px;
      }
      .bar.expansion {
        background: repeating-linear-gradient(45deg, ${unsafeCSS(OKABE_ITO.vermillion)} 0 3px, #fff 3px 5px);
        border: 1px solid ${unsafeCSS(OKABE_ITO.vermillion)};
      }
    `,
  ];

  override render() {
    const s = this.summary;
    if (!s) return html``;
    const terms = s.terms.filter((t) => !t.special);
    const special = s.terms.filter((t) => t.special);
    const top = terms.length > 0 ? terms[0].weight : 1;
    const tag = unsafeStatic(`h${[3, 4, 5, 6].includes(this.level) ? this.level : 3}`);
    return html`${staticHtml`<${tag} class="heading">${this.heading}</${tag}>`}
      <p class="muted" id="active">${this.caption || `${s.activeDims} active dimensions · ${s.tokens.length} tokens`}</p>
      ${
        !this.caption && s.activeDims === 0
          ? html`<p id="empty">
              No term is active: every logit of this text is 0 or below, so its vector is empty and it matches nothing. A
              head divided by too large a k does this, and log(1 + ReLU) passes no gradient below 0: training cannot
              revive such terms (the paper's collapse at too large a k).
            </p>`
          : ''
      }
      <ol aria-label="${this.heading}: top terms by weight">
        ${terms.map(
          (t) =>
            html`<li data-term=${t.term}>
              <span class="term ${t.expansion ? 'expansion' : ''}"
                >${t.expansion ? '+ ' : ''}${t.term}${t.expansion ? html`<span class="visually-hidden"> (expansion)</span>` : ''}</span
              >
              <span class="bar ${t.expansion ? 'expansion' : ''}" style="width:${Math.max(2, (100 * t.weight) / top)}%"></span>
              <span class="num">${formatStat(t.weight)}</span>
            </li>`,
        )}
      </ol>
      ${
        special.length
          ? html`<p class="muted special-apart">
              Special tokens, kept apart (they keep their weights in the vector):
              ${special.map((t, i) => html`${i ? ', ' : ''}<span data-special=${t.term}>${t.term} ${formatStat(t.weight)}</span>`)}
            </p>`
          : ''
      }`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'sparse-terms': SparseTerms;
  }
}
