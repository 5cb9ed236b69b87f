// <lambda-panel>: lambdas that mean the same thing everywhere: a converter from sentence-transformers', naver/splade's
// and tevatron's conventions to splade-lab's, and the calibrator (short runs on the loaded backbone and triplets that
// search lambda_q and lambda_d for a target of active dimensions); either can hand its lambdas to the training form.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import {
  CALIBRATE_LIMITS,
  CONVENTION_FACTS,
  TRAIN_LIMITS,
  LAMBDA_CONVENTIONS,
  convertLambdas,
  toPageFailure,
  type CalibrationResult,
  type CalibrationTrial,
  type ConventionSetup,
  type LambdaConvention,
  type ModelSummary,
  type PageCalibrationRequest,
  type TripletsSummary,
  type WorkerClient,
} from '../../worker/api.ts';
import { formatLambda, formatStat } from '../common/format.ts';
import { JobController } from '../common/job-controller.ts';
import { readNumberFields } from '../common/number-fields.ts';
import type { TrainingRecipeSettings } from '../training/recipe-state.ts';
import { baseStyles, fieldStyles, tableStyles } from '../common/theme.ts';
import { LAPTOP_RUN } from '../../contract/training/recipe.ts';
import { CALIBRATE_DEFAULTS } from '../../contract/experiments/calibration.ts';

export type LambdaClient = Pick<WorkerClient, 'calibrate' | 'cancelJob'>;

/** The calibrator's fields with their defaults (a laptop-sized trial). */
const CALIBRATION_FIELDS = [
  {
    key: 'targetQueries',
    label: 'Target active dims (queries)',
    value: CALIBRATE_DEFAULTS.targetQueries,
    range: CALIBRATE_LIMITS.target,
  },
  {
    key: 'targetDocuments',
    label: 'Target active dims (documents)',
    value: CALIBRATE_DEFAULTS.targetDocuments,
    range: CALIBRATE_LIMITS.target,
  },
  { key: 'tolerance', label: 'Tolerance (relative)', value: CALIBRATE_DEFAULTS.tolerance, range: CALIBRATE_LIMITS.tolerance },
  { key: 'trials', label: 'Trials at most', value: CALIBRATE_DEFAULTS.trials, range: CALIBRATE_LIMITS.trials },
  {
    key: 'steps',
    label: 'Steps per trial',
    value: CALIBRATE_DEFAULTS.stepsPerTrial,
    range: { ...TRAIN_LIMITS.steps, min: 1 },
  },
  { key: 'batchSize', label: 'Batch (triplets)', value: LAPTOP_RUN.batchSize, range: TRAIN_LIMITS.batchSize },
  { key: 'queryLength', label: 'Query tokens', value: LAPTOP_RUN.queryLength, range: TRAIN_LIMITS.queryLength },
  { key: 'documentLength', label: 'Document tokens', value: LAPTOP_RUN.documentLength, range: TRAIN_LIMITS.documentLength },
  { key: 'peakLr', label: 'Peak lr', value: LAPTOP_RUN.peakLr, range: TRAIN_LIMITS.peakLr },
] as const;

@customElement('lambda-panel')
export class LambdaPanel extends LitElement {
  @property({ attribute: false }) client: LambdaClient | null = null;
  @property({ attribute: false }) summary: ModelSummary | null = null;
  @property({ attribute: false }) triplets: TripletsSummary | null = null;
  /** The page's k: every calibration trial divides the head by it. */
  @property({ type: Number }) k = 1;
  /** Names of the sets read in the Evaluate tab. */
  @property({ attribute: false }) sets: string[] = [];
  /** The training form's recipe (optimizer, warm-up, clipping, dropout, micro-batches), which every trial trains with. */
  @property({ attribute: false }) recipe: (() => TrainingRecipeSettings | null) | undefined;
  @state() private _from: LambdaConvention = 'sentence-transformers';
  /** The last conversion, or why the converter's fields cannot be converted. */
  @state() private _conversion: ReturnType<typeof convertLambdas> | { error: string } | null = null;
  @state() private _trials: CalibrationTrial[] = [];
  @state() private _result: CalibrationResult | null = null;
  private readonly job = new JobController(this);

