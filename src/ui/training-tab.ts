// <training-tab>: the Training tab's panels (the teaching demo, a training run, masked-LM training, lambdas, a sweep,
// the hand-off), which share the triplets read in the training panel and one recipe: the RecipeState that the
// training panel's <recipe-form> shows, that the sweep and the calibrator train with, and that picked lambdas go into.
import { LitElement, css, html } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { DEFAULT_SWEEP_KS, type ModelSummary, type TripletsSummary, type WorkerClient } from '../worker/api.ts';
import './handoff/handoff-panel.ts';
import './model/k-demo-panel.ts';
import './experiments/lambda-panel.ts';
import { RecipeState, type Lambdas } from './training/recipe-state.ts';
import './experiments/sweep-panel.ts';
import { baseStyles } from './common/theme.ts';
import './training/train-panel.ts';
import './training/mlm-panel.ts';

@customElement('training-tab')
export class TrainingTab extends LitElement {
  @property({ attribute: false }) client: WorkerClient | null = null;
  /** The loaded backbone (null while none is). */
  @property({ attribute: false }) summary: ModelSummary | null = null;
  /** The page's k. */
  @property({ type: Number }) k = 1;
  /** The Hub base URL in use (null: huggingface.co). */
  @property({ attribute: false }) hubUrl: string | null = null;
  @property({ type: Boolean, attribute: 'no-gpu' }) noGpu = false;
  /** The retrieval sets chosen in the Evaluate tab (runs can be evaluated on them). */
  @property({ attribute: false }) sets: string[] = [];
  /** The ks the sweep panel offers (a suggested sweep sets them). */
  @property({ attribute: false }) sweepKs: readonly number[] = DEFAULT_SWEEP_KS;
  /** The teaching demo's ks and steps (from the URL). */
  @property({ attribute: false }) demoKs: number[] = [1, 16];
  @property({ attribute: false }) demoSteps = 60;
  /** The triplets read in the training panel (the sweep, the calibrator and the hand-off use them too). */
  @state() private _triplets: TripletsSummary | null = null;
  /** The one recipe of this tab. */
  private readonly recipe = new RecipeState();

  static override styles = [
    baseStyles,
    css`
      :host {
        display: block;
      }
      h3 {
        font-size: 1.05em;
        margin: 0.3em 0 0.4em;
      }
      h3 + * {
        margin-bottom: 0.8em;
      }
      train-panel {
        border-top: 1px solid #ccc;
        padding-top: 0.4em;
      }
    `,
  ];

  override render() {
    return html`<h3>Teaching demo: k = 1 against a divided head</h3>
      <k-demo-panel .client=${this.client} .ks=${this.demoKs} .steps=${this.demoSteps} ?no-gpu=${this.noGpu}></k-demo-panel>
      <h3>Train the loaded backbone on your triplets</h3>
      <train-panel
        .client=${this.client}
        .summary=${this.summary}
        .k=${this.k}
        .hubUrl=${this.hubUrl}
        .recipe=${this.recipe}
        ?no-gpu=${this.noGpu}
        @triplets-change=${(e: CustomEvent<{ summary: TripletsSummary | null }>) => (this._triplets = e.detail.summary)}
      ></train-panel>
      <h3>Masked-LM training: where long head rows come from (and domain adaptation)</h3>
      <mlm-panel .client=${this.client} .summary=${this.summary} ?no-gpu=${this.noGpu}></mlm-panel>
      <h3>Lambdas: convert a value from another trainer, or calibrate for a sparsity</h3>
      <lambda-panel
        .client=${this.client}
        .summary=${this.summary}
        .triplets=${this._triplets}
        .sets=${this.sets}
        .k=${this.k}
        .recipe=${this._trainingRecipe}
        @lambdas-pick=${(e: CustomEvent<Lambdas>) => this.recipe.setLambdas(e.detail)}
      ></lambda-panel>
      <h3>Sweep k (or the lambdas) on the same triplets</h3>
      <sweep-panel
        .client=${this.client}
        .summary=${this.summary}
        .triplets=${this._triplets}
        .sets=${this.sets}
        .k=${this.k}
        .ks=${this.sweepKs}
        .recipe=${this._sweepRecipe}
      ></sweep-panel>
      <h3>Hand off to GPUs: the same training as a sentence-transformers project</h3>
      <handoff-panel
        .client=${this.client}
        .summary=${this.summary}
        .triplets=${this._triplets}
        .k=${this.k}
        .recipe=${this._trainingRecipe}
      ></handoff-panel>`;
  }

  /** The recipe for the calibrator and the sweep (stable functions: a new one each render would update them). */
  private readonly _trainingRecipe = () => this.recipe.recipeSettings();
  private readonly _sweepRecipe = () => this.recipe.sweepSettings();
}

declare global {
  interface HTMLElementTagNameMap {
    'training-tab': TrainingTab;
  }
}
