// <scatter-chart>: effectiveness against cost, like the paper's Figure 2: one point per run (nDCG@10 against FLOPS on
// a log axis), each labelled, the best one marked and named with the rule that picked it; the same in text.
import { LitElement, css, html, nothing, svg } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import './chart-download.ts';
import { linearScale, logScale, type Scale } from './chart-scale.ts';
import { formatValue, seriesStyle } from './series-style.ts';
import { baseStyles, chartStyles } from './theme.ts';

const WIDTH = 560;
const HEIGHT = 300;
const MARGIN = { left: 58, right: 20, top: 16, bottom: 44 };
const PLOT_W = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_H = HEIGHT - MARGIN.top - MARGIN.bottom;

export interface ScatterPoint {
  label: string;
  x: number;
  y: number;
}

@customElement('scatter-chart')
export class ScatterChart extends LitElement {
  @property({ attribute: false }) points: ScatterPoint[] = [];
  @property({ type: String }) heading = '';
  @property({ type: String, attribute: 'x-label' }) xLabel = '';
  @property({ type: String, attribute: 'y-label' }) yLabel = '';
  /** Label of the point to mark as best ('' for none). */
  @property({ type: String }) best = '';
  /** How the best point was picked, in words. */
  @property({ type: String }) rule = '';

  static override styles = [
    baseStyles,
    chartStyles,
    css`
      :host {
        display: block;
      }
      svg {
        max-width: ${WIDTH}px;
      }
      .top {
        display: flex;
        justify-content: space-between;
        gap: 1em;
      }
      h3 {
        font-size: 1em;
        margin: 0.2em 0;
      }
      .best {
        font-weight: 600;
      }
    `,
  ];

  override render() {
    const drawn = this.points.filter((p) => Number.isFinite(p.y) && p.x > 0);
    const top = html`<div class="top">
      <h3 id="scatter-title">${this.heading}</h3>
      <chart-download name="effectiveness-vs-flops"></chart-download>
    </div>`;
    if (drawn.length === 0)
      return html`${top}
        <p class="muted" id="summary">No evaluated run yet.</p>`;
    const xs = drawn.map((p) => p.x);
    const x = logScale(10 ** Math.floor(Math.log10(Math.min(...xs))), 10 ** Math.ceil(Math.log10(Math.max(...xs))));
    const ys = drawn.map((p) => p.y);
    const y = linearScale(Math.min(0, ...ys), Math.max(...ys) > 0 ? Math.max(...ys) * 1.1 : 1, 5);
    return html`${top}
      <svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="scatter-title scatter-desc">
        <desc id="scatter-desc">${drawn.map((p) => `${p.label}: ${formatValue(p.y)} at ${formatValue(p.x)}.`).join(' ')}</desc>
        ${this._axes(x, y)}
        <g transform="translate(${MARGIN.left},${MARGIN.top})">${drawn.map((p, i) => this._point(p, i, x, y))}</g>
      </svg>
      <ul id="summary" aria-label="${this.heading}">
        ${drawn.map((p) => html`<li class=${p.label === this.best ? 'best' : ''} data-label=${p.label}>${p.label}: ${this.yLabel} ${formatValue(p.y)}, ${this.xLabel} ${formatValue(p.x)}${p.label === this.best ? ' (best)' : ''}</li>`)}
      </ul>
      ${this.best ? html`<p class="muted" id="rule">Best: ${this.best}. ${this.rule}</p>` : nothing}`;
  }

  private _axes(x: Scale, y: Scale) {
    const px = (v: number) => MARGIN.left + x.fraction(v) * PLOT_W;
    const py = (v: number) => MARGIN.top + PLOT_H - y.fraction(v) * PLOT_H;
    const bottom = MARGIN.top + PLOT_H;
    return svg`<g class="axis">
      ${y.ticks.map(
        (t) => svg`<line class="grid" x1=${MARGIN.left} x2=${MARGIN.left + PLOT_W} y1=${py(t)} y2=${py(t)}></line>
        <text x=${MARGIN.left - 6} y=${py(t) + 4} text-anchor="end">${formatValue(t)}</text>`,
      )}
      <line x1=${MARGIN.left} x2=${MARGIN.left} y1=${MARGIN.top} y2=${bottom}></line>
      <line x1=${MARGIN.left} x2=${MARGIN.left + PLOT_W} y1=${bottom} y2=${bottom}></line>
      ${x.ticks.map((t) => svg`<line x1=${px(t)} x2=${px(t)} y1=${bottom} y2=${bottom + 5}></line><text x=${px(t)} y=${bottom + 18} text-anchor="middle">${formatValue(t)}</text>`)}
      <text class="label" x=${MARGIN.left + PLOT_W / 2} y=${HEIGHT - 6} text-anchor="middle">${this.xLabel} (log scale)</text>
      <text class="label" transform="translate(14 ${MARGIN.top + PLOT_H / 2}) rotate(-90)" text-anchor="middle">${this.yLabel}</text>
    </g>`;
  }

  private _point(p: ScatterPoint, i: number, x: Scale, y: Scale) {
    const { colour } = seriesStyle(i);
    const cx = x.fraction(p.x) * PLOT_W;
    const cy = PLOT_H - y.fraction(p.y) * PLOT_H;
    const best = p.label === this.best;
    return svg`<g class="point" data-label=${p.label}>
      ${best ? svg`<circle cx=${cx} cy=${cy} r="10" fill="none" stroke="#000" stroke-width="2"></circle>` : nothing}
      <circle cx=${cx} cy=${cy} r="5" fill=${colour}></circle>
      <text x=${cx + 8} y=${cy - 8}>${p.label}</text>
    </g>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'scatter-chart': ScatterChart;
  }
}
