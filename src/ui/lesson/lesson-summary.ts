// <lesson-summary>: what k traded in this lesson, on one page: each k's held-out nDCG@10 before and after training,
// its retrieval FLOPS and active dimensions, its losses first and last, the sentence's figures, and the take-away.
// The lesson's last step shows it; printing the page prints it alone.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { HeldOutMeasure, LessonFacts, LessonFrame, LessonVector } from '../../worker/api.ts';
import '../common/scatter-chart.ts';
import { formatValue } from '../common/series-style.ts';
import { baseStyles, tableStyles } from '../common/theme.ts';

interface KOutcome {
  k: number;
  before: HeldOutMeasure;
  after: HeldOutMeasure;
  /** The step of `after`. */
  at: number;
  firstRank: number | null;
  lastRank: number | null;
  firstFlopsQ: number | null;
  lastFlopsQ: number | null;
}

/** Each k's figures from the frames so far (null before frame 0). */
export function lessonOutcomes(frames: readonly LessonFrame[]): KOutcome[] | null {
  const measured = frames.filter((f) => f.runs[0].heldOut);
  if (measured.length === 0) return null;
  const first = frames.find((f) => f.runs[0].losses);
  const last = frames.at(-1)!;
  const lastMeasured = measured.at(-1)!;
  return frames[0].runs.map((r, i) => ({
    k: r.k,
    before: measured[0].runs[i].heldOut!,
    after: lastMeasured.runs[i].heldOut!,
    at: lastMeasured.step,
    firstRank: first?.runs[i].losses?.rank ?? null,
    lastRank: last.runs[i].losses?.rank ?? null,
    firstFlopsQ: first?.runs[i].losses?.flopsQueries ?? null,
    lastFlopsQ: last.runs[i].losses?.flopsQueries ?? null,
  }));
}

/** The take-away in one sentence: how the best divided head compares with k = 1 at the last measured step. */
export function lessonTakeaway(outcomes: readonly KOutcome[]): string {
  const plain = outcomes.find((o) => o.k === 1);
  const best = [...outcomes].sort((a, b) => b.after.ndcg10 - a.after.ndcg10)[0];
  const steps = best.at === 0 ? 'Before training' : `After ${best.at} steps`;
  if (!plain) return `${steps}, k = ${best.k} retrieves best (nDCG@10 ${best.after.ndcg10.toFixed(3)}).`;
  if (best.k === 1)
    return `${steps}, the head as loaded (k = 1) retrieves best here (nDCG@10 ${plain.after.ndcg10.toFixed(3)}): this backbone's rows are not long enough for k to pay.`;
  return (
    `${steps}, dividing the head by k = ${best.k} gives nDCG@10 ${best.after.ndcg10.toFixed(3)} against ${plain.after.ndcg10.toFixed(3)} for the head as loaded` +
    (plain.lastRank !== null && best.lastRank !== null
      ? `, with a ranking loss of ${formatValue(best.lastRank)} instead of ${formatValue(plain.lastRank)}.`
      : '.')
  );
}

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
    return html`<p class="takeaway" id="takeaway">${lessonTakeaway(outcomes)}</p>
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
