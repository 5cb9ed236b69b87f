// A masked-language-model training run's recipe as plain data: sequence length, masking, and the step settings every
// objective shares (batch, optimiser, schedule, accumulation, clipping, dropout). Saved in checkpoints, compared on resume.
import type { Architecture } from '../model/model-config.ts';
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

/**
 * The masking rate each family was pretrained at, where its paper states it: BERT, RoBERTa, DistilBERT and ALBERT
 * 15% (the BERT recipe, run_mlm.py's default); ModernBERT 30% (its paper, and Ettin, built on ModernBERT's recipe).
 * GTE's MLM is left out (no rate stated for it here).
 */
export const PRETRAINING_MASKING: Partial<Record<Architecture, { rate: number; family: string }>> = {
  bert: { rate: 0.15, family: 'BERT' },
  roberta: { rate: 0.15, family: 'RoBERTa' },
  distilbert: { rate: 0.15, family: 'DistilBERT' },
  albert: { rate: 0.15, family: 'ALBERT' },
  modernbert: { rate: 0.3, family: 'ModernBERT (and Ettin, on its recipe)' },
};

/** A run's note when its masking probability is not the rate its backbone's family was pretrained at, or undefined. */
export function maskingRateNote(architecture: Architecture, mlmProbability: number): string | undefined {
  const pretrained = PRETRAINING_MASKING[architecture];
  if (!pretrained || Math.abs(pretrained.rate - mlmProbability) < 1e-9) return undefined;
  const percent = `${Math.round(pretrained.rate * 100)}%`;
  return (
    `${pretrained.family} was pretrained with ${percent} masking; --mlm-probability ${mlmProbability} is off its recipe ` +
    `(--mlm-probability ${pretrained.rate} follows it)`
  );
}
