// <lesson-training>: the lesson's training so far, every k side by side: loss parts and active dimensions per step,
// held-out nDCG@10 at the measured steps, and the watched query's vector as it is now under each k.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { LessonFacts, LessonFrame, LessonRunFrame } from '../../worker/api.ts';
import type { ChartSeries } from '../common/loss-chart.ts';
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

@customElement('lesson-training')
export class LessonTraining extends LitElement {
  @property({ attribute: false }) frames: LessonFrame[] = [];
  @property({ attribute: false }) facts: LessonFacts | null = null;

  static override styles = [
    baseStyles,
    css`
      :host {
        display: block;
      }
      .charts,
      .probes {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(22em, 1fr));
        gap: 1em;
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
    return html`<h3>The watched query: “${this.facts.probe}” (held out: never seen in training)</h3>
      <div class="probes">
        ${last.runs.map((r) => html`<sparse-terms class="probe" data-k=${r.k} heading="k = ${r.k} after ${last.step} steps" .summary=${r.probe}></sparse-terms>`)}
      </div>
      <div class="charts">
        ${CHARTS.map((c) => html`<loss-chart id=${c.id} heading=${c.heading} y-label=${c.y} .log=${c.log} .series=${series(c.value)}></loss-chart>`)}
      </div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'lesson-training': LessonTraining;
  }
}
