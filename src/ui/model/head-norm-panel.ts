// <head-norm-panel>: the centre piece: row-norm histogram before/after k, statistics, the paper's Table 1 beside them;
// a spike of rows of one length (rows training left where they started) is pointed out and, for the demo, explained.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { HeadStatsPair, RunHeadStats } from '../../worker/api.ts';
import './norm-histogram.ts';
import './head-stats-table.ts';
import './paper-table1.ts';
import '../common/panel-explainer.ts';
import { formatK, formatShare, formatStat } from '../common/format.ts';
import { DEMO_SPIKE_NOTE } from './demo-backbone.ts';
import { normSpike } from './norm-spike.ts';
import { baseStyles } from '../common/theme.ts';

/** How the figures were obtained, as the caption says it. */
const ORIGIN_CAPTIONS = {
  gpu: 'Measured on the GPU by the head-statistics kernels',
  host: "Measured on this computer's CPU (the head is larger than one GPU storage binding)",
  precomputed: 'Precomputed (no WebGPU here)',
} as const;

/** What the figures leave out or cannot show: rows that are NaN or Inf, or a head of zeros. */
function headWarning(stats: HeadStatsPair['before']) {
  const { nonFiniteRows, max } = stats.summary;
  if (nonFiniteRows > 0) {
    return html`<strong class="error" id="non-finite"
      >${nonFiniteRows} rows hold NaN or Inf values and are left out of every figure: this head is broken (a diverged
      run?).</strong
    >`;
  }
  return max > 0 ? nothing : 'All rows are zero.';
}

@customElement('head-norm-panel')
export class HeadNormPanel extends LitElement {
  @property({ attribute: false }) stats: HeadStatsPair | null = null;
  /** Set when the model in use is a run's: its head as loaded, divided by the run's k and after training. */
  @property({ attribute: false }) runHeads: RunHeadStats | null = null;
  /** The head is tied to the input embeddings (one matrix). */
  @property({ type: Boolean }) tied = false;
  @property({ type: Number }) k = 1;
  @property({ type: Number }) target: number = NaN;
  /** Bins evenly spaced in log(norm): dividing by k then shifts the histogram by log k. */
  @property({ type: Boolean, attribute: 'log-norm' }) logNorm = false;
  @property({ type: Boolean, attribute: 'log-counts' }) logCounts = false;
  /** New statistics are being computed. */
  @property({ type: Boolean }) busy = false;
  /** The model is the bundled demo backbone (its histogram's spike is explained). */
  @property({ type: Boolean }) demo = false;
  /** Table 1 row to highlight. */
  @property({ type: String, attribute: 'paper-row' }) paperRow = '';

  static override styles = [
    baseStyles,
    css`
      :host {
        display: block;
      }
      .options {
        display: flex;
        gap: 1.4em;
        margin: 0.4em 0;
        flex-wrap: wrap;
      }
      .layout {
        display: grid;
        grid-template-columns: minmax(0, 1fr) auto;
        gap: 1em 1.6em;
        align-items: start;
      }
      .tables {
        display: flex;
        flex-direction: column;
        gap: 1em;
      }
      .provenance {
        font-size: 0.85em;
        margin: 0.2em 0 0;
      }
      .busy {
        opacity: 0.6;
        transition: opacity 0.2s;
      }
      @media (max-width: 1100px) {
        .layout {
          grid-template-columns: 1fr;
        }
      }
    `,
  ];

