// <run-compare>: the selected runs side by side, as the paper shows them: their curves overlaid on log axes (ranking
// loss, FLOPS of queries and documents, active dimensions, learning rate and lambdas, like its Figure 4), a results
// table like its Table 2 on a chosen set, and effectiveness against FLOPS like its Figure 2, the best run marked.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { formatBytes, formatDuration, formatK } from '../common/format.ts';
import '../common/loss-chart.ts';
import {
  BEST_RULE,
  bestRun,
  describeRule,
  evaluatedSets,
  evaluationOn,
  meanQueryPostings,
  type RunRecord,
  type SetEvaluation,
} from '../../worker/api.ts';
import { curves, runLabel } from './run-views.ts';
import '../common/scatter-chart.ts';
import { baseStyles, tableStyles, trainingPanelStyles } from '../common/theme.ts';

@customElement('run-compare')
export class RunCompare extends LitElement {
  @property({ attribute: false }) runs: RunRecord[] = [];
  @state() private _set = '';

  static override styles = [
    baseStyles,
    tableStyles,
    trainingPanelStyles,
    css`
      :host {
        display: block;
      }
      table {
        margin: 0.4em 0;
      }
      th,
      td {
        text-align: right;
      }
      th:first-child,
      td:first-child {
        text-align: left;
      }
      tr.best td {
        font-weight: 600;
      }
    `,
  ];

  override render() {
    const runs = [...this.runs].sort((a, b) => a.k - b.k || a.recipe.lambdaQueries - b.recipe.lambdaQueries);
    if (runs.length === 0) return html`<p class="muted">Select runs in the table to compare them.</p>`;
    const sets = evaluatedSets(runs);
    const set = sets.includes(this._set) ? this._set : (sets[0] ?? '');
    const best = set ? bestRun(runs, set) : null;
    return html`<div class="charts">
        <loss-chart id="cmp-rank" heading="Ranking loss" y-label="L_rank" .series=${curves(runs, (r) => r.rank)}></loss-chart>
        <loss-chart
          id="cmp-flops-q"
          heading="FLOPS of the queries"
          y-label="FLOPS(q)"
          .series=${curves(runs, (r) => r.flopsQueries)}
        ></loss-chart>
        <loss-chart
          id="cmp-flops-d"
          heading="FLOPS of the documents"
          y-label="FLOPS(d)"
          .series=${curves(runs, (r) => r.flopsDocuments)}
        ></loss-chart>
        <loss-chart
          id="cmp-active"
          heading="Active dimensions per query"
          y-label="non-zero weights"
          .series=${curves(runs, (r) => r.activeQueries)}
        ></loss-chart>
        <loss-chart
          id="cmp-lr"
          heading="Learning rate"
          y-label="lr"
          .log=${false}
          .series=${curves(runs, (r) => r.lr)}
        ></loss-chart>
        <loss-chart
          id="cmp-lambda"
          heading="lambda_q (ramped)"
          y-label="lambda_q"
          .log=${false}
          .series=${curves(runs, (r) => r.lambdaQueries)}
        ></loss-chart>
      </div>
      <h4>
        ${
          set
            ? html`<label for="cmp-set">Results on</label>
                <select id="cmp-set" @change=${(e: Event) => (this._set = (e.target as HTMLSelectElement).value)}>
                  ${sets.map((s) => html`<option ?selected=${s === set}>${s}</option>`)}
                </select>`
            : 'Results'
        }
      </h4>
      ${set ? nothing : html`<p class="muted">No selected run was evaluated yet: evaluate them on a set read in the Evaluate tab.</p>`}
      <table id="cmp-table">
        <thead>
          <tr>
            <th scope="col">run</th>
            <th scope="col">k (norm after dividing)</th>
            <th scope="col">nDCG@10</th>
            <th scope="col">MRR@10</th>
            <th scope="col">R@1000</th>
            <th scope="col">active dims q / d</th>
            <th scope="col">avg_flops</th>
            <th scope="col" title="mean over queries of the summed posting length of their terms (documents × avg_flops): a latency proxy">
              postings / query
            </th>
            <th scope="col" title="the summed posting length a query reads: its median and 99th percentile over the set's queries">
              postings p50 / p99
            </th>
            <th scope="col">steps</th>
            <th scope="col">time</th>
          </tr>
        </thead>
        <tbody>
          ${runs.map((run) => {
            const e = set ? evaluationOn(run, set) : null;
            const m = e?.splade.metrics;
            const norm = run.model.meanRowNorm === null ? '' : ` (${(run.model.meanRowNorm / run.k).toFixed(2)})`;
            return html`<tr class=${run === best ? 'best' : ''} data-run=${run.id}>
              <td>
                ${runLabel(run, runs)}${run === best ? ' ★' : ''}${
                  run.recipe.inferenceFree
                    ? html`<br /><span class="muted inference-free"
                        >inference-free (${run.recipe.inferenceFree.trained ? 'trained' : 'static'} IDF queries)</span
                      >`
                    : nothing
                }
              </td>
              <td>${formatK(run.k)}${norm}</td>
              <td data-measure="ndcg_cut_10">${m ? m.ndcg_cut_10.toFixed(4) : '–'}</td>
              <td>${m ? m.recip_rank_10.toFixed(4) : '–'}</td>
              <td>${m ? m.recall_1000.toFixed(4) : '–'}</td>
              <td data-measure="active_dims">
                ${e ? `${e.splade.efficiency.query_active_dims.toFixed(1)} / ${e.splade.efficiency.corpus_active_dims.toFixed(1)}` : '–'}
              </td>
              <td>${e ? e.splade.efficiency.avg_flops.toFixed(2) : '–'}</td>
              <td data-measure="query_postings">${e ? Math.round(meanQueryPostings(e)).toLocaleString('en-US') : '–'}</td>
              <td data-measure="query_postings_p50_p99">${this._percentiles(e)}</td>
              <td>${run.step}</td>
              <td>${formatDuration(run.trainingMs)}</td>
            </tr>`;
          })}
        </tbody>
      </table>
      ${best ? html`<p class="muted" id="best-rule">★ ${runLabel(best, runs)}: ${BEST_RULE}</p>` : nothing}
      <scatter-chart
        heading="Effectiveness against FLOPS${set ? ` on ${set}` : ''}"
        x-label="avg_flops"
        y-label="nDCG@10"
        best=${best ? runLabel(best, runs) : ''}
        rule=${BEST_RULE}
        .points=${runs.flatMap((run) => {
          const e = set ? evaluationOn(run, set) : null;
          return e ? [{ label: runLabel(run, runs), x: e.splade.efficiency.avg_flops, y: e.splade.metrics.ndcg_cut_10 }] : [];
        })}
      ></scatter-chart>
      ${set ? this._pruning(runs, set) : nothing}`;
  }

