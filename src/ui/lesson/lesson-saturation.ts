// <lesson-saturation>: the log-saturation curve w = log(1 + logit) on a log axis of logits, with each k's median and
// largest logit marked (a shape and a colour per k), so a class sees where long head rows push the weights.
import { LitElement, css, html, svg } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { LessonVector } from '../../worker/api.ts';
import { logScale } from '../common/chart-scale.ts';
import { formatValue, seriesStyle } from '../common/series-style.ts';
import { baseStyles, chartStyles } from '../common/theme.ts';

const WIDTH = 520;
const HEIGHT = 240;
const MARGIN = { left: 48, right: 16, top: 12, bottom: 40 };

/** One marker shape per k (besides its colour): circle, triangle, square. */
export function markerPath(i: number, x: number, y: number, r = 6): string {
  if (i % 3 === 0) return `M ${x - r} ${y} a ${r} ${r} 0 1 0 ${2 * r} 0 a ${r} ${r} 0 1 0 ${-2 * r} 0`;
  if (i % 3 === 1) return `M ${x} ${y - r} L ${x + r} ${y + r} L ${x - r} ${y + r} Z`;
  return `M ${x - r} ${y - r} h ${2 * r} v ${2 * r} h ${-2 * r} Z`;
}

@customElement('lesson-saturation')
export class LessonSaturation extends LitElement {
  @property({ attribute: false }) vectors: LessonVector[] = [];
  /** Presenter view: the figures of the marks (the table beside it has them) are left to screen readers. */
  @property({ type: Boolean, reflect: true }) presenter = false;

  static override styles = [
    baseStyles,
    chartStyles,
    css`
      :host {
        display: block;
        max-width: 560px;
      }
      svg.key {
        width: 1em;
        height: 1em;
        display: inline;
        vertical-align: -0.15em;
      }
    `,
  ];

  override render() {
    const top = Math.max(10, ...this.vectors.map((v) => v.maxLogit));
    const scale = logScale(0.01, top * 2);
    const x = (logit: number) => MARGIN.left + scale.fraction(logit) * (WIDTH - MARGIN.left - MARGIN.right);
    const ticks = scale.ticks.filter((t) => Number.isInteger(Math.log10(t)));
    const wMax = Math.log1p(top * 2);
    const y = (w: number) => HEIGHT - MARGIN.bottom - (w / wMax) * (HEIGHT - MARGIN.top - MARGIN.bottom);
    const curve = Array.from({ length: 81 }, (_, i) => {
      const logit = 0.01 * (top * 200) ** (i / 80);
      return `${i === 0 ? 'M' : 'L'} ${x(logit).toFixed(1)} ${y(Math.log1p(logit)).toFixed(1)}`;
    }).join(' ');
    const marks = this.vectors.flatMap((v, i) =>
      (['medianLogit', 'maxLogit'] as const)
        .filter((key) => v[key] > 0)
        .map((key) => {
          const style = seriesStyle(i);
          const px = x(Math.max(0.01, v[key]));
          const py = y(Math.log1p(v[key]));
          return svg`<path class="mark" data-k=${v.k} data-kind=${key} d=${markerPath(i, px, py)} fill=${key === 'maxLogit' ? style.colour : '#fff'} stroke=${style.colour} stroke-width="2"></path>`;
        }),
    );
    const summary = this.vectors
      .map(
        (v) =>
          `k = ${v.k}: median logit ${formatValue(v.medianLogit)}, largest ${formatValue(v.maxLogit)} (weight ${formatValue(v.maxWeight)})`,
      )
      .join('; ');
    return html`<svg
        viewBox="0 0 ${WIDTH} ${HEIGHT}"
        role="img"
        aria-label="w = log(1 + logit), with each k's logits marked: ${summary}"
      >
        <g class="axis">
          <line x1=${MARGIN.left} y1=${HEIGHT - MARGIN.bottom} x2=${WIDTH - MARGIN.right} y2=${HEIGHT - MARGIN.bottom}></line>
          <line x1=${MARGIN.left} y1=${MARGIN.top} x2=${MARGIN.left} y2=${HEIGHT - MARGIN.bottom}></line>
          ${ticks.map((t) => svg`<text x=${x(t)} y=${HEIGHT - MARGIN.bottom + 16} text-anchor="middle">${formatValue(t)}</text>`)}
        </g>
        <text class="label" x=${(MARGIN.left + WIDTH - MARGIN.right) / 2} y=${HEIGHT - 6} text-anchor="middle">
          logit h·W_j / k + b_j (log axis)
        </text>
        <text
          class="label"
          x="12"
          y=${(HEIGHT - MARGIN.bottom) / 2}
          transform="rotate(-90 12 ${(HEIGHT - MARGIN.bottom) / 2})"
          text-anchor="middle"
        >
          weight w_j
        </text>
        <path d=${curve} fill="none" stroke="#333" stroke-width="2"></path>
        ${marks}
      </svg>
      <p class="legend" aria-hidden="true">
        ${this.vectors.map((v, i) => html`<svg class="key" viewBox="0 0 16 16" width="16" height="16"><path d=${markerPath(i, 8, 8, 6)} fill=${seriesStyle(i).colour}></path></svg> k = ${v.k} `)}
      </p>
      <p class="muted" id="saturation-summary">
        Open marks: median logit; filled marks: the largest. <span class=${this.presenter ? 'visually-hidden' : ''}>${summary}.</span>
      </p>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'lesson-saturation': LessonSaturation;
  }
}
