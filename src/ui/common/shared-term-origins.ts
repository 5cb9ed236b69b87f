// <shared-term-origins>: the terms a query and a document share, each with its product (its part of the score) and,
// on each side, whether it is an input term or an expansion and the input token whose logit won the max pooling.
import { LitElement, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { PairAudit, SideOfTerm } from '../../worker/api.ts';
import { formatShare as percent } from './format.ts';
import { baseStyles, termTableStyles } from './theme.ts';

/** Shared terms listed (an MLM's near-dense vectors share thousands). */
const ROWS = 40;

@customElement('shared-term-origins')
export class SharedTermOrigins extends LitElement {
  @property({ attribute: false }) pair: PairAudit | null = null;

  static override styles = [baseStyles, termTableStyles];

  override render() {
    const pair = this.pair;
    if (!pair) return nothing;
    const { query, document, both } = pair.expansionShares;
    const side = (s: SideOfTerm) =>
      html`<td class="number">${s.weight.toFixed(3)}</td>
        <td class=${s.expansion ? 'expansion' : ''}>${s.expansion ? 'expansion' : 'input'} from ${s.piece} (token ${s.position})</td>`;
    return html`<p id="pair-summary" data-score=${pair.score}>
        Score ${pair.score.toFixed(4)} at k = ${pair.query.k} over ${pair.shared.length} shared terms: ${percent(query)} of it
        from terms the query expanded to, ${percent(document)} from terms the document expanded to, ${percent(both)} from
        terms both expanded to.
      </p>
      <table id="shared-table">
        <caption class="muted">
          The ${Math.min(ROWS, pair.shared.length)} largest products of ${pair.shared.length}; each side's term was caused by the
          input token named.
        </caption>
        <thead>
          <tr>
            <th scope="col">term</th>
            <th scope="col">product</th>
            <th scope="col">query weight</th>
            <th scope="col">in the query</th>
            <th scope="col">document weight</th>
            <th scope="col">in the document</th>
          </tr>
        </thead>
        <tbody>
          ${pair.shared.slice(0, ROWS).map(
            (t) => html`<tr
              data-term=${t.term}
              data-product=${t.product}
              data-query-position=${t.query.position}
              data-document-position=${t.document.position}
            >
              <td>${t.term}</td>
              <td class="number">${t.product.toFixed(3)}</td>
              ${side(t.query)} ${side(t.document)}
            </tr>`,
          )}
        </tbody>
      </table>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'shared-term-origins': SharedTermOrigins;
  }
}
