// <loss-chart>: hand-drawn SVG line chart of training curves (one line per series, log or linear y), with a legend
// that carries each line's first and last value, and the same text for screen readers.
import { LitElement, css, html, nothing, svg } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { linearScale, logScale, type Scale } from './chart-scale.ts';
import './chart-download.ts';
import { formatValue, seriesStyle } from './series-style.ts';
import { baseStyles, chartStyles } from './theme.ts';

const WIDTH = 560;
const HEIGHT = 280;
const MARGIN = { left: 62, right: 16, top: 14, bottom: 44 };
const PLOT_W = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_H = HEIGHT - MARGIN.top - MARGIN.bottom;
/** A log axis shows 1-2-5 ticks up to this many, else powers of ten only. */
const MAX_TICKS = 8;

export interface ChartPoint {
  /** Step (1-based, as the page shows steps). */
  x: number;
  y: number;
}

export interface ChartSeries {
  label: string;
  points: ChartPoint[];
}

let nextId = 0;

@customElement('loss-chart')
export class LossChart extends LitElement {
  @property({ attribute: false }) series: ChartSeries[] = [];
  /** What the chart shows (its title and the summary's first words). */
  @property({ type: String }) heading = '';
  @property({ type: String, attribute: 'y-label' }) yLabel = '';
  /** Values on a log axis (the default: losses of different k differ by orders of magnitude). */
  @property({ type: Boolean, reflect: true }) log = true;
  /** A linear axis starts at 0 (the default); false fits it to the values (a row norm that moves in its 3rd digit). */
  @property({ type: Boolean }) zero = true;

  private readonly uid = `loss-chart-${nextId++}`;

  static override styles = [
    baseStyles,
    chartStyles,
    css`
      svg {
        max-width: ${WIDTH}px;
      }
      :host {
        display: block;
      }
      .top {
        display: flex;
        justify-content: space-between;
        align-items: baseline;
        gap: 1em;
      }
      h3 {
        font-size: 1em;
        margin: 0.2em 0;
      }
      label {
        font-size: 0.9em;
      }
      ul {
        list-style: none;
        padding: 0;
        margin: 0.2em 0 0 ${MARGIN.left}px;
        font-size: 0.9em;
      }
      li svg {
        display: inline-block;
        width: 2.6em;
        height: 0.8em;
        vertical-align: middle;
        margin-right: 0.4em;
      }
    `,
  ];

  override render() {
    const drawn = this.series.filter((s) => s.points.length > 0);
    const toggle = html`<span
      ><label><input type="checkbox" id="log" .checked=${this.log} @change=${this._onLog} /> log scale</label>
      <chart-download name=${this.heading.replace(/[^\w]+/g, '-').toLowerCase() || 'chart'}></chart-download
    ></span>`;
    const top = html`<div class="top">
      <h3 id="${this.uid}-title">${this.heading}</h3>
      ${toggle}
    </div>`;
    if (drawn.length === 0)
      return html`${top}
        <p class="muted" id="summary">No steps yet.</p>`;
    const values = drawn.flatMap((s) => s.points.map((p) => p.y)).filter((y) => Number.isFinite(y) && (!this.log || y > 0));
    const steps = drawn.flatMap((s) => s.points.map((p) => p.x));
    const x = this._stepScale(Math.min(...steps), Math.max(...steps));
    const y = this._yScale(values);
    const summaries = this.series.map((s) => this._summary(s));
    const skipped = this.log && drawn.some((s) => s.points.some((p) => !(p.y > 0)));
    return html`${top}
      <svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${this.uid}-title ${this.uid}-desc">
        <desc id="${this.uid}-desc">${summaries.join(' ')}</desc>
        ${this._axes(x, y)}
        <g transform="translate(${MARGIN.left},${MARGIN.top})">${this.series.map((s, i) => this._line(s, i, x, y))}</g>
      </svg>
      <ul id="summary" aria-label="${this.heading}: first and last values">
        ${this.series.map((s, i) => {
          const { colour, dash } = seriesStyle(i);
          return html`<li data-series=${s.label}>
            <svg viewBox="0 0 40 10" aria-hidden="true">
              <line x1="0" x2="40" y1="5" y2="5" stroke=${colour} stroke-width="3" stroke-dasharray=${dash}></line></svg
            >${summaries[i]}
          </li>`;
        })}
      </ul>
      ${skipped ? html`<p class="muted">Values of 0 or below cannot be drawn on a log scale and are left out.</p>` : nothing}`;
  }