  static override styles = [
    baseStyles,
    fieldStyles,
    tableStyles,
    css`
      :host {
        display: block;
      }
      .error {
        white-space: pre-wrap;
      }
    `,
  ];

  override render() {
    const facts = CONVENTION_FACTS[this._from];
    const running = this.job.running;
    const ready = !!this.client && !!this.summary && !!this.triplets && !running;
    return html`<h4>Bring a lambda from elsewhere</h4>
      <div class="fields">
        <label class="field"
          >From
          <select
            id="convention"
            @change=${(e: Event) => (this._from = (e.target as HTMLSelectElement).value as LambdaConvention)}
          >
            ${LAMBDA_CONVENTIONS.filter((c) => c !== 'splade-lab').map((c) => html`<option value=${c} ?selected=${c === this._from}>${CONVENTION_FACTS[c].name}</option>`)}
          </select></label
        >
        <label class="field">lambda_q <input id="from-lq" type="number" step="any" value="5e-5" /></label>
        <label class="field">lambda_d <input id="from-ld" type="number" step="any" value="3e-5" /></label>
        <label class="field">Their batch per GPU <input id="from-batch" type="number" value="16" /></label>
        <label class="field">GPUs <input id="from-devices" type="number" value="1" /></label>
        <label class="field">Negatives per query <input id="from-negatives" type="number" value="1" /></label>
        <label class="field"
          >Their ranking loss
          <select id="from-loss">
            <option value="contrastive">contrastive (in-batch cross-entropy)</option>
            <option value="distillation">distillation (MarginMSE, KL)</option>
          </select></label
        >
        <label class="field">Your batch <input id="to-batch" type="number" value="8" /></label>
        <button id="convert" @click=${this._convert}>Convert</button>
      </div>
      <p class="muted" id="convention-facts">
        ${facts.name}: ${facts.loss}. FLOPS rows: ${facts.flopsRows}. Typical: ${facts.typical}. Read from ${facts.source}.
      </p>
      ${
        this._conversion
          ? 'error' in this._conversion
            ? html`<p class="error" role="alert" id="conversion-error">${this._conversion.error}</p>`
            : this._renderConversion(this._conversion)
          : nothing
      }
      <h4>Calibrate: lambdas that reach a sparsity on your data</h4>
      <p class="muted">
        Short runs from the same start (the loaded backbone, head divided by k = ${this.k}, the same data order), each with the
        lambdas the search picks next (the first: the paper's), until the mean active dimensions over each run's last quarter are
        within the tolerance of the targets. Every trial trains with the training form's optimizer, warm-up, clipping, dropout and
        micro-batches, so the lambdas it finds carry over to that form's run. Each trial is kept in the Runs tab.
      </p>
      <div class="fields">
        ${CALIBRATION_FIELDS.map(
          (f) =>
            html`<label class="field"
              >${f.label} <input id="cal-${f.key}" type="number" step="any" value=${f.value} ?disabled=${running}
            /></label>`,
        )}
        <label
          ><input type="checkbox" id="cal-evaluate" ?disabled=${running || this.sets.length === 0} /> evaluate each trial on
          ${this.sets.length ? this.sets.join(', ') : 'the sets read in the Evaluate tab (none yet)'}</label
        >
      </div>
      <div class="fields">
        <button id="calibrate" class="primary" ?disabled=${!ready} @click=${this._calibrate}>Calibrate</button>
        ${running ? html`<button id="cancel-calibration" @click=${() => this.job.cancel()}>Cancel</button>` : nothing}
        <span class="muted"
          >${this.summary ? (this.triplets ? '' : 'Pick triplets above first.') : 'Load a backbone first.'}</span
        >
      </div>
      <p id="calibration-status" role="status" aria-live="polite">${this.job.status}</p>
      ${this.job.error ? html`<p class="error" role="alert" id="calibration-error">${this.job.error}</p>` : nothing}
      ${this._trials.length ? this._renderTrials() : nothing}`;
  }

