// <pruning-chart>: a pruning curve drawn as nDCG@10 against what the index costs (its bytes, or the postings a query
// reads) on a log axis; top-N points and weight-threshold points as two lines, the unpruned point ringed; SVG or PNG.
import { LitElement, css, html, nothing, svg } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { describeRule, type PruningPoint } from '../../worker/api.ts';
import '../common/chart-download.ts';
import { linearScale, logScale, type Scale } from '../common/chart-scale.ts';
import { formatValue, seriesStyle } from '../common/series-style.ts';
import { baseStyles, chartStyles } from '../common/theme.ts';

const WIDTH = 520;
const HEIGHT = 310;
const MARGIN = { left: 52, right: 40, top: 14, bottom: 68 };
const PLOT_W = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_H = HEIGHT - MARGIN.top - MARGIN.bottom;

export type PruningAxis = 'bytes' | 'postings';

const AXES = {
  bytes: { label: 'index bytes (Anserini impacts)', unit: 'B', of: (p: PruningPoint) => p.indexBytes },
  postings: { label: 'postings a query reads (mean)', unit: '', of: (p: PruningPoint) => p.meanQueryPostings },
} as const;

const SERIES = [
  { kind: 'top', name: 'top N weights per vector' },
  { kind: 'threshold', name: 'document weights ≥ W' },
] as const;

/** A power of ten in few characters: 100, 10k, 1M (with the axis' unit). */
function tick(value: number, unit: string): string {
  const [scaled, prefix] =
    value >= 1e9 ? [value / 1e9, 'G'] : value >= 1e6 ? [value / 1e6, 'M'] : value >= 1e3 ? [value / 1e3, 'k'] : [value, ''];
  return `${Number(scaled.toPrecision(3))}${unit ? ` ${prefix}${unit}` : prefix}`;
}

/** The point's short label on the chart: "all", "256", "0.5". */
function shortLabel(p: PruningPoint): string {
  return p.rule.kind === 'all' ? 'all' : p.rule.kind === 'top' ? String(p.rule.n) : String(p.rule.weight);
}

