// <lesson-head-growth>: where long head rows come from, from a recorded masked-LM run: the head's mean row norm and the
// loss over its steps (a chart with its numbers in a table), a caption computed from them, and one sentence's SPLADE
// vector before and after the run.
import { LitElement, css, html, nothing, svg } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { HeadGrowthTrace } from '../../contract/lesson/head-growth-trace.ts';
import { movedFromTo } from '../../contract/lesson/lesson-claims.ts';
import { apartBySpelling } from '../../contract/lesson/lesson-frames.ts';
import '../common/sparse-terms.ts';
import { renderSpecialApart } from './lesson-special.ts';
import { baseStyles, tableStyles } from '../common/theme.ts';

const WIDTH = 480;
const HEIGHT = 160;
const PAD = 28;
/** Terms of each recorded list shown in the presenter view. */
const PRESENTED = 6;

/** The caption: how the rows' length and the loss moved (fell, rose or stayed), computed from the first and last points. */
export function growthCaption(trace: HeadGrowthTrace): string {
  const first = trace.points[0];
  const last = trace.points.at(-1)!;
  const losses = trace.points.filter((p) => p.loss !== null);
  const ratio = last.meanRowNorm / first.meanRowNorm;
  const loss = losses.length >= 2 ? ` while the loss ${movedFromTo(losses[0].loss!, losses.at(-1)!.loss!, 2)}` : '';
  const scales = trace.points.filter((p) => p.logitScale !== null);
  const scale =
    scales.length >= 2
      ? `; the largest logit of a predicted token went from ${scales[0].logitScale!.toFixed(1)} to ${scales.at(-1)!.logitScale!.toFixed(1)}`
      : '';
  return (
    `Over ${last.step} steps of masked-LM training the head's mean row norm went from ${first.meanRowNorm.toFixed(3)} to ` +
    `${last.meanRowNorm.toFixed(3)} (x${ratio.toFixed(3)})${loss}${scale}.`
  );
}

/** SVG points of one series scaled into the chart (x: steps, y: the series' own range). */
function polyline(points: { step: number; value: number }[], lastStep: number): string {
  const values = points.map((p) => p.value);
  const [lo, hi] = [Math.min(...values), Math.max(...values)];
  const span = hi - lo || 1;
  return points
    .map((p) => {
      const x = PAD + ((WIDTH - 2 * PAD) * p.step) / (lastStep || 1);
      const y = HEIGHT - PAD - ((HEIGHT - 2 * PAD) * (p.value - lo)) / span;
      return `${x.toFixed(1)},${y.toFixed(1)}`;
    })
    .join(' ');
}

@customElement('lesson-head-growth')
export class LessonHeadGrowth extends LitElement {
  @property({ attribute: false }) trace: HeadGrowthTrace | null = null;
  /** Why there is no recording, when there is none. */
  @property({ type: String }) problem = '';
  /** Presenter view: the chart and its caption beside the two vectors, so that the part fits on about one screen. */
  @property({ type: Boolean, reflect: true }) presenter = false;

  static override styles = [
    baseStyles,
    tableStyles,
    css`
      :host {
        display: block;
        margin-top: 1.2em;
      }
      svg {
        max-width: 100%;
        height: auto;
      }
      .norm {
        stroke: #1f6feb;
      }
      .loss {
        stroke: #b35900;
        stroke-dasharray: 5 3;
      }
      polyline {
        fill: none;
        stroke-width: 2;
      }
      .key {
        display: inline-block;
        width: 2em;
        vertical-align: middle;
        border-top: 2px solid #1f6feb;
      }
      .loss-key {
        border-top: 2px dashed #b35900;
      }
      .side {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(min(16em, 100%), 1fr));
        gap: 1em;
      }
      /* presenting: the chart beside its caption, above the two vectors side by side, about one screen in all */
      :host([presenter]) .chart-side {
        display: grid;
        grid-template-columns: minmax(0, 1fr) minmax(0, 1fr);
        gap: 1.5em;
        align-items: start;
      }
    `,
  ];

