// <lesson-summary>: what k traded in this lesson, on one page: the take-away (who is ahead on nDCG@10 and on sparsity,
// how the losses started and what their end means, all computed: contract/lesson/lesson-claims.ts), each k's held-out nDCG@10
// before and after training, its retrieval FLOPS and active dimensions, its losses first and last, the sentence's figures.
// The lesson's last step shows it; printing the page prints it alone.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { LessonFacts, LessonFrame, LessonVector } from '../../worker/api.ts';
import { lessonOutcomes, lessonTakeaway } from '../../contract/lesson/lesson-claims.ts';
import '../common/scatter-chart.ts';
import { formatValue } from '../common/series-style.ts';
import { baseStyles, tableStyles } from '../common/theme.ts';

@customElement('lesson-summary')
export class LessonSummary extends LitElement {
  @property({ attribute: false }) frames: LessonFrame[] = [];
  @property({ attribute: false }) facts: LessonFacts | null = null;
  /** The sentence's vectors (steps 1 and 2), when shown. */
  @property({ attribute: false }) vectors: LessonVector[] = [];
  /** "live on …" or "recorded with …". */
  @property({ type: String }) source = '';
  @property({ type: String }) model = '';

  static override styles = [
    baseStyles,
    tableStyles,
    css`
      :host {
        display: block;
      }
      .takeaway {
        font-size: 1.15em;
        font-weight: 600;
      }
    `,
  ];

  override render() {
    const outcomes = lessonOutcomes(this.frames);
    if (!outcomes || !this.facts)
      return html`<p class="muted" id="no-training">Play the training (step 3) first: this step sums it up.</p>`;
    const { settings, recipe } = this.facts;
    const last = this.frames.at(-1)!.step;
    const takeaway = lessonTakeaway(outcomes);
    return html`<p class="takeaway" id="takeaway" data-ndcg-leader=${takeaway.ndcgLeader ?? 'level'} data-cheapest=${takeaway.cheapest ?? 'level'}>
        ${takeaway.headline}
      </p>
      ${takeaway.start ? html`<p id="takeaway-start">${takeaway.start}</p>` : nothing}
      ${takeaway.losses ? html`<p id="takeaway-losses">${takeaway.losses}</p>` : nothing}
      ${last < settings.steps ? html`<p class="muted" id="partial">The training is at step ${last} of ${settings.steps}: these are the figures so far.</p>` : nothing}
      <table id="trade">
        <caption>
          What k trades, on the ${this.facts.queries} held-out queries over ${this.facts.documents} documents
        </caption>
        <thead>
          <tr>
            <th scope="col">k</th>
            <th scope="col" class="num">nDCG@10 before</th>
            <th scope="col" class="num">nDCG@10 at step ${outcomes[0].at}</th>
            <th scope="col" class="num">retrieval FLOPS</th>
            <th scope="col" class="num">query dims</th>
            <th scope="col" class="num">L_rank first → last</th>
            <th scope="col" class="num">FLOPS(q) first → last</th>
          </tr>
        </thead>
        <tbody>
          ${outcomes.map(
            (o) =>
              html`<tr data-k=${o.k}>
                <th scope="row">${o.k}</th>
                <td class="num" data-measure="ndcg-before">${o.before.ndcg10.toFixed(3)}</td>
                <td class="num" data-measure="ndcg-after">${o.after.ndcg10.toFixed(3)}</td>
                <td class="num" data-measure="flops">${formatValue(o.after.flops)}</td>
                <td class="num" data-measure="query-dims">${Math.round(o.after.queryActiveDims)}</td>
                <td class="num" data-measure="rank">
                  ${o.firstRank === null ? '–' : `${formatValue(o.firstRank)} → ${formatValue(o.lastRank!)}`}
                </td>
                <td class="num" data-measure="flops-q">
                  ${o.firstFlopsQ === null ? '–' : `${formatValue(o.firstFlopsQ)} → ${formatValue(o.lastFlopsQ!)}`}
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
      <scatter-chart
        heading="Effectiveness against cost at step ${outcomes[0].at}"
        x-label="retrieval FLOPS"
        y-label="nDCG@10"
        .points=${outcomes.map((o) => ({ label: `k = ${o.k}`, x: o.after.flops, y: o.after.ndcg10 }))}
      ></scatter-chart>
      ${
        this.vectors.length
          ? html`<p id="sentence-figures">
              “${this.vectors[0].text}”:
              ${this.vectors.map((v) => `k = ${v.k}: largest logit ${formatValue(v.maxLogit)}, ${v.activeDims} active dimensions, FLOPS ${formatValue(v.flops)}`).join('; ')}.
            </p>`
          : nothing
      }
      <p class="muted" id="lesson-facts">
        ${this.model}, ${this.source}. Full fine-tuning of each k from the same weights on the same batches of
        ${this.facts.triplets} generated triplets (seed ${settings.seed};
        ${Math.min(this.facts.triplets, settings.steps * recipe.batchSize)} of them in ${settings.steps} steps): batches of
        ${recipe.batchSize}, queries of ${recipe.queryLength} tokens, documents of ${recipe.documentLength}, AdamW at
        ${recipe.peakLr}, λ_q ${recipe.lambdaQueries}, λ_d ${recipe.lambdaDocuments}. L = L_rank + λ_q FLOPS(q) + λ_d FLOPS(d);
        W_head divided by k before training.
      </p>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'lesson-summary': LessonSummary;
  }
}
