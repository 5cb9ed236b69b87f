// <index-estimate>: what an index of the last evaluated set would cost, from the vectors the evaluation kept (nothing
// encoded again): posting lengths, the postings each query touches (the latency proxy), the index size under two
// impact models, and a pruning curve (nDCG@10 against index bytes) as a table and a chart, as JSON and TSV files.
// Special tokens among the longest lists ([PAD], [unused0]: no word of any text) are marked, and why they are there said.
import { Task } from '@lit/task';
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import {
  INDEX_STATS_DEFAULTS,
  describeRule,
  type IndexEstimate,
  type PruningPoint,
  type SetEvaluation,
  type WorkerClient,
} from '../../worker/api.ts';
import { downloadFile } from '../common/download.ts';
import { formatBytes, formatK } from '../common/format.ts';
import { baseStyles, tableStyles } from '../common/theme.ts';
import './pruning-chart.ts';

export type IndexEstimateClient = Pick<WorkerClient, 'indexEstimate'>;

/** The curve's points: the command line's defaults (`index-stats` without --prune-top / --prune-threshold). */
const REQUEST = {
  pruneTop: [...INDEX_STATS_DEFAULTS.pruneTop],
  pruneThreshold: [...INDEX_STATS_DEFAULTS.pruneThreshold],
  scale: INDEX_STATS_DEFAULTS.scale,
};

const CURVE_COLUMNS = [
  'rule',
  'queries_pruned',
  'postings',
  'index_bytes_anserini',
  'mean_query_postings',
  'ndcg_cut_10',
  'recip_rank_10',
] as const;

function count(value: number): string {
  return Number.isInteger(value) ? value.toLocaleString('en-US') : value.toLocaleString('en-US', { maximumFractionDigits: 1 });
}

/** The curve as TSV: one row per point, in the table's order, numbers unrounded. */
export function curveTsv(curve: readonly PruningPoint[]): string {
  const rows = curve.map((p) =>
    [describeRule(p.rule), p.queriesPruned, p.postings, p.indexBytes, p.meanQueryPostings, p.ndcg_cut_10, p.recip_rank_10].join(
      '\t',
    ),
  );
  return [CURVE_COLUMNS.join('\t'), ...rows].join('\n') + '\n';
}

@customElement('index-estimate')
export class IndexEstimateView extends LitElement {
  @property({ attribute: false }) client: IndexEstimateClient | null = null;
  /** The evaluated set the worker keeps ('' before any evaluation). */
  @property({ type: String }) set = '';
  /** Changes with every evaluation (the same set may be evaluated again under another k). */
  @property({ type: Number }) generation = 0;
  /** The evaluation of that set: its settings and nDCG@10, named beside the estimate. */
  @property({ attribute: false }) evaluation: SetEvaluation | null = null;
  @state() private _progress = '';

  private readonly estimate = new Task(this, {
    task: async ([client, set]) => {
      if (!client || !set) return null;
      this._progress = '';
      return client.indexEstimate(REQUEST, (done, total) => (this._progress = `pruning point ${done} of ${total}`));
    },
    args: () => [this.client, this.set, this.generation] as const,
  });

  static override styles = [
    baseStyles,
    tableStyles,
    css`
      :host {
        display: block;
      }
      .tables {
        display: flex;
        flex-wrap: wrap;
        gap: 1em 2em;
        align-items: start;
      }
      table {
        font-size: 0.85em;
      }
      th,
      td {
        padding: 0.2em 0.45em;
      }
      td.num,
      th.num {
        text-align: right;
      }
      tr[data-rule='all'] td,
      tr[data-rule='all'] th {
        font-weight: 600;
      }
      .curve {
        display: grid;
        grid-template-columns: minmax(0, auto) minmax(0, 1fr);
        gap: 1em;
        align-items: start;
      }
      @media (max-width: 1100px) {
        .curve {
          grid-template-columns: minmax(0, 1fr);
        }
      }
      .files {
        display: flex;
        gap: 0.5em;
        align-items: center;
      }
    `,
  ];