  private _renderConversion(c: ReturnType<typeof convertLambdas>) {
    return html`<div id="conversion">
      ${
        c.convertible
          ? html`<p>
              In splade-lab:
              <strong>lambda_q ${formatLambda(c.lambdaQueries)}, lambda_d ${formatLambda(c.lambdaDocuments)}</strong>
              <button id="use-converted" @click=${() => this._pick(c.lambdaQueries, c.lambdaDocuments)}>Use in training</button>
            </p>`
          : html`<p><strong>No formula carries these values.</strong></p>`
      }
      <ul>
        ${c.steps.map((s) => html`<li>${s}</li>`)} ${c.caveats.map((s) => html`<li class="muted">${s}</li>`)}
      </ul>
    </div>`;
  }

  private _renderTrials() {
    const suggested = this._result?.suggested;
    const evaluated = this._trials.some((t) => t.evaluations.length > 0);
    return html`<table id="calibration-trials">
        <caption>
          Trials (FLOPS: the batch's own, and what the paper's batch of 64 would see for the same vectors)
        </caption>
        <thead>
          <tr>
            <th scope="col">Trial</th>
            <th scope="col">Batch</th>
            <th scope="col">lambda_q</th>
            <th scope="col">lambda_d</th>
            <th scope="col">Active q</th>
            <th scope="col">Active d</th>
            <th scope="col">FLOPS q (at 64)</th>
            <th scope="col">FLOPS d (at 64)</th>
            ${evaluated ? html`<th scope="col">nDCG@10</th>` : nothing}
          </tr>
        </thead>
        <tbody>
          ${this._trials.map(
            (t) =>
              html`<tr class=${suggested?.trial === t.index ? 'best' : ''}>
                <td>${t.index + 1}${t.purpose === 'batch' ? ' (batch)' : ''}${suggested?.trial === t.index ? ' ★' : ''}</td>
                <td class="num">${t.batchSize}</td>
                <td class="num">${formatLambda(t.lambdaQueries)}</td>
                <td class="num">${formatLambda(t.lambdaDocuments)}</td>
                <td class="num">${t.activeQueries.toFixed(1)}</td>
                <td class="num">${t.activeDocuments.toFixed(1)}</td>
                <td class="num">${formatStat(t.flopsQueries)} (${formatStat(t.paperBatchFlopsQueries)})</td>
                <td class="num">${formatStat(t.flopsDocuments)} (${formatStat(t.paperBatchFlopsDocuments)})</td>
                ${evaluated ? html`<td class="num">${t.evaluations.map((e) => `${e.set.name} ${e.splade.metrics.ndcg_cut_10.toFixed(3)}`).join(', ')}</td>` : nothing}
              </tr>`,
          )}
        </tbody>
      </table>
      ${
        suggested
          ? html`<p id="suggested">
              Suggested: lambda_q ${formatLambda(suggested.lambdaQueries)}, lambda_d ${formatLambda(suggested.lambdaDocuments)}
              (trial ${suggested.trial + 1}, ${suggested.within ? 'within' : 'not within'} the tolerance).
              <button id="use-suggested" @click=${() => this._pick(suggested.lambdaQueries, suggested.lambdaDocuments)}>
                Use in training
              </button>
            </p>`
          : nothing
      }`;
  }

  private _number(id: string): number {
    return Number(this.renderRoot.querySelector<HTMLInputElement | HTMLSelectElement>(`#${id}`)?.value);
  }

