// <recipe-form>: the fields of the training recipe (steps, batch, micro-batches, lengths, checkpoints, lr, warm-up,
// clipping, lambdas, dropout, FLOPS batch, optimiser, ranking loss, encoded or static queries) and "Use the paper's values", as a view of the page's shared
// RecipeState: what is typed goes into it, what is set in it (lambdas, a saved run) shows here, and so do its checks.
import { LitElement, css, html } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { TRAIN_LIMITS } from '../../worker/api.ts';
import { markField } from '../common/number-fields.ts';
import {
  RECIPE_NUMBERS,
  RecipeListener,
  RecipeState,
  type RecipeChange,
  type RecipeKey,
  type RecipeText,
  type RecipeValidity,
} from './recipe-state.ts';
import { baseStyles, fieldStyles } from '../common/theme.ts';
import { PAPER_LAMBDAS } from '../../contract/training/recipe.ts';

const CHOICES = ['optimizer', 'flopsOver', 'loss', 'queries'] as const;
const KEYS: readonly RecipeKey[] = [...RECIPE_NUMBERS.map((f) => f.key), 'dropout', ...CHOICES];

/** A field's id (the form's ids are what the e2e suite and a user's CSS name). */
function fieldId(key: RecipeKey): string {
  return key === 'flopsOver' ? 'flops-over' : key;
}

@customElement('recipe-form')
export class RecipeForm extends LitElement {
  /** The recipe shown and edited (the page shares one; a form alone has its own). */
  @property({ attribute: false }) state = new RecipeState();
  /** A run is going on: nothing can be changed. */
  @property({ type: Boolean }) disabled = false;

  /** The form follows its recipe: it hands over what is typed, shows what changed and marks what a check refused. */
  private readonly listener = new RecipeListener(this, () => this.state, {
    'recipe-read': () => this._commit(),
    'recipe-change': (event) => this._show((event as RecipeChange).detail.keys),
    'recipe-validity': (event) => {
      const { key, problem } = (event as RecipeValidity).detail;
      const field = this._field(key);
      if (field) markField(field, problem);
    },
  });

  static override styles = [
    baseStyles,
    fieldStyles,
    css`
      :host {
        display: block;
      }
    `,
  ];

  override render() {
    const text = this.state.text;
    const choice = (key: (typeof CHOICES)[number], value: string, label: string) =>
      html`<option value=${value} ?selected=${text[key] === value}>${label}</option>`;
    return html`<div class="fields" @change=${this._commit}>
        <slot></slot>
        ${RECIPE_NUMBERS.map(
          (f) =>
            html`<label class="field"
              >${f.label}
              <input
                id=${f.key}
                type="number"
                min=${f.range.min}
                max=${f.range.max}
                step=${f.range.integer ? '1' : 'any'}
                value=${text[f.key]}
                ?disabled=${this.disabled}
            /></label>`,
        )}
        <label class="field"
          >Dropout (blank: the backbone's)
          <input
            id="dropout"
            type="number"
            min="0"
            max=${TRAIN_LIMITS.dropout.max}
            step="any"
            placeholder="config"
            value=${text.dropout}
            ?disabled=${this.disabled}
        /></label>
        <label class="field"
          >FLOPS over
          <select id="flops-over" ?disabled=${this.disabled}>
            ${choice('flopsOver', 'micro-batch', 'each micro-batch (as each GPU)')}
            ${choice('flopsOver', 'step', 'the whole step')}
          </select></label
        >
        <label class="field"
          >Optimiser
          <select id="optimizer" ?disabled=${this.disabled}>
            ${choice('optimizer', 'adamw', 'AdamW')} ${choice('optimizer', 'sgd', 'SGD')}
          </select></label
        >
        <label class="field"
          >Ranking loss
          <select id="loss" ?disabled=${this.disabled}>
            ${choice('loss', 'contrastive', 'in-batch contrastive (the paper)')}
            ${choice('loss', 'marginmse', 'MarginMSE on teacher margins')} ${choice('loss', 'kl', 'KL on teacher scores')}
          </select></label
        >
        <label class="field"
          >Queries
          <select id="queries" ?disabled=${this.disabled}>
            ${choice('queries', 'encoded', 'encoded by the model')}
            ${choice('queries', 'static', 'static IDF table (inference-free)')}
            ${choice('queries', 'trained', 'IDF table, trained (inference-free)')}
          </select></label
        >
      </div>
      <p class="muted">
        <button id="paper-recipe" type="button" ?disabled=${this.disabled} @click=${() => this.state.usePaperRecipe()}>
          Use the paper's values
        </button>
        batch 64 × 8 micro-batches (the paper's 8 GPUs), 256 tokens, lr 1e-4 with 10% warm-up, clipping at 1.0, the backbone's
        dropout, λ_q ${PAPER_LAMBDAS.queries.toExponential()} and λ_d ${PAPER_LAMBDAS.documents.toExponential()}. Each micro-batch is its own pool of in-batch negatives and its own FLOPS batch.
        MarginMSE and KL distil a teacher's scores: the file's rows need a <code>label</code> (one margin per negative, or
        the scores of the positive and each negative). Inference-free queries are their tokens weighted by the IDF of the
        training documents: only documents are encoded (λ_q unused). Trained, the table learns with the model (its
        special tokens stay 0), as sentence-transformers' SparseStaticEmbedding does when not frozen.
      </p>`;
  }

  private _field(key: RecipeKey): HTMLInputElement | HTMLSelectElement | null {
    return this.renderRoot.querySelector<HTMLInputElement | HTMLSelectElement>(`#${fieldId(key)}`);
  }

  /** Hands what is typed to the recipe. */
  private _commit() {
    const typed: Partial<RecipeText> = {};
    for (const key of KEYS) {
      const field = this._field(key);
      if (field) typed[key] = field.value;
    }
    this.state.set(typed);
  }

  /** Shows fields the recipe changed. */
  private _show(keys: RecipeKey[]) {
    for (const key of keys) {
      const field = this._field(key);
      if (field && field.value !== this.state.text[key]) field.value = this.state.text[key];
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'recipe-form': RecipeForm;
  }
}
