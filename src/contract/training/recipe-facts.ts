// What a recipe means beyond its fields, for the trainer, the CLI, model cards and the Runs tab alike: micro-batches
// per step, the FLOPS weights at a step, the dropout rates, in numbers and in words. No GPU code.
import { uniformDropout, type DropoutRates, type ModelConfig } from '../model/model-config.ts';
import { flopsWeight, type LinearSchedule } from './schedule.ts';

/** The fields of a TrainingRecipe (trainer.ts) these facts read (declared here: the trainer imports this module). */
interface RecipeFields {
  schedule: LinearSchedule;
  lambdaQueries: number;
  lambdaDocuments: number;
  gradAccum?: number;
  flopsRampRatio?: number;
  dropout?: 'config' | number;
  inferenceFree?: { trained?: { l1: number } };
}

/** Micro-batches per step of a recipe. */
export function microBatches(recipe: Pick<RecipeFields, 'gradAccum'>): number {
  return recipe.gradAccum ?? 1;
}

/**
 * The FLOPS weights of step t (0-based) after the recipe's ramp. An inference-free run has no query FLOPS: its
 * lambdaQueries is the weight of the L1 on its trained query table's vectors (0 for a frozen table).
 */
export function flopsWeightsAt(recipe: RecipeFields, t: number): { lambdaQueries: number; lambdaDocuments: number } {
  const { totalSteps } = recipe.schedule;
  const ramp = recipe.flopsRampRatio;
  const queries = recipe.inferenceFree ? (recipe.inferenceFree.trained?.l1 ?? 0) : recipe.lambdaQueries;
  return {
    lambdaQueries: flopsWeight(queries, t, totalSteps, ramp),
    lambdaDocuments: flopsWeight(recipe.lambdaDocuments, t, totalSteps, ramp),
  };
}

/** "dropout ..." as a run's summary says it (the rates themselves when the config is known). */
export function describeDropout(recipe: Pick<RecipeFields, 'dropout'>, config?: ModelConfig): string {
  if (recipe.dropout === 'config') {
    if (!config) return "the backbone's dropout";
    const r = config.dropout;
    return `the backbone's dropout (embeddings ${r.embeddings}, attention probabilities ${r.attentionProbs}, attention output ${r.attentionOutput}, MLP activation ${r.mlpActivation}, MLP output ${r.mlpOutput})`;
  }
  return recipe.dropout ? `dropout ${recipe.dropout} everywhere` : 'no dropout';
}

/** The dropout rates a recipe trains `config` with. */
export function trainingDropout(recipe: Pick<RecipeFields, 'dropout'>, config: ModelConfig): DropoutRates {
  return recipe.dropout === 'config' ? config.dropout : uniformDropout(recipe.dropout ?? 0, config.architecture);
}
