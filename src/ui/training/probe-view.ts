// <probe-view>: the run's probe texts as small multiples that update live (top terms with weights, active dimensions,
// what changed since the first snapshot) and every query probe's score against every document probe, now and at start.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { ProbeSnapshot, ProbeView as Probe } from '../../worker/api.ts';
import { formatStat } from '../common/format.ts';
import '../common/sparse-terms.ts';
import { baseStyles, tableStyles } from '../common/theme.ts';

/** Terms in one top list and not in the other. */
function moved(now: Probe, start: Probe): { entered: string[]; left: string[] } {
  const was = new Set(start.terms.map((t) => t.term));
  const is = new Set(now.terms.map((t) => t.term));
  return {
    entered: now.terms.filter((t) => !was.has(t.term)).map((t) => t.term),
    left: start.terms.filter((t) => !is.has(t.term)).map((t) => t.term),
  };
}

@customElement('probe-view')
export class ProbeView extends LitElement {
  /** The first snapshot of the run (before its first step) and the newest. */
  @property({ attribute: false }) start: ProbeSnapshot | null = null;
  @property({ attribute: false }) latest: ProbeSnapshot | null = null;

  static override styles = [
    baseStyles,
    tableStyles,
    css`
      :host {
        display: block;
      }
      .grid {
        display: grid;
        grid-template-columns: repeat(auto-fill, minmax(15em, 1fr));
        gap: 0.8em;
      }
      .card {
        border: 1px solid #ddd;
        border-radius: 4px;
        padding: 0.5em;
      }
      .change {
        font-size: 0.85em;
        margin: 0.3em 0 0;
      }
    `,
  ];

  override render() {
    const now = this.latest;
    if (!now) return html`<p class="muted" id="no-probes">No probe snapshot yet.</p>`;
    const start = this.start && this.start.probes.length === now.probes.length ? this.start : null;
    const queries = now.probes.filter((p) => p.role === 'query');
    const documents = now.probes.filter((p) => p.role === 'document');
    return html`<p class="muted" id="probe-step">
        Probes at step ${now.step}${start ? `, compared with step ${start.step}` : ''}.
      </p>
      <div class="grid">
        ${now.probes.map((probe, i) => {
          const before = start?.probes[i];
          const change = before ? moved(probe, before) : null;
          return html`<div class="card" data-role=${probe.role}>
            <sparse-terms
              heading="${probe.role === 'query' ? 'Query' : 'Document'}: ${probe.text}"
              .summary=${probe}
            ></sparse-terms>
            ${
              before && change
                ? html`<p class="change muted">
                    Active ${before.activeDims} → ${probe.activeDims}.
                    ${change.entered.length ? html`New in the top ${probe.terms.length}: ${change.entered.join(', ')}.` : 'Same top terms as at the start.'}
                  </p>`
                : nothing
            }
          </div>`;
        })}
      </div>
      ${
        queries.length && documents.length
          ? html`<table id="probe-scores">
              <caption>
                Scores (query · document dot products)${start ? ', now (at the start)' : ''}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Query</th>
                  ${documents.map((d, j) => html`<th scope="col" title=${d.text}>Document ${j + 1}</th>`)}
                </tr>
              </thead>
              <tbody>
                ${queries.map(
                  (q, i) =>
                    html`<tr>
                      <th scope="row">${q.text}</th>
                      ${now.scores[i].map((s, j) => html`<td class="num">${formatStat(s)}${start ? html` <span class="muted">(${formatStat(start.scores[i][j])})</span>` : nothing}</td>`)}
                    </tr>`,
                )}
              </tbody>
            </table>`
          : nothing
      }`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'probe-view': ProbeView;
  }
}