  /** "k = 1: 1234 at step 1, 5.6 at step 60." */
  private _summary(series: ChartSeries): string {
    const first = series.points[0];
    const last = series.points.at(-1);
    if (!first || !last) return `${series.label}: no steps yet.`;
    if (first === last) return `${series.label}: ${formatValue(first.y)} at step ${first.x}.`;
    return `${series.label}: ${formatValue(first.y)} at step ${first.x}, ${formatValue(last.y)} at step ${last.x}.`;
  }

  /** Steps on a linear axis with whole-number ticks only. */
  private _stepScale(first: number, last: number): Scale {
    const hi = Math.max(last, first + 1);
    const scale = linearScale(first, hi, Math.max(1, Math.min(6, hi - first)));
    return { ...scale, ticks: scale.ticks.filter(Number.isInteger) };
  }

  private _yScale(values: number[]): Scale {
    const lo = values.length ? Math.min(...values) : 1;
    const hi = values.length ? Math.max(...values) : 1;
    if (!this.log && !this.zero) {
      const pad = (hi - lo) * 0.1 || Math.abs(hi) * 0.01 || 1;
      return linearScale(lo - pad, hi + pad, 5);
    }
    if (!this.log) return linearScale(Math.min(0, lo), hi > Math.min(0, lo) ? hi : Math.min(0, lo) + 1, 5);
    const [a, b] = hi > lo ? [lo, hi] : [lo / 2, hi * 2];
    const scale = logScale(10 ** Math.floor(Math.log10(a)), 10 ** Math.ceil(Math.log10(b)));
    if (scale.ticks.length <= MAX_TICKS) return scale;
    const powers = scale.ticks.filter(
      (t) => Number.isInteger(Math.log10(t)) || Math.abs(Math.log10(t) - Math.round(Math.log10(t))) < 1e-9,
    );
    const stride = Math.ceil(powers.length / MAX_TICKS);
    return { ...scale, ticks: powers.filter((_, i) => i % stride === 0) };
  }

  private _axes(x: Scale, y: Scale) {
    const px = (v: number) => MARGIN.left + x.fraction(v) * PLOT_W;
    const py = (v: number) => MARGIN.top + PLOT_H - y.fraction(v) * PLOT_H;
    const bottom = MARGIN.top + PLOT_H;
    return svg`<g class="axis">
      ${y.ticks.map(
        (t) => svg`<line class="grid" x1=${MARGIN.left} x2=${MARGIN.left + PLOT_W} y1=${py(t)} y2=${py(t)}></line>
        <text class="tick-y" x=${MARGIN.left - 6} y=${py(t) + 4} text-anchor="end">${formatValue(t)}</text>`,
      )}
      <line x1=${MARGIN.left} x2=${MARGIN.left} y1=${MARGIN.top} y2=${bottom}></line>
      <line x1=${MARGIN.left} x2=${MARGIN.left + PLOT_W} y1=${bottom} y2=${bottom}></line>
      ${x.ticks.map(
        (t) => svg`<line x1=${px(t)} x2=${px(t)} y1=${bottom} y2=${bottom + 5}></line>
        <text x=${px(t)} y=${bottom + 18} text-anchor="middle">${formatValue(t)}</text>`,
      )}
      <text class="label" x=${MARGIN.left + PLOT_W / 2} y=${HEIGHT - 6} text-anchor="middle">training step</text>
      <text class="label" id="y-label" transform="translate(14 ${MARGIN.top + PLOT_H / 2}) rotate(-90)" text-anchor="middle">${this.yLabel}${this.log ? ' (log scale)' : ''}</text>
    </g>`;
  }

  private _line(series: ChartSeries, i: number, x: Scale, y: Scale) {
    const { colour, dash } = seriesStyle(i);
    const points = series.points.filter((p) => Number.isFinite(p.y) && (!this.log || p.y > 0));
    const at = (p: ChartPoint) => `${(x.fraction(p.x) * PLOT_W).toFixed(1)},${(PLOT_H - y.fraction(p.y) * PLOT_H).toFixed(1)}`;
    const last = points.at(-1);
    return svg`<g class="series" data-series=${series.label} stroke=${colour} fill=${colour}>
      <polyline points=${points.map(at).join(' ')} fill="none" stroke-width="2.5" stroke-dasharray=${dash} stroke-linejoin="round"></polyline>
      ${last ? svg`<circle cx=${at(last).split(',')[0]} cy=${at(last).split(',')[1]} r="3.5"></circle>` : nothing}
    </g>`;
  }

  private _onLog(event: Event) {
    this.log = (event.target as HTMLInputElement).checked;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'loss-chart': LossChart;
  }
}
