// <handoff-panel>: when the browser is outgrown: a ready sentence-transformers project that trains the loaded backbone
// on the picked triplets with the page's k and the paper's recipe on N GPUs (torchrun), with a one-minute check that
// PyTorch computes splade-lab's first-batch losses, downloaded as a zip.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import {
  TRAIN_LIMITS,
  type HandoffRequest,
  type ModelSummary,
  type TripletsSummary,
  type WorkerClient,
} from '../../worker/api.ts';
import { downloadFile } from '../common/download.ts';
import { formatK } from '../common/format.ts';
import { JobController } from '../common/job-controller.ts';
import { readNumberFields } from '../common/number-fields.ts';
import { baseStyles, fieldStyles, trainingPanelStyles } from '../common/theme.ts';
import type { TrainingRecipeSettings } from '../training/recipe-state.ts';
import { PAPER_LAMBDAS } from '../../contract/training/recipe.ts';

export type HandoffClient = Pick<WorkerClient, 'handoff' | 'cancelJob'>;

const FIELDS = [
  { key: 'gpus', label: 'GPUs', value: 8, range: { min: 1, max: 1024, integer: true } },
  { key: 'batchSize', label: 'Batch per GPU', value: 64, range: TRAIN_LIMITS.batchSize },
  { key: 'queryLength', label: 'Query tokens', value: 256, range: TRAIN_LIMITS.queryLength },
  { key: 'documentLength', label: 'Document tokens', value: 256, range: TRAIN_LIMITS.documentLength },
] as const;

/** What of the training form's recipe the hand-off takes: the ranking loss and the queries (the rest is the paper's). */
function recipeChoices(recipe: TrainingRecipeSettings | null | undefined): Partial<HandoffRequest> {
  if (!recipe) return {};
  return {
    ...(recipe.loss ? { loss: recipe.loss } : {}),
    ...(recipe.inferenceFree ? { inferenceFree: true } : {}),
    ...(recipe.trainQueryWeights ? { trainQueryWeights: true } : {}),
  };
}

@customElement('handoff-panel')
export class HandoffPanel extends LitElement {
  @property({ attribute: false }) client: HandoffClient | null = null;
  @property({ attribute: false }) summary: ModelSummary | null = null;
  @property({ attribute: false }) triplets: TripletsSummary | null = null;
  @property({ type: Number }) k = 1;
  /** The training form's recipe, read when the project is written: its ranking loss and inference-free queries go along. */
  @property({ attribute: false }) recipe: (() => TrainingRecipeSettings | null) | null = null;

  private readonly job = new JobController(this);

  static override styles = [
    baseStyles,
    trainingPanelStyles,
    fieldStyles,
    css`
      :host {
        display: block;
      }
    `,
  ];

  override render() {
    const ready = !!this.client && !!this.summary && !!this.triplets && !this.job.running;
    return html`<p class="muted">
        One epoch over the picked triplets with the paper's recipe (AdamW, lr 1e-4, warm-up 0.1, λ_q ${PAPER_LAMBDAS.queries.toExponential()}, λ_d ${PAPER_LAMBDAS.documents.toExponential()} ramped over a
        third, bf16), the head divided by k = ${formatK(this.k)} before training, and the training form's ranking loss and
        queries (distillation reads the triplets' labels; inference-free queries ship their IDF table as idf.json). The zip holds train.py, launch.sh (torchrun),
        pinned requirements, the triplets, and check_step1.py: run it first on the GPU machine; it must print PASS (splade-lab's
        first batch and step-0 losses, reproduced in PyTorch).
        ${this.summary?.run ? html`<strong>The loaded model is a trained run: its head is already divided by k = ${formatK(this.summary.run.k)}.</strong>` : nothing}
      </p>
      <div class="fields">
        ${FIELDS.map((f) => html`<label class="field">${f.label} <input id="handoff-${f.key}" type="number" value=${f.value} ?disabled=${this.job.running} /></label>`)}
        <button id="handoff" class="primary" ?disabled=${!ready} @click=${this._handoff}>Write the project (.zip)</button>
        <span class="muted"
          >${this.summary ? (this.triplets ? '' : 'Pick triplets above first.') : 'Load a backbone first.'}</span
        >
      </div>
      <p id="handoff-status" role="status" aria-live="polite">${this.job.status}</p>
      ${this.job.error ? html`<p class="error" role="alert" id="handoff-error">${this.job.error}</p>` : nothing}`;
  }

  private async _handoff() {
    const client = this.client;
    if (!client) return;
    const values = readNumberFields(this.renderRoot, FIELDS, 'handoff-');
    if (!values) return;
    const file = await this.job.run(
      {
        starting: 'Writing the project: one training step of splade-lab on the first batch gives the losses to check against…',
        cancel: () => client.cancelJob(),
        cancelled: () => 'Cancelled.',
        failed: (failure) => `The hand-off failed: ${failure.message}`,
      },
      () => client.handoff({ k: this.k, ...values, ...recipeChoices(this.recipe?.()) }),
    );
    if (file) {
      downloadFile(file);
      this.job.setStatus(`Downloaded ${file.name}: unzip it on the GPU machine and follow its README.`);
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'handoff-panel': HandoffPanel;
  }
}