  override render() {
    const stats = this.stats;
    return html`<panel-explainer>
        <p>
          Each row <i>W_head[v]</i> of the masked-language-model head turns a hidden state into the score (logit) of one
          vocabulary term <i>v</i>. The histogram counts rows by their length. Dividing the head by <i>k</i> divides every row's
          length, and so every logit before the bias, by <i>k</i>: the histogram slides left. Heads with long rows (RoBERTa,
          ModernBERT, Ettin) make huge logits, so SPLADE's log(1 + ReLU(·)) switches on thousands of terms and training starts
          from an enormous loss; the paper divides the head by k before training to fix that.
        </p>
        <span class="formula">‖W_head[v] / k‖₂ = ‖W_head[v]‖₂ / k,&nbsp;&nbsp; logits = H (W_head / k)ᵀ + b</span>
        <p>Anisotropy is the mean cosine similarity between rows; dividing by k does not change it.</p>
      </panel-explainer>
      <div class="options">
        <label
          ><input type="checkbox" id="log-norm" .checked=${this.logNorm} @change=${this._onLogNorm} /> log-scale norm axis</label
        >
        <label
          ><input type="checkbox" id="log-counts" .checked=${this.logCounts} @change=${this._onLogCounts} /> log-scale count
          axis</label
        >
      </div>
      ${
        stats
          ? html`<div class="layout ${this.busy ? 'busy' : ''}" aria-busy=${String(this.busy)}>
              <div>
                ${this._histogram(stats)} ${this.runHeads ? nothing : this._spike(stats)}
                <p class="provenance muted" id="provenance">
                  ${ORIGIN_CAPTIONS[stats.origin]}: ${stats.provenance}. ${headWarning(stats.before)}
                </p>
                ${
                  this.tied
                    ? html`<p class="muted" id="tied-note">
                        This head is tied to the input embeddings: it is the word-embedding matrix itself, so dividing it by k
                        also divides the embeddings (the paper's correction keeps the tying). The histogram above is therefore
                        both the head's and the embeddings' row norms.
                      </p>`
                    : nothing
                }
              </div>
              <div class="tables">
                <head-stats-table .original=${stats.before} .rescaled=${stats.after}></head-stats-table>
                <paper-table1 highlight=${this.paperRow}></paper-table1>
              </div>
            </div>`
          : html`<p class="muted">${this.busy ? 'Measuring the head on the GPU…' : 'Load a model to see its head.'}</p>
              <paper-table1 highlight=${this.paperRow}></paper-table1>`
      }`;
  }

  /** A bin of the k = 1 histogram that holds far more rows than its neighbours: what those rows are. */
  private _spike(stats: HeadStatsPair) {
    const spike = normSpike(stats.before);
    if (!spike) return nothing;
    return html`<p class="muted" id="spike-note" data-rows=${spike.rows}>
      The tall bar: ${spike.rows.toLocaleString('en-US')} rows (${formatShare(spike.share)}) have a norm between
      ${formatStat(spike.lo)} and ${formatStat(spike.hi)} at k = 1. Rows of one shared length are usually rows training left
      where they started: ids the pretraining text lacks or hardly uses (reserved [unusedN] pieces, rare scripts) keep their
      initial length. ${this.demo ? DEMO_SPIKE_NOTE : nothing}
    </p>`;
  }

  /** The run's three heads when a run's model is in use, else the loaded head at k = 1 and at k. */
  private _histogram(stats: HeadStatsPair) {
    const run = this.runHeads;
    if (!run) {
      return html`<norm-histogram
        .original=${stats.before}
        .rescaled=${stats.after}
        .k=${stats.after.k}
        .target=${this.target}
        ?log-counts=${this.logCounts}
      ></norm-histogram>`;
    }
    return html`<norm-histogram
        .original=${run.loaded}
        .rescaled=${run.divided}
        .trained=${run.trained}
        .k=${run.k}
        ?log-counts=${this.logCounts}
      ></norm-histogram>
      <p class="muted" id="run-heads">
        This run's head three ways: the backbone as loaded (mean row norm ${formatStat(run.loaded.summary.mean)}), divided by k =
        ${formatK(run.k)} where training started (${formatStat(run.divided.summary.mean)}), and after training
        (${formatStat(run.trained.summary.mean)}). The trained head already holds the division: keep k = 1 for it. The table
        beside gives the trained head's figures.
      </p>`;
  }

  private _onLogNorm(event: Event) {
    const on = (event.target as HTMLInputElement).checked;
    this.dispatchEvent(new CustomEvent('log-norm-change', { detail: { logNorm: on }, bubbles: true, composed: true }));
  }

  private _onLogCounts(event: Event) {
    this.logCounts = (event.target as HTMLInputElement).checked;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'head-norm-panel': HeadNormPanel;
  }
}
