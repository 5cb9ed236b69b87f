// <k-demo-panel>: the teaching demo: one button trains a synthetic large-norm head at several k side by side in the
// worker and draws the ranking loss and FLOPS(q) of each k, live, on log axes. Needs WebGPU, but no model and no data.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { KDemoSeries } from '../../worker/api.ts';
import { JobController } from '../common/job-controller.ts';
import { formatK } from '../common/format.ts';
import type { ChartSeries } from '../common/loss-chart.ts';
import '../common/loss-chart.ts';
import '../common/panel-explainer.ts';
import type { TrainingClient } from '../training/training-client.ts';
import { baseStyles, fieldRowStyles, trainingPanelStyles } from '../common/theme.ts';
import { DEMO_MAX_KS, DEMO_MAX_STEPS, K_MAX, K_MIN, parseKList } from '../url-state.ts';

/** "k = 1 and k = 16", "k = 1, k = 4 and k = 16". */
function kListText(ks: number[]): string {
  const names = ks.map((k) => `k = ${formatK(k)}`);
  return names.length < 2 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

@customElement('k-demo-panel')
export class KDemoPanel extends LitElement {
  /** The worker (null until it has started). */
  @property({ attribute: false }) client: TrainingClient | null = null;
  @property({ attribute: false }) ks: number[] = [1, 16];
  @property({ type: Number }) steps = 60;
  /** This browser has no WebGPU: the demo cannot run. */
  @property({ type: Boolean, attribute: 'no-gpu' }) noGpu = false;
  @state() private _runs: KDemoSeries[] = [];
  /** The running demo: status, error, cancel. */
  private readonly job = new JobController(this);
  @state() private _ksInvalid = false;
  /** What the worker says the last run's figures come from. */
  @state() private _provenance = '';

  static override styles = [
    baseStyles,
    trainingPanelStyles,
    fieldRowStyles,
    css`
      :host {
        display: block;
      }
      .badge {
        display: inline-block;
        background: #fff4d6;
        border: 1px solid #e69f00;
        border-radius: 4px;
        padding: 0.1em 0.5em;
        font-weight: 600;
        font-size: 0.9em;
      }
      #ks {
        width: 9em;
      }
      #steps {
        width: 6em;
      }
    `,
  ];

  override render() {
    const series = (value: (l: KDemoSeries['losses'][number]) => number): ChartSeries[] =>
      this._runs.map((run) => ({
        label: `k = ${formatK(run.k)}`,
        points: run.losses.map((l) => ({ x: l.step + 1, y: value(l) })),
      }));
    const provenance = `Figures from ${this._provenance || 'synthetic data: a seeded random head (mean row norm 2.5) and random hidden states; only the head is trained'}.`;
    return html`<panel-explainer heading="What am I looking at? (teaching demo)">
        <p>
          SPLADE is trained on the loss below: a ranking loss that rewards scoring each query's positive document above the other
          documents of the batch, plus FLOPS penalties that push the query and document vectors to few, small weights.
        </p>
        <span class="formula"
          >L = L<sub>rank</sub> + λ<sub>q</sub> FLOPS(q) + λ<sub>d</sub> FLOPS(d),&nbsp;&nbsp; FLOPS(V) = Σ<sub>j</sub> (mean<sub
            >i</sub
          >
          |v<sub>ij</sub>|)²</span
        >
        <p>
          Each line trains the same synthetic head, divided by a different k, on the same synthetic batch. Its rows are long (mean
          norm 2.5, like ModernBERT's), so at k = 1 the vectors' weights are huge and training starts from a ranking loss and
          FLOPS orders of magnitude higher than after dividing the head by 16: the paper's first finding (its Figure 4), which is
          why the y axes are logarithmic.
        </p>
      </panel-explainer>
      <p>
        <span class="badge" id="synthetic">Synthetic data</span>
        <span class="muted">No model and no real text: random hidden states and a random head, trained in the GPU worker.</span>
      </p>
      <form @submit=${this._onSubmit}>
        <label
          >k values (comma-separated)
          <input
            id="ks"
            .value=${this.ks.map(formatK).join(', ')}
            aria-invalid=${String(this._ksInvalid)}
            aria-describedby="ks-help"
            @change=${this._onSettings}
          />
        </label>
        <label
          >Steps
          <input
            id="steps"
            type="number"
            min="1"
            max=${DEMO_MAX_STEPS}
            step="1"
            .value=${String(this.steps)}
            @change=${this._onSettings}
        /></label>
        <button id="run-demo" class="primary" type="submit" ?disabled=${this.job.running || this.noGpu || !this.client}>
          Train ${kListText(this.ks)} side by side
        </button>
        ${this.job.running ? html`<button id="cancel-demo" type="button" @click=${this._onCancel}>Cancel</button>` : nothing}
      </form>
      <p id="ks-help" class="muted" ?hidden=${!this._ksInvalid}>
        Give 1 to ${DEMO_MAX_KS} values of k from ${K_MIN} to ${K_MAX}, e.g. "1, 4, 16".
      </p>
      <p id="demo-status" role="status" aria-live="polite">
        ${this.noGpu ? 'The teaching demo trains on the GPU and needs WebGPU, which this browser does not provide.' : this.job.status}
      </p>
      ${this.job.error ? html`<p class="error" role="alert" id="demo-error">${this.job.error}</p>` : nothing}
      <div class="charts">
        <loss-chart id="rank-chart" heading="Ranking loss L_rank" y-label="L_rank" .series=${series((l) => l.rank)}></loss-chart>
        <loss-chart
          id="flops-chart"
          heading="FLOPS(q) of the query vectors"
          y-label="FLOPS(q)"
          .series=${series((l) => l.flopsQueries)}
        ></loss-chart>
      </div>
      <p class="provenance muted" id="demo-provenance">
        ${provenance} They show how training starts, not how well any real model retrieves.
      </p>`;
  }

  /** Runs the demo for the current ks and steps (what the button does). */
  async run(): Promise<void> {
    const client = this.client;
    if (!client || this.job.running) return;
    const ks = [...this.ks];
    const steps = this.steps;
    this._runs = [];
    const result = await this.job.run(
      {
        starting: `Training ${kListText(ks.slice(0, 1))} (1 of ${ks.length})…`,
        cancel: () => client.cancelJob(),
        cancelling: 'Stopping after the k that is training now…',
        cancelled: () =>
          `Cancelled while training ${kListText(ks.slice(Math.max(0, this._runs.length - 1), this._runs.length)) || 'the first k'}.`,
        failed: (failure) => `The demo stopped: ${failure.message}`,
      },
      (progress) =>
        client.kDemo({ ks, steps }, (run, index, total, finished) => {
          this._runs = [...this._runs.slice(0, index), run];
          const step = run.losses.at(-1)?.step ?? 0;
          progress(
            !finished
              ? `Training ${kListText([ks[index]])} (${index + 1} of ${total}), step ${step + 1} of ${steps}…`
              : index + 1 < total
                ? `Trained ${kListText(ks.slice(0, index + 1))}; training ${kListText([ks[index + 1]])} (${index + 2} of ${total})…`
                : 'Finishing…',
          );
        }),
    );
    if (result) {
      this._provenance = result.provenance;
      this.job.setStatus(`Done: ${steps} steps for each of ${kListText(ks)}.`);
    }
  }

  private _onSubmit(event: Event) {
    event.preventDefault();
    if (this._readSettings()) void this.run();
  }

  private _onSettings() {
    this._readSettings();
  }

  /** Reads the fields; valid settings are kept and announced (the page puts them in the URL). */
  private _readSettings(): boolean {
    const ks = parseKList(this.renderRoot.querySelector<HTMLInputElement>('#ks')!.value);
    const stepsField = this.renderRoot.querySelector<HTMLInputElement>('#steps')!;
    const steps = Number(stepsField.value);
    this._ksInvalid = ks === null;
    const stepsOk = Number.isInteger(steps) && steps >= 1 && steps <= DEMO_MAX_STEPS;
    stepsField.setCustomValidity(stepsOk ? '' : `Steps must be a whole number from 1 to ${DEMO_MAX_STEPS}.`);
    if (!ks || !stepsOk) {
      stepsField.reportValidity();
      return false;
    }
    this.ks = ks;
    this.steps = steps;
    this.dispatchEvent(new CustomEvent('demo-settings-change', { detail: { ks, steps }, bubbles: true, composed: true }));
    return true;
  }

  private _onCancel() {
    this.job.cancel();
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'k-demo-panel': KDemoPanel;
  }
}
