// <token-origins>: which input token caused each term of a SPLADE vector (the position whose logit won the max
// pooling): each input token with the terms it won, heaviest first, and the whole list of terms with their origins.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { TextAudit } from '../../worker/api.ts';
import { baseStyles, termTableStyles } from './theme.ts';

/** Terms named per input token; the full table lists this many rows. */
const TERMS_PER_TOKEN = 6;
const TABLE_ROWS = 50;

@customElement('token-origins')
export class TokenOrigins extends LitElement {
  @property({ attribute: false }) audit: TextAudit | null = null;

  static override styles = [
    baseStyles,
    termTableStyles,
    css`
      ol {
        padding-left: 1.4em;
        margin: 0.3em 0;
      }
      li {
        margin-bottom: 0.2em;
      }
      .piece {
        font-weight: 600;
      }
    `,
  ];

  override render() {
    const audit = this.audit;
    if (!audit) return nothing;
    const byPosition = new Map<number, TextAudit['terms']>();
    for (const term of audit.terms) byPosition.set(term.position, [...(byPosition.get(term.position) ?? []), term]);
    const share = (100 * audit.expansionShare).toFixed(1);
    return html`<p id="origins-summary">
        ${audit.terms.length} active terms at k = ${audit.k}, ${share}% of the weight on expansions. Max pooling keeps, for
        each term, the one input token whose logit was largest: that token caused it.
      </p>
      <ol id="by-token">
        ${audit.tokens.map((piece, position) => {
          const won = byPosition.get(position) ?? [];
          if (won.length === 0) return nothing;
          return html`<li data-position=${position} data-piece=${piece} data-terms=${won.length}>
            <span class="piece">${piece}</span> (token ${position}) caused ${won.length}:
            ${won
              .slice(0, TERMS_PER_TOKEN)
              .map(
                (t) => html`<span class=${t.expansion ? 'expansion' : ''}>${t.term} ${t.weight.toFixed(2)}</span>${' '}`,
              )}${won.length > TERMS_PER_TOKEN ? '…' : ''}
          </li>`;
        })}
      </ol>
      <details>
        <summary>Every term with its origin (the ${Math.min(TABLE_ROWS, audit.terms.length)} heaviest)</summary>
        <table id="origin-table">
          <thead>
            <tr><th scope="col">term</th><th scope="col">weight</th><th scope="col">kind</th><th scope="col">caused by</th></tr>
          </thead>
          <tbody>
            ${audit.terms.slice(0, TABLE_ROWS).map(
              (t) => html`<tr data-term=${t.term} data-position=${t.position}>
                <td class=${t.expansion ? 'expansion' : ''}>${t.term}</td>
                <td class="number">${t.weight.toFixed(3)}</td>
                <td>${t.expansion ? 'expansion' : 'input'}</td>
                <td>${t.piece} (token ${t.position})</td>
              </tr>`,
            )}
          </tbody>
        </table>
      </details>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'token-origins': TokenOrigins;
  }
}