  /**
   * Each run's pruning curve on the set (kept by its evaluation): nDCG@10 and the postings a query reads at each point,
   * the same points as `splade-lab index-stats`; runs evaluated before curves were kept are left out.
   */
  private _pruning(runs: RunRecord[], set: string) {
    const curves = runs.flatMap((run) => {
      const curve = evaluationOn(run, set)?.splade.pruningCurve;
      return curve ? [{ run, curve }] : [];
    });
    if (curves.length === 0) return nothing;
    const rules = curves[0].curve.map((p) => describeRule(p.rule));
    const count = (n: number) => Math.round(n).toLocaleString('en-US');
    return html`<h4>Pruning what-if on ${set}: nDCG@10, the postings a query reads, the index size (Anserini impacts)</h4>
      <table id="cmp-pruning">
        <thead>
          <tr>
            <th scope="col">run</th>
            ${rules.map((rule) => html`<th scope="col">${rule}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${curves.map(
            ({ run, curve }) => html`<tr data-run=${run.id}>
              <td>${runLabel(run, runs)}</td>
              ${curve.map(
                (p) =>
                  html`<td data-rule=${describeRule(p.rule)} data-ndcg=${p.ndcg_cut_10} data-postings=${p.meanQueryPostings}>
                    ${p.ndcg_cut_10.toFixed(4)}<br /><span class="muted">${count(p.meanQueryPostings)}</span><br /><span
                      class="muted"
                      >${formatBytes(p.indexBytes)}</span
                    >
                  </td>`,
              )}
            </tr>`,
          )}
        </tbody>
      </table>
      <p class="muted">
        Top N keeps each vector's N largest weights, queries too (as eval --prune N); a threshold drops document weights
        below it. Recomputed from the vectors the evaluation encoded, as splade-lab index-stats does.
      </p>`;
  }

  /** A run's p50 / p99 postings per query on the set, kept by evaluations since they were measured ('–' before). */
  private _percentiles(evaluation: SetEvaluation | null) {
    const kept = evaluation?.splade.queryPostings;
    if (!kept) return '–';
    const count = (n: number) => Math.round(n).toLocaleString('en-US');
    return `${count(kept.p50)} / ${count(kept.p99)}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'run-compare': RunCompare;
  }
}
