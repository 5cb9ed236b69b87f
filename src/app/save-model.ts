// A trained model as files for Python and search engines: Hugging Face weights and config, the tokenizer files,
// and the sentence-transformers SparseEncoder modules. Never written with a NaN or Inf weight.
import type { HostTensor } from '../io/host-tensor.ts';
import { buildSavedModelFiles, collectTokenizerFiles } from '../io/save.ts';
import { toHuggingFaceTensors } from '../model/weights.ts';
import type { TrainingRecipe } from '../train/trainer.ts';
import { NonFiniteError, findNonFinite } from '../util/finite.ts';
import type { OpenedModel } from './open-model.ts';

/** The files of a SparseEncoder folder for `params` (internal names) of `model`, by path inside the folder. */
export async function savedModelFiles(model: OpenedModel, params: Map<string, HostTensor>, recipe: TrainingRecipe): Promise<Map<string, Uint8Array>> {
  const bad = findNonFinite(params);
  if (bad) throw new NonFiniteError(`the trained model was not saved: parameter ${bad.name} holds ${bad.value} (index ${bad.index})`);
  return buildSavedModelFiles(
    { config: model.hfConfig, tensors: toHuggingFaceTensors(model.config, params), aliases: new Map() },
    { tokenizerFiles: await collectTokenizerFiles(model.files), maxSeqLength: Math.max(recipe.queryLength, recipe.documentLength) },
  );
}
