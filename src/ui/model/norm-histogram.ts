// <norm-histogram>: overlaid SVG histograms of the head's row norms at k = 1, after dividing by k (not at k = 1, which
// divides nothing) and (for a run's model) after training, on shared bins.
import { LitElement, css, html, nothing, svg } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { HeadStatistics } from '../../worker/api.ts';
import '../common/chart-download.ts';
import { binEdges, linearScale, logCountScale, logScale, tickLabel, type Scale } from '../common/chart-scale.ts';
import { formatK, formatStat } from '../common/format.ts';
import { SERIES, baseStyles, chartStyles } from '../common/theme.ts';

const WIDTH = 720;
const HEIGHT = 300;
const MARGIN = { left: 58, right: 18, top: 26, bottom: 46 };
const PLOT_W = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_H = HEIGHT - MARGIN.top - MARGIN.bottom;

type SeriesName = 'before' | 'after' | 'trained';

@customElement('norm-histogram')
export class NormHistogram extends LitElement {
  /** Statistics at k = 1. */
  @property({ attribute: false }) original: HeadStatistics | null = null;
  /** Statistics of W / k, histogrammed on the same bins as `original`. */
  @property({ attribute: false }) rescaled: HeadStatistics | null = null;
  /** A run's head after training (set only for a run's model), on the same bins. */
  @property({ attribute: false }) trained: HeadStatistics | null = null;
  @property({ type: Number }) k = 1;
  /** Target mean row norm, drawn as a vertical line (NaN: none). */
  @property({ type: Number }) target: number = NaN;
  /** Counts on a log axis (makes the sparse tails visible). */
  @property({ type: Boolean, attribute: 'log-counts' }) logCounts = false;

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
      chart-download {
        margin: 0.3em 0 0 ${MARGIN.left}px;
      }
      .legend {
        display: flex;
        flex-wrap: wrap;
        gap: 0.4em 1.4em;
        font-size: 0.92em;
        margin: 0.2em 0 0 ${MARGIN.left}px;
      }
      .swatch {
        display: inline-block;
        width: 1.6em;
        height: 0.9em;
        vertical-align: middle;
        margin-right: 0.35em;
        border: 2px solid;
      }
    `,
  ];

  override render() {
    const { original: before, rescaled: after } = this;
    if (!before || !after) return html`<p class="muted">No statistics yet.</p>`;
    const range = before.histogram.range;
    const x = range.log ? logScale(range.lo, range.hi) : linearScale(range.lo, range.hi);
    const trained = this.trained;
    // at k = 1 the divided head is the head: one series, not two drawn on top of each other
    const divided = after.k !== before.k || trained !== null;
    const maxCount = Math.max(...before.histogram.counts, ...after.histogram.counts, ...(trained?.histogram.counts ?? []), 1);
    const y = this.logCounts ? logCountScale(maxCount) : linearScale(0, maxCount, 5);
    const description =
      `Row norms at k = 1: mean ${formatStat(before.summary.mean)}, max ${formatStat(before.summary.max)}.` +
      (divided
        ? ` After dividing by k = ${formatK(this.k)}: mean ${formatStat(after.summary.mean)}, max ${formatStat(after.summary.max)}.`
        : ' k = 1 divides nothing.') +
      (trained ? ` After training: mean ${formatStat(trained.summary.mean)}, max ${formatStat(trained.summary.max)}.` : '');
    return html`<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="title desc">
        <title id="title">
          Histogram of the MLM head's row norms${divided ? ' before and after dividing by k' : ' (k = 1: the head as loaded)'}${trained ? ', and after training' : ''}
        </title>
        <desc id="desc">${description}</desc>
        <defs>
          <pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect width="6" height="6" fill=${SERIES.after} fill-opacity="0.18"></rect>
            <line x1="0" y1="0" x2="0" y2="6" stroke=${SERIES.after} stroke-width="2.2" stroke-opacity="0.6"></line>
          </pattern>
        </defs>
        ${this._axes(x, y, range.log)}
        <g transform="translate(${MARGIN.left},${MARGIN.top})">
          ${this._series('before', before, x, y)} ${divided ? this._series('after', after, x, y) : nothing}
          ${trained ? this._series('trained', trained, x, y) : nothing}
          ${this._marker(before.summary.mean, x, SERIES.before, `mean ${formatStat(before.summary.mean)}`, 0)}
          ${after.k === before.k ? nothing : this._marker(after.summary.mean, x, SERIES.after, `mean ${formatStat(after.summary.mean)}`, 1)}
          ${trained ? this._marker(trained.summary.mean, x, SERIES.trained, `trained mean ${formatStat(trained.summary.mean)}`, 2) : nothing}
          ${Number.isFinite(this.target) && !trained ? this._marker(this.target, x, SERIES.target, `target ${formatStat(this.target)}`, 2) : nothing}
        </g>
      </svg>
      <div class="legend" aria-hidden="true">
        <span
          ><span class="swatch" style="background:${SERIES.before}66;border-color:${SERIES.before}"></span
          >${trained ? 'as loaded (k = 1)' : 'k = 1 (head as loaded)'}</span
        >
        ${
          divided
            ? html`<span
                ><span class="swatch" style="background:${SERIES.after}33;border-color:${SERIES.after};border-style:dashed"></span
                >${trained ? `divided by k = ${formatK(this.k)} (training started here)` : `k = ${formatK(this.k)} (W_head / k)`}</span
              >`
            : nothing
        }
        ${trained ? html`<span><span class="swatch" style="border-color:${SERIES.trained};border-width:3px"></span>after training</span>` : nothing}
        ${
          Number.isFinite(this.target) && !trained
            ? html`<span
                ><span class="swatch" style="border-color:${SERIES.target};border-width:0 0 0 3px;border-style:dotted"></span
                >target mean norm</span
              >`
            : nothing
        }
      </div>
      <chart-download name=${trained ? 'run-head-norms' : `head-norms-k${formatK(this.k)}`}></chart-download>`;
  }

  private _axes(x: Scale, y: Scale, logNorm: boolean) {
    const px = (v: number) => MARGIN.left + x.fraction(v) * PLOT_W;
    const py = (c: number) => MARGIN.top + PLOT_H - y.fraction(c) * PLOT_H;
    const bottom = MARGIN.top + PLOT_H;
    return svg`<g class="axis">
      ${y.ticks.map(
        (t) => svg`<line class="grid" x1=${MARGIN.left} x2=${MARGIN.left + PLOT_W} y1=${py(t)} y2=${py(t)}></line>
        <text x=${MARGIN.left - 6} y=${py(t) + 4} text-anchor="end">${tickLabel(t)}</text>`,
      )}
      <line x1=${MARGIN.left} x2=${MARGIN.left + PLOT_W} y1=${bottom} y2=${bottom}></line>
      ${x.ticks.map(
        (t) => svg`<line x1=${px(t)} x2=${px(t)} y1=${bottom} y2=${bottom + 5}></line>
        <text x=${px(t)} y=${bottom + 18} text-anchor="middle">${tickLabel(t)}</text>`,
      )}
      <text class="label" x=${MARGIN.left + PLOT_W / 2} y=${HEIGHT - 6} text-anchor="middle">row L2 norm ‖W_head[v] / k‖${logNorm ? ' (log scale)' : ''}</text>
      <text class="label" transform="translate(14 ${MARGIN.top + PLOT_H / 2}) rotate(-90)" text-anchor="middle">rows per bin${this.logCounts ? ' (log scale)' : ''}</text>
    </g>`;
  }

  private _series(name: SeriesName, stats: HeadStatistics, x: Scale, y: Scale) {
    const edges = binEdges(stats.histogram.range);
    const colour = SERIES[name];
    const bars = stats.histogram.counts.map((count, i) => {
      if (count === 0) return nothing;
      const left = x.fraction(edges[i]) * PLOT_W;
      const right = x.fraction(edges[i + 1]) * PLOT_W;
      const top = PLOT_H - y.fraction(count) * PLOT_H;
      return svg`<rect data-count=${count} x=${left} y=${top} width=${Math.max(0.5, right - left)} height=${PLOT_H - top}></rect>`;
    });
    const fill = { before: colour, after: 'url(#hatch)', trained: 'none' }[name];
    return svg`<g class="series" data-series=${name} fill=${fill}
      fill-opacity=${name === 'before' ? 0.45 : 1} stroke=${colour} stroke-width=${name === 'trained' ? 2.2 : 1.2}
      stroke-dasharray=${name === 'after' ? '4 2' : 'none'}>${bars}</g>`;
  }

  /** A labelled vertical line; `row` staggers labels so they do not overlap. */
  private _marker(value: number, x: Scale, colour: string, label: string, row: number) {
    const f = x.fraction(value);
    if (!(f >= 0 && f <= 1)) return nothing;
    const at = f * PLOT_W;
    const anchor = f > 0.8 ? 'end' : 'start';
    const dash = row === 2 ? '2 3' : '6 3';
    return svg`<line x1=${at} x2=${at} y1=${-4} y2=${PLOT_H} stroke=${colour} stroke-width="2" stroke-dasharray=${dash}></line>
      <text x=${at + (anchor === 'end' ? -4 : 4)} y=${-12 + row * 13} font-size="12" text-anchor=${anchor} fill="#1a1a1a">${label}</text>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'norm-histogram': NormHistogram;
  }
}
