// <lesson-training>: the lesson's training so far, every k side by side: where it stands in one sentence computed from
// the latest frame, loss parts and active dimensions per step, held-out nDCG@10 at the measured steps, and the watched
// query's vector as it is now under each k (special pieces apart). Presenting, the charts come first, two to a row.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { LessonFacts, LessonFrame, LessonRunFrame } from '../../worker/api.ts';
import { trainingClaim } from '../../contract/lesson/lesson-claims.ts';
import type { ChartSeries } from '../common/loss-chart.ts';
import { renderSpecialApart } from './lesson-special.ts';
import '../common/loss-chart.ts';
import '../common/sparse-terms.ts';
import { baseStyles } from '../common/theme.ts';

/** One chart: its id, heading, axis and the value of a k's frame (null where the frame has none). */
const CHARTS: readonly { id: string; heading: string; y: string; log: boolean; value: (r: LessonRunFrame) => number | null }[] = [
  {
    id: 'rank-chart',
    heading: 'Ranking loss L_rank (training batches)',
    y: 'L_rank',
    log: true,
    value: (r) => r.losses?.rank ?? null,
  },
  {
    id: 'flops-chart',
    heading: 'FLOPS(q) of the query vectors',
    y: 'FLOPS(q)',
    log: true,
    value: (r) => r.losses?.flopsQueries ?? null,
  },
  {
    id: 'flops-d-chart',
    heading: 'FLOPS(d) of the document vectors',
    y: 'FLOPS(d)',
    log: true,
    value: (r) => r.losses?.flopsDocuments ?? null,
  },
  {
    id: 'active-chart',
    heading: 'Active dimensions per query (training batches)',
    y: 'dimensions',
    log: false,
    value: (r) => r.active?.queries ?? null,
  },
  {
    id: 'ndcg-chart',
    heading: 'nDCG@10 on the held-out queries',
    y: 'nDCG@10',
    log: false,
    value: (r) => r.heldOut?.ndcg10 ?? null,
  },
];

/** The charts' order in the presenter view: the loss, what it means on held-out queries, then the sparsity. */
const PRESENTED_ORDER = ['rank-chart', 'ndcg-chart', 'active-chart', 'flops-chart', 'flops-d-chart'];

@customElement('lesson-training')
export class LessonTraining extends LitElement {
  @property({ attribute: false }) frames: LessonFrame[] = [];
  @property({ attribute: false }) facts: LessonFacts | null = null;
  /** Presenter view: the charts first (a playing step shows them on its first screen), two to a row. */
  @property({ type: Boolean, reflect: true }) presenter = false;

  static override styles = [
    baseStyles,
    css`
      :host {
        display: block;
      }
      .charts,
      .probes {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(min(22em, 100%), 1fr));
        gap: 1em;
      }
      /* the watched query's lists side by side on a projector's 1024 px too */
      .probes {
        grid-template-columns: repeat(auto-fit, minmax(min(16em, 100%), 1fr));
      }
      :host([presenter]) .charts {
        grid-template-columns: repeat(2, minmax(0, 1fr));
        font-size: 0.8em;
      }
      #training-claim {
        font-weight: 600;
      }
      h3 {
        font-size: 1.05em;
      }
    `,
  ];

  override render() {
    const last = this.frames.at(-1);
    if (!last || !this.facts) return nothing;
    const series = (value: (r: LessonRunFrame) => number | null): ChartSeries[] =>
      this.facts!.settings.ks.map((k, i) => ({
        label: `k = ${k}`,
        points: this.frames.flatMap((frame) => {
          const y = value(frame.runs[i]);
          return y === null ? [] : [{ x: frame.step, y }];
        }),
      }));
    const claim = trainingClaim(this.frames);
    const probes = html`<h3>The watched query: “${this.facts.probe}” (held out: never seen in training)</h3>
      <div class="probes">
        ${last.runs.map(
          (r) =>
            html`<div>
              <sparse-terms class="probe" data-k=${r.k} heading="k = ${r.k} after ${last.step} steps" .summary=${r.probe}></sparse-terms>
              ${renderSpecialApart(r.probe.special, r.probe.specialDims, r.k)}
            </div>`,
        )}
      </div>`;
    // presenting, the charts the step's sentence speaks of come first (a playing step's first screen shows them)
    const order = this.presenter ? PRESENTED_ORDER.map((id) => CHARTS.find((c) => c.id === id)!) : CHARTS;
    const charts = html`<div class="charts">
      ${order.map((c) => html`<loss-chart id=${c.id} heading=${c.heading} y-label=${c.y} .log=${c.log} .series=${series(c.value)}></loss-chart>`)}
    </div>`;
    return html`${
      claim
        ? html`<p id="training-claim" data-ndcg-leader=${claim.ndcgLeader ?? 'level'} data-cheapest=${claim.cheapest ?? 'level'}>
          ${claim.text}
        </p>`
        : nothing
    }
    ${this.presenter ? html`${charts} ${probes}` : html`${probes} ${charts}`}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'lesson-training': LessonTraining;
  }
}
