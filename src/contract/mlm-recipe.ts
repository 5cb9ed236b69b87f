// A masked-language-model training run's recipe as plain data: sequence length, masking, and the step settings every
// objective shares (batch, optimiser, schedule, accumulation, clipping, dropout). Saved in checkpoints, compared on resume.
import type { StepRecipe } from './recipe.ts';

/** The label of a position that is not predicted (Hugging Face's ignore index). */
export const IGNORED_LABEL = -100;

/** How a text becomes sequences: cut into full blocks of maxLength (run_mlm.py's default), or one per line. */
export type MlmLayout = 'grouped' | 'line-by-line' | 'pre-masked';

export interface MlmRecipe extends StepRecipe {
  objective: 'mlm';
  /** Padded (and, grouped, exact) length of every sequence. */
  maxLength: number;
  /** Chance of each non-special token to be predicted (Hugging Face's mlm_probability); unused for pre-masked batches. */
  mlmProbability: number;
  layout: MlmLayout;
}

/** Whether a stored recipe is a masked-LM one (SPLADE recipes carry no objective field). */
export function isMlmRecipe(recipe: StepRecipe): recipe is MlmRecipe {
  return (recipe as Partial<MlmRecipe>).objective === 'mlm';
}