  override render() {
    return this.estimate.render({
      initial: () => nothing,
      pending: () =>
        html`<p id="estimate-status" role="status" class="muted">
          Measuring the index of ${this.set} from the kept vectors${this._progress ? `: ${this._progress}` : ''}…
        </p>`,
      error: (error) =>
        html`<p class="error" role="alert" id="estimate-error">The estimate failed: ${(error as Error).message ?? String(error)}</p>`,
      complete: (estimate) => (estimate ? this._estimate(estimate) : nothing),
    });
  }

  private _estimate(e: IndexEstimate) {
    const ev = this.evaluation?.set.name === e.set ? this.evaluation : null;
    const all = e.curve.find((p) => p.rule.kind === 'all');
    return html`<p class="muted" id="estimate-source">
        ${e.set}${ev ? html`, evaluated at k = ${formatK(ev.request.k)} with lengths ${ev.request.queryLength}/${ev.request.documentLength}${ev.request.prune ? `, top ${ev.request.prune} weights kept` : ''}` : nothing}:
        the vectors that evaluation kept, not encoded again (as <code>splade-lab index-stats</code> measures them). A
        term-at-a-time search reads the posting list of each query term, so the summed posting length per query is the work it
        does: the latency proxy. ${ev?.request.prune ? html`The vectors were already pruned by the evaluation, so top-N points at or above ${ev.request.prune} equal "all".` : nothing}
      </p>
      <div class="tables">
        ${this._lengths(e)} ${this._sizes(e)}
      </div>
      ${this._longest(e)}
      <div class="curve">
        <div>${this._curve(e, all)}</div>
        <pruning-chart
          download-name=${`pruning-curve-${e.set.replace(/[^\w.-]+/g, '_')}`}
          .points=${e.curve}
        ></pruning-chart>
      </div>
      <div class="files">
        <span class="muted">The estimate as a file:</span>
        <button id="download-json" @click=${() => this._download(e, 'json')}>JSON</button>
        <button id="download-tsv" @click=${() => this._download(e, 'tsv')}>Curve as TSV</button>
      </div>`;
  }

  /** The longest lists, special pieces marked, and (when some are special) why a piece of no word has a list at all. */
  private _longest(e: IndexEstimate) {
    const longest = e.postingLengths.longest;
    if (longest.length === 0) return nothing;
    const special = longest.filter((l) => l.special);
    return html`<p class="muted" id="longest">
        Longest posting lists:
        ${longest.map(
          (l, i) =>
            html`${i ? ', ' : ''}<span data-term=${l.term} data-special=${l.special ? 'yes' : 'no'}
                >${l.term}${l.special ? html` <em class="special">(special)</em>` : nothing} (${count(l.length)})</span
              >`,
        )}.
      </p>
      ${
        special.length
          ? html`<p class="muted" id="special-note">
              ${special.length === longest.length ? 'All of them are' : `${special.length} of them are`} special pieces: a
              tokenizer's special tokens and reserved [unusedN] pieces, which stand for no word of any text. They still get
              weights: SPLADE max-pools log(1 + ReLU(logit)) over a text's positions, and a head row that pretraining hardly
              trained (these ids are rarely or never the word to predict) points in an arbitrary direction, so some position
              of almost every text gives it a positive logit. So they sit in nearly every document, and a query that holds
              them reads those whole lists. Sparse training is meant to weigh them out (the Training tab's special-terms
              alarm says when it does not), and an engine can leave them out when it indexes.
            </p>`
          : nothing
      }`;
  }

  private _lengths(e: IndexEstimate) {
    const p = e.postingLengths;
    const q = e.queryPostings;
    return html`<table id="index-facts">
      <caption>
        Posting lists: ${count(p.postings)} postings in ${count(p.terms)} lists
      </caption>
      <thead>
        <tr>
          <th scope="col">measure</th>
          <th scope="col" class="num">mean</th>
          <th scope="col" class="num">p50</th>
          <th scope="col" class="num">p99</th>
          <th scope="col" class="num">max</th>
        </tr>
      </thead>
      <tbody>
        <tr data-fact="list-length">
          <th scope="row">documents per list</th>
          <td class="num" data-value=${p.mean}>${count(p.mean)}</td>
          <td class="num" data-value=${p.p50}>${count(p.p50)}</td>
          <td class="num" data-value=${p.p99}>${count(p.p99)}</td>
          <td class="num" data-value=${p.max}>${count(p.max)}</td>
        </tr>
        <tr data-fact="query-postings">
          <th scope="row" title="the sum over a query's terms of their posting lengths">postings a query reads</th>
          <td class="num" data-value=${q.mean}>${count(q.mean)}</td>
          <td class="num" data-value=${q.p50}>${count(q.p50)}</td>
          <td class="num" data-value=${q.p99}>${count(q.p99)}</td>
          <td class="num">–</td>
        </tr>
      </tbody>
    </table>`;
  }