  override render() {
    const t = this.trace;
    if (!t) return this.problem ? html`<p class="muted" id="no-growth">${this.problem}</p>` : nothing;
    const lastStep = t.points.at(-1)!.step;
    const norms = t.points.map((p) => ({ step: p.step, value: p.meanRowNorm }));
    const losses = t.points.flatMap((p) => (p.loss === null ? [] : [{ step: p.step, value: p.loss }]));
    // presenting shows the heaviest PRESENTED terms of each recorded list
    const shown = this.presenter ? PRESENTED : Infinity;
    // presenting, the caption sits under the chart and the note beside it: the part takes about one screen
    const recipe = html`<p class="muted" id="growth-recipe">${t.model}: ${t.recipe}.</p>`;
    const note = t.note ? html`<p id="growth-note">${t.note}</p>` : nothing;
    const caption = html`<p id="growth-caption">${growthCaption(t)}</p>`;
    // presenting, the recipe waits in the numbers' fold: the caption and the recorder's note share the screen
    const numbers = html`<details>
        <summary>The numbers</summary>
        ${this.presenter ? recipe : nothing}
        <table id="growth-table">
          <thead>
            <tr>
              <th scope="col" class="num">step</th>
              <th scope="col" class="num">mean row norm</th>
              <th scope="col" class="num">p99 row norm</th>
              <th scope="col" class="num">loss</th>
              <th scope="col" class="num">largest logit</th>
            </tr>
          </thead>
          <tbody>
            ${t.points.map(
              (p) =>
                html`<tr>
                  <td class="num">${p.step}</td>
                  <td class="num">${p.meanRowNorm.toFixed(4)}</td>
                  <td class="num">${p.p99RowNorm.toFixed(4)}</td>
                  <td class="num">${p.loss === null ? '–' : p.loss.toFixed(3)}</td>
                  <td class="num">${p.logitScale === null ? '–' : p.logitScale.toFixed(2)}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </details>`;
    return html`<h3>Where long rows come from</h3>
      ${this.presenter ? nothing : recipe}
      <div class="chart-side">
      <div>
      <svg
        id="growth-chart"
        viewBox="0 0 ${WIDTH} ${HEIGHT}"
        role="img"
        aria-label="The head's mean row norm (solid) and the masked-LM loss (dashed) over ${lastStep} steps; the table below has the numbers."
      >
        ${svg`<line x1=${PAD} y1=${HEIGHT - PAD} x2=${WIDTH - PAD} y2=${HEIGHT - PAD} stroke="currentColor" stroke-width="1" />
        <polyline class="norm" points=${polyline(norms, lastStep)} />
        ${losses.length >= 2 ? svg`<polyline class="loss" points=${polyline(losses, lastStep)} />` : nothing}
        <text x=${PAD} y=${HEIGHT - 8} font-size="11">step 0</text>
        <text x=${WIDTH - PAD} y=${HEIGHT - 8} font-size="11" text-anchor="end">step ${lastStep}</text>`}
      </svg>
      <p class="legend muted">
        <span class="key norm-key"></span> the head's mean row norm &nbsp; <span class="key loss-key"></span> the masked-LM loss
        (each line on its own scale; the numbers are in the table)
      </p>
      ${caption}
      </div>
      <div>
      ${this.presenter ? html`${note} ${numbers}` : numbers}
      </div>
      </div>
      <div class="side">
        ${(['before', 'after'] as const).map((when) => {
          const { terms, special } = apartBySpelling(t[when]);
          const listed = terms.slice(0, shown);
          const caption =
            listed.length < terms.length
              ? `its ${listed.length} heaviest terms of the ${t[when].length} recorded`
              : `its ${t[when].length} heaviest terms, as recorded`;
          return html`<div>
            <sparse-terms
              data-when=${when}
              heading="“${t.sentence}” ${when} the run (k = 1)"
              caption=${caption}
              .summary=${{ text: t.sentence, tokens: [], activeDims: t[when].length, terms: listed.map((term) => ({ ...term, id: 0 })) }}
            ></sparse-terms>
            ${renderSpecialApart(special, special.length)}
          </div>`;
        })}
      </div>
      ${this.presenter ? nothing : note}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'lesson-head-growth': LessonHeadGrowth;
  }
}
