// <run-details>: one run's page: what it trained (backbone, head norm, k, seed, the whole recipe, the data's
// fingerprint), how it went (status, steps, time, the last report, checkpoint, saved model, alarms, probes) and its
// evaluations.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { describeDropout, describeOptimizer, microBatches, type RunRecord } from '../../worker/api.ts';
import { formatDuration, formatK, formatStat } from '../common/format.ts';
import { baseStyles, tableStyles } from '../common/theme.ts';
import '../training/alarm-list.ts';
import '../training/probe-view.ts';

type Row = [label: string, value: unknown];

/** The recipe's fields as a reader of the paper names them. */
function recipeRows(run: RunRecord): Row[] {
  const { recipe } = run;
  const { schedule, optimizer } = recipe;
  return [
    ['batch (triplets per step)', recipe.batchSize],
    ['query / document length', `${recipe.queryLength} / ${recipe.documentLength} tokens`],
    ['peak learning rate', schedule.peakLr],
    [
      'schedule',
      `linear warm-up over ${Math.round(schedule.warmupRatio * 100)}% of ${schedule.totalSteps} steps, then linear decay`,
    ],
    ['optimiser', describeOptimizer(optimizer)],
    ['gradient clipping (global norm)', recipe.maxGradNorm ? recipe.maxGradNorm : 'none'],
    ['micro-batches per step', microBatches(recipe)],
    ['FLOPS over', recipe.flopsOver === 'step' ? 'the whole step' : 'each micro-batch'],
    ['dropout', describeDropout(recipe)],
    ['λ_q / λ_d (after the quadratic ramp)', `${recipe.lambdaQueries} / ${recipe.lambdaDocuments}`],
    ['data order', recipe.dataOrder === 'file' ? 'file order every epoch' : 'a seeded shuffle per epoch'],
    ['temperature τ', recipe.tau],
  ];
}

function modelRows(run: RunRecord): Row[] {
  const norm = run.model.meanRowNorm;
  return [
    ['backbone', run.model.name],
    ['architecture', run.model.architecture],
    ['weights key', run.model.key],
    ['k', formatK(run.k)],
    ['mean row norm of W_head', norm === null ? '–' : `${formatStat(norm)} as loaded, ${formatStat(norm / run.k)} divided by k`],
    ['seed', run.seed],
    ['training data', `${run.data.name}: ${run.data.triplets} triplets, CRC-32 ${run.data.crc32.toString(16).padStart(8, '0')}`],
  ];
}

function progressRows(run: RunRecord): Row[] {
  const last = run.reports.at(-1);
  return [
    ['status', run.message ? `${run.status}: ${run.message}` : run.status],
    ['steps', `${run.step} of ${run.recipe.schedule.totalSteps} in ${formatDuration(run.trainingMs)}`],
    ['started / last written', `${new Date(run.createdAt).toLocaleString()} / ${new Date(run.updatedAt).toLocaleString()}`],
    [
      'last report',
      last
        ? `step ${last.step}: total ${last.total.toPrecision(4)} (ranking ${last.rank.toPrecision(4)}, FLOPS q ${last.flopsQueries.toPrecision(4)}, FLOPS d ${last.flopsDocuments.toPrecision(4)}), active dimensions ${last.activeQueries.toFixed(1)} / ${last.activeDocuments.toFixed(1)}, lr ${last.lr.toExponential(2)}`
        : 'none yet',
    ],
    ['newest checkpoint', run.checkpoint ? `${run.checkpoint.name} (step ${run.checkpoint.step})` : 'none'],
    [
      'trained model',
      run.savedModel ? `${run.savedModel.where}: ${run.savedModel.files.join(', ')}` : 'not saved (the run did not finish)',
    ],
  ];
}

@customElement('run-details')
export class RunDetails extends LitElement {
  @property({ attribute: false }) run: RunRecord | null = null;

  static override styles = [
    baseStyles,
    tableStyles,
    css`
      :host {
        display: block;
      }
      .columns {
        display: grid;
        grid-template-columns: repeat(auto-fit, minmax(22em, 1fr));
        gap: 0.6em 1.6em;
        align-items: start;
      }
      th,
      td {
        vertical-align: top;
      }
      th[scope='row'] {
        text-align: left;
        font-weight: normal;
        color: #444;
      }
      td {
        overflow-wrap: anywhere;
      }
    `,
  ];

  override render() {
    const run = this.run;
    if (!run) return nothing;
    return html`<div class="columns">
        ${this._table('model', 'What it trained', modelRows(run))} ${this._table('recipe', 'Recipe', recipeRows(run))}
        ${this._table('progress', 'How it went', progressRows(run))}
      </div>
      ${
        run.alarms
          ? html`<h4>Alarms</h4>
              <alarm-list id="run-alarms" .alarms=${run.alarms}></alarm-list>`
          : nothing
      }
      ${
        run.probes?.length
          ? html`<h4>Probes</h4>
              <probe-view id="run-probes" .start=${run.probes[0]} .latest=${run.probes.at(-1)}></probe-view>`
          : nothing
      }
      ${this._evaluations(run)}`;
  }

  private _table(id: string, caption: string, rows: Row[]) {
    return html`<table id=${id}>
      <caption>
        ${caption}
      </caption>
      <tbody>
        ${rows.map(
          ([label, value]) =>
            html`<tr>
              <th scope="row">${label}</th>
              <td>${String(value)}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
  }

  private _evaluations(run: RunRecord) {
    if (run.evaluations.length === 0)
      return html`<p class="muted" id="no-evaluations">
        Not evaluated yet: select it and evaluate it on a set read in the Evaluate tab.
      </p>`;
    return html`<table id="evaluations">
      <caption>
        Evaluations
      </caption>
      <thead>
        <tr>
          <th scope="col">set</th>
          <th scope="col" class="num">nDCG@10</th>
          <th scope="col" class="num">MRR@10</th>
          <th scope="col" class="num">R@1000</th>
          <th scope="col" class="num">active dims q / d</th>
          <th scope="col" class="num">avg_flops</th>
          <th scope="col">evaluated</th>
        </tr>
      </thead>
      <tbody>
        ${run.evaluations.map((e) => {
          const m = e.splade.metrics;
          const eff = e.splade.efficiency;
          return html`<tr data-set=${e.set.name}>
            <td>${e.set.name}</td>
            <td class="num">${m.ndcg_cut_10.toFixed(4)}</td>
            <td class="num">${m.recip_rank_10.toFixed(4)}</td>
            <td class="num">${m.recall_1000.toFixed(4)}</td>
            <td class="num">${eff.query_active_dims.toFixed(1)} / ${eff.corpus_active_dims.toFixed(1)}</td>
            <td class="num">${eff.avg_flops.toFixed(2)}</td>
            <td>${new Date(e.evaluatedAt).toLocaleString()}</td>
          </tr>`;
        })}
      </tbody>
    </table>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'run-details': RunDetails;
  }
}