  private _convert() {
    const setup = (side: 'from' | 'to'): ConventionSetup =>
      side === 'from'
        ? {
            convention: this._from,
            batchPerDevice: this._number('from-batch'),
            devices: this._number('from-devices'),
            negatives: this._number('from-negatives'),
            ranking: this.renderRoot.querySelector<HTMLSelectElement>('#from-loss')!.value as ConventionSetup['ranking'],
          }
        : {
            convention: 'splade-lab',
            batchPerDevice: this._number('to-batch'),
            devices: 1,
            negatives: 1,
            ranking: 'contrastive',
          };
    try {
      this._conversion = convertLambdas({
        from: setup('from'),
        to: setup('to'),
        lambdaQueries: this._number('from-lq'),
        lambdaDocuments: this._number('from-ld'),
      });
    } catch (error) {
      this._conversion = { error: toPageFailure(error).message };
    }
  }

  private _pick(lambdaQueries: number, lambdaDocuments: number) {
    this.dispatchEvent(
      new CustomEvent('lambdas-pick', { detail: { lambdaQueries, lambdaDocuments }, bubbles: true, composed: true }),
    );
  }

  private _request(): PageCalibrationRequest | null {
    const values = readNumberFields(this.renderRoot, CALIBRATION_FIELDS, 'cal-');
    if (!values) return null;
    const recipe = this.recipe ? this.recipe() : {};
    if (recipe === null) return null;
    const evaluate = this.renderRoot.querySelector<HTMLInputElement>('#cal-evaluate')?.checked && this.sets.length > 0;
    return {
      train: {
        ...recipe,
        k: this.k,
        steps: values.steps,
        batchSize: values.batchSize,
        queryLength: values.queryLength,
        documentLength: values.documentLength,
        peakLr: values.peakLr,
        checkpointEvery: 1_000_000,
        resume: false,
      },
      target: { queries: values.targetQueries, documents: values.targetDocuments, tolerance: values.tolerance },
      maxTrials: values.trials,
      evaluate: evaluate ? { sets: this.sets, queryLength: 64, documentLength: 256, topK: 1000, prune: 0 } : undefined,
    };
  }

  private async _calibrate() {
    const client = this.client;
    const request = this._request();
    if (!client || !request) return;
    this._trials = [];
    this._result = null;
    const result = await this.job.run(
      {
        starting: 'Starting the first trial: uploading the model and compiling the GPU kernels…',
        cancel: () => client.cancelJob(),
        cancelling: 'Cancelling after the current step…',
        cancelled: () => `Cancelled after ${this._trials.length} trials; they are kept in the Runs tab.`,
        failed: (failure) => `The calibration stopped: ${failure.message}`,
      },
      (progress) =>
        client.calibrate(request, (event) => {
          if (event.kind === 'trial-start') {
            const r = event.request;
            progress(
              `Trial ${event.index + 1}: lambda_q ${formatLambda(r.lambdaQueries ?? 0)}, lambda_d ${formatLambda(r.lambdaDocuments ?? 0)}, batch ${r.batchSize}…`,
            );
          } else if (event.kind === 'train' && event.event.kind === 'report') {
            const r = event.event.report;
            progress(
              `Trial ${event.index + 1}: step ${r.step + 1} of ${r.steps}, active q ${r.activeQueries.toFixed(1)} d ${r.activeDocuments.toFixed(1)}`,
            );
          } else if (event.kind === 'trial-done') {
            this._trials = [...this._trials, event.trial];
          }
        }),
    );
    if (result) {
      this._result = result;
      this.job.setStatus(
        `Done: ${result.trials.length} trials; ${result.suggested.within ? 'the target is reached' : 'the target was not reached within the trials; the closest trial is suggested'}.`,
      );
    }
    this.dispatchEvent(new CustomEvent('runs-change', { bubbles: true, composed: true }));
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'lambda-panel': LambdaPanel;
  }
}
