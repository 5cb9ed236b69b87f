// <preview-panel>: type a query and a document, see their sparse vectors under the current k and their dot score.
import { LitElement, css, html, nothing, unsafeCSS } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { PreviewResult } from '../../worker/api.ts';
import '../common/panel-explainer.ts';
import '../common/sparse-terms.ts';
import '../common/shared-term-origins.ts';
import '../common/token-origins.ts';
import { formatK, formatStat } from '../common/format.ts';
import { OKABE_ITO, baseStyles } from '../common/theme.ts';

@customElement('preview-panel')
export class PreviewPanel extends LitElement {
  @property({ type: String }) query = '';
  @property({ type: String }) doc = '';
  @property({ type: Number }) k = 1;
  @property({ attribute: false }) result: PreviewResult | null = null;
  /** Why there is no result (shown in place of the vectors). */
  @property({ type: String }) error = '';
  @property({ type: Boolean }) busy = false;
  /** The model is the bundled demo: a tiny MLM trained on WordNet glosses, not a real backbone. */
  @property({ type: Boolean }) synthetic = false;

  static override styles = [
    baseStyles,
    css`
      :host {
        display: block;
      }
      .texts {
        display: grid;
        grid-template-columns: 1fr 1fr;
        gap: 1em;
        margin: 0.6em 0;
      }
      label {
        display: flex;
        flex-direction: column;
        font-weight: 600;
        gap: 0.2em;
      }
      textarea {
        font-weight: normal;
        min-height: 4.5em;
        resize: vertical;
      }
      .vectors {
        display: grid;
        grid-template-columns: 1fr 1fr;
        gap: 1.5em;
      }
      .score {
        font-size: 1.2em;
        margin: 0.4em 0 0.8em;
      }
      .key {
        font-size: 0.88em;
        margin: -0.4em 0 0.8em;
      }
      .key .own,
      .key .expansion {
        display: inline-block;
        width: 2em;
        height: 0.8em;
        vertical-align: middle;
        margin: 0 0.3em 0 0.8em;
      }
      .key .own {
        background: ${unsafeCSS(OKABE_ITO.blue)};
      }
      .key .expansion {
        background: repeating-linear-gradient(45deg, ${unsafeCSS(OKABE_ITO.vermillion)} 0 3px, #fff 3px 5px);
        border: 1px solid ${unsafeCSS(OKABE_ITO.vermillion)};
      }
      .error {
        border-left: 6px solid #d55e00;
        padding: 0.4em 0.8em;
        background: #fff5ee;
      }
    `,
  ];

  override render() {
    const r = this.result;
    return html`<panel-explainer>
        <p>
          SPLADE turns a text into one weight per vocabulary term: the MLM head scores every term at every token, and the vector
          keeps each term's largest log(1 + ReLU(score)) over the tokens. Most weights are zero; terms that are not in the text
          but get a weight (marked <i>+ italic</i>, striped bars) are the model's expansions. The score of a query and a document
          is the dot product of their vectors. Dividing the head by k shrinks every score before the ReLU, so fewer terms stay
          active.
        </p>
        <span class="formula"
          >v[j] = max<sub>t</sub> log(1 + ReLU(h<sub>t</sub> · W_head[j] / k + b[j])),&nbsp;&nbsp; s(q, d) = v<sub>q</sub> · v<sub
            >d</sub
          ></span
        >
      </panel-explainer>
      <div class="texts">
        <label>Query <textarea id="query" .value=${this.query} @input=${this._onInput}></textarea></label>
        <label>Document <textarea id="doc" .value=${this.doc} @input=${this._onInput}></textarea></label>
      </div>
      ${
        this.error
          ? html`<p class="error" role="alert" id="preview-error">${this.error}</p>`
          : r
            ? html`<p class="score" aria-live="polite" aria-busy=${String(this.busy)}>
                  Score s(q, d) at k = ${formatK(r.k)}: <strong id="score">${formatStat(r.score)}</strong>
                </p>
                <p class="key muted" aria-hidden="true">
                  Bars:<span class="own"></span>term of the text<span class="expansion"></span><i>+ expansion</i> (not in the
                  text)
                  ${this.synthetic ? html` · demo backbone: a tiny MLM pretrained by splade-lab on WordNet glosses, not a real backbone; watch the weights and the score change with k.` : nothing}
                </p>
                <div class="vectors">
                  <sparse-terms heading="Query vector" .summary=${r.query}></sparse-terms>
                  <sparse-terms heading="Document vector" .summary=${r.doc}></sparse-terms>
                </div>
                ${
                  r.origins
                    ? html`<details id="origins">
                        <summary>Which input token caused each term?</summary>
                        <section aria-label="Shared terms by origin">
                          <h4>Shared terms</h4>
                          <shared-term-origins id="shared-origins" .pair=${r.origins}></shared-term-origins>
                        </section>
                        <div class="vectors">
                          <section aria-label="Query terms by origin">
                            <h4>Query</h4>
                            <token-origins id="query-origins" .audit=${r.origins.query}></token-origins>
                          </section>
                          <section aria-label="Document terms by origin">
                            <h4>Document</h4>
                            <token-origins id="doc-origins" .audit=${r.origins.document}></token-origins>
                          </section>
                        </div>
                      </details>`
                    : nothing
                }`
            : html`<p class="muted">${this.busy ? 'Encoding on the GPU…' : nothing}</p>`
      }`;
  }

  private _onInput() {
    const query = (this.renderRoot.querySelector('#query') as HTMLTextAreaElement).value;
    const doc = (this.renderRoot.querySelector('#doc') as HTMLTextAreaElement).value;
    this.query = query;
    this.doc = doc;
    this.dispatchEvent(new CustomEvent('texts-change', { detail: { query, doc }, bubbles: true, composed: true }));
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'preview-panel': PreviewPanel;
  }
}