@customElement('pruning-chart')
export class PruningChart extends LitElement {
  /** The curve's points, "all" among them. */
  @property({ attribute: false }) points: PruningPoint[] = [];
  /** File name of the SVG and PNG downloads, without extension. */
  @property({ type: String, attribute: 'download-name' }) downloadName = 'pruning-curve';
  @state() private _axis: PruningAxis = 'bytes';

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
        flex-wrap: wrap;
        justify-content: space-between;
        align-items: center;
        gap: 0.3em 1em;
      }
      h4 {
        margin: 0.2em 0;
      }
      fieldset {
        border: none;
        padding: 0;
        margin: 0;
        font-size: 0.85em;
      }
      .point text {
        font-size: 11px;
        fill: #222;
      }
      .legend text {
        font-size: 11px;
        fill: #222;
      }
    `,
  ];

  override render() {
    const axis = AXES[this._axis];
    const drawn = this.points.filter((p) => axis.of(p) > 0 && Number.isFinite(p.ndcg_cut_10));
    return html`<div class="top">
        <h4 id="pruning-title">nDCG@10 against ${axis.label}</h4>
        <fieldset>
          <legend class="visually-hidden">Horizontal axis</legend>
          ${(['bytes', 'postings'] as const).map(
            (a) =>
              html`<label
                ><input
                  type="radio"
                  name="axis"
                  value=${a}
                  .checked=${this._axis === a}
                  @change=${() => (this._axis = a)}
                />${a === 'bytes' ? 'index bytes' : 'postings per query'}</label
              > `,
          )}
        </fieldset>
        <chart-download name=${`${this.downloadName}-${this._axis}`}></chart-download>
      </div>
      ${drawn.length ? this._chart(drawn) : html`<p class="muted">No point has a non-empty index to draw.</p>`}`;
  }

  private _chart(drawn: PruningPoint[]) {
    const axis = AXES[this._axis];
    const xs = drawn.map(axis.of);
    const x = logScale(10 ** Math.floor(Math.log10(Math.min(...xs))), 10 ** Math.ceil(Math.log10(Math.max(...xs))));
    const ys = drawn.map((p) => p.ndcg_cut_10);
    const y = linearScale(0, Math.min(1, Math.max(...ys) * 1.1) || 1, 5);
    const px = (p: PruningPoint) => MARGIN.left + x.fraction(axis.of(p)) * PLOT_W;
    const py = (p: PruningPoint) => MARGIN.top + PLOT_H - y.fraction(p.ndcg_cut_10) * PLOT_H;
    const all = drawn.find((p) => p.rule.kind === 'all');
    return svg`<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="pruning-title pruning-desc">
      <desc id="pruning-desc">${drawn.map((p) => `${describeRule(p.rule)}: nDCG@10 ${p.ndcg_cut_10.toFixed(4)} at ${formatValue(axis.of(p))}${axis.unit ? ' bytes' : ' postings'}.`).join(' ')}</desc>
      ${this._axes(x, y, axis.unit)}
      ${SERIES.map((s, i) => {
        // each series starts from the unpruned point, so that its line shows what pruning gives up
        const line = [...(all ? [all] : []), ...drawn.filter((p) => p.rule.kind === s.kind)].sort(
          (a, b) => axis.of(a) - axis.of(b),
        );
        const { colour, dash } = seriesStyle(i);
        return svg`<g class="series" data-kind=${s.kind}>
          <polyline fill="none" stroke=${colour} stroke-width="1.5" stroke-dasharray=${dash}
            points=${line.map((p) => `${px(p)},${py(p)}`).join(' ')}></polyline>
          ${line
            .filter((p) => p.rule.kind === s.kind)
            .map(
              (p, j) => svg`<g class="point" data-rule=${describeRule(p.rule)}>
              <circle cx=${px(p)} cy=${py(p)} r="4" fill=${colour}><title>${describeRule(p.rule)}</title></circle>
              <text x=${px(p) + 6} y=${py(p) + (j % 2 ? 13 : -6)}>${shortLabel(p)}</text>
            </g>`,
            )}
        </g>`;
      })}
      ${
        all
          ? svg`<g class="point" data-rule="all">
            <circle cx=${px(all)} cy=${py(all)} r="6" fill="none" stroke="#000" stroke-width="2"><title>all weights</title></circle>
            <text x=${px(all) - 9} y=${py(all) - 8} text-anchor="end">all</text>
          </g>`
          : nothing
      }
      ${this._legend()}
    </svg>`;
  }

  private _axes(x: Scale, y: Scale, unit: string) {
    const bottom = MARGIN.top + PLOT_H;
    const fx = (v: number) => MARGIN.left + x.fraction(v) * PLOT_W;
    const fy = (v: number) => bottom - y.fraction(v) * PLOT_H;
    const decades = x.ticks.filter((t) => Number(t.toExponential(0).split('e')[0]) === 1);
    return svg`<g class="axis">
      ${y.ticks.map(
        (t) => svg`<line class="grid" x1=${MARGIN.left} x2=${MARGIN.left + PLOT_W} y1=${fy(t)} y2=${fy(t)}></line>
          <text x=${MARGIN.left - 6} y=${fy(t) + 4} text-anchor="end">${formatValue(t)}</text>`,
      )}
      <line x1=${MARGIN.left} x2=${MARGIN.left} y1=${MARGIN.top} y2=${bottom}></line>
      <line x1=${MARGIN.left} x2=${MARGIN.left + PLOT_W} y1=${bottom} y2=${bottom}></line>
      ${x.ticks.map((t) => svg`<line x1=${fx(t)} x2=${fx(t)} y1=${bottom} y2=${bottom + (decades.includes(t) ? 5 : 3)}></line>`)}
      ${decades.map((t) => svg`<text x=${fx(t)} y=${bottom + 18} text-anchor="middle">${tick(t, unit)}</text>`)}
      <text class="label" x=${MARGIN.left + PLOT_W / 2} y=${bottom + 36} text-anchor="middle">${AXES[this._axis].label} (log scale${unit ? '; 1 kB = 1000 B' : ''})</text>
      <text class="label" transform="translate(14 ${MARGIN.top + PLOT_H / 2}) rotate(-90)" text-anchor="middle">nDCG@10</text>
    </g>`;
  }

  private _legend() {
    const top = HEIGHT - 10;
    return svg`<g class="legend">
      ${SERIES.map((s, i) => {
        const { colour, dash } = seriesStyle(i);
        const left = MARGIN.left + i * 200;
        return svg`<line x1=${left} x2=${left + 22} y1=${top} y2=${top} stroke=${colour} stroke-width="1.5" stroke-dasharray=${dash}></line>
          <circle cx=${left + 11} cy=${top} r="3" fill=${colour}></circle>
          <text x=${left + 28} y=${top + 4}>${s.name}</text>`;
      })}
    </g>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pruning-chart': PruningChart;
  }
}