  private _sizes(e: IndexEstimate) {
    const rows = [
      { key: 'anserini', name: 'Anserini impacts', size: e.size.anserini },
      { key: 'byte', name: 'rank_features (Lucene FeatureField)', size: e.size.byte },
    ];
    return html`<table id="index-size">
      <caption>
        Index size, two stated models
      </caption>
      <thead>
        <tr>
          <th scope="col">impacts</th>
          <th scope="col" class="num">scale</th>
          <th scope="col" class="num">postings</th>
          <th scope="col" class="num">bytes</th>
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (r) =>
            html`<tr data-model=${r.key} title=${r.size.model}>
              <th scope="row">${r.name}</th>
              <td class="num">${Number(r.size.scale.toPrecision(4))}</td>
              <td class="num" data-value=${r.size.postings}>${count(r.size.postings)}</td>
              <td class="num" data-value=${r.size.bytes}>${formatBytes(r.size.bytes)}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
  }

  private _curve(e: IndexEstimate, all: PruningPoint | undefined) {
    return html`<table id="curve">
      <caption>
        Pruning curve: top N keeps each vector's N largest weights (queries too, as eval --prune); w ≥ W drops document
        weights below W
      </caption>
      <thead>
        <tr>
          <th scope="col">kept</th>
          <th scope="col" class="num">postings</th>
          <th scope="col" class="num">index</th>
          <th scope="col" class="num" title="mean summed posting length per query">postings / query</th>
          <th scope="col" class="num">nDCG@10</th>
          <th scope="col" class="num">Δ nDCG@10</th>
          <th scope="col" class="num">MRR@10</th>
        </tr>
      </thead>
      <tbody>
        ${e.curve.map(
          (p) =>
            html`<tr data-rule=${describeRule(p.rule)}>
              <th scope="row">${describeRule(p.rule)}</th>
              <td class="num" data-measure="postings" data-value=${p.postings}>${count(p.postings)}</td>
              <td class="num" data-measure="index_bytes" data-value=${p.indexBytes}>${formatBytes(p.indexBytes)}</td>
              <td class="num" data-measure="mean_query_postings" data-value=${p.meanQueryPostings}>
                ${count(p.meanQueryPostings)}
              </td>
              <td class="num" data-measure="ndcg_cut_10" data-value=${p.ndcg_cut_10}>${p.ndcg_cut_10.toFixed(4)}</td>
              <td class="num">${all ? (p.ndcg_cut_10 - all.ndcg_cut_10).toFixed(4) : '–'}</td>
              <td class="num" data-measure="recip_rank_10" data-value=${p.recip_rank_10}>${p.recip_rank_10.toFixed(4)}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
  }

  private _download(e: IndexEstimate, kind: 'json' | 'tsv') {
    const stem = `index-estimate-${e.set.replace(/[^\w.-]+/g, '_')}`;
    if (kind === 'tsv') {
      downloadFile({ name: `${stem}.curve.tsv`, type: 'text/tab-separated-values', bytes: curveTsv(e.curve) });
      return;
    }
    const ev = this.evaluation?.set.name === e.set ? this.evaluation : null;
    const file = {
      ...e,
      evaluation: ev ? { model: ev.model, request: ev.request, evaluatedAt: ev.evaluatedAt } : null,
    };
    downloadFile({ name: `${stem}.json`, type: 'application/json', bytes: JSON.stringify(file, null, 2) + '\n' });
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'index-estimate': IndexEstimateView;
  }
}
