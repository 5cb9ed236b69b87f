// A trained model as files for Python and search engines: Hugging Face weights and config, the tokenizer files,
// the sentence-transformers SparseEncoder modules and a model card. Never written with a NaN or Inf weight.
import type { HfConfig } from '../../io/formats/model-folder.ts';
import type { HostTensor } from '../../io/host-tensor.ts';
import { buildRouterFiles, buildSavedModelFiles, collectTokenizerFiles, type QueryTokenizerInfo } from '../../io/formats/save.ts';
import type { ModelConfig } from '../../contract/model/model-config.ts';
import { decoderWeightName } from '../../model/layout.ts';
import { toHuggingFaceTensors } from '../../model/weights.ts';
import type { DataFingerprint } from '../../contract/training/training-report.ts';
import type { TrainingRecipe } from '../../contract/training/recipe.ts';
import { NonFiniteError, findNonFinite } from '../../util/finite.ts';
import { modelCard, type CardEvaluation, type ModelCardInfo } from './model-card.ts';
import type { OpenedModel } from './open-model.ts';

/** What the model card says beyond the weights: how the model was trained, and what is known of it. */
export interface SavedModelInfo {
  recipe: TrainingRecipe;
  k: number;
  seed: number;
  /** Optimiser steps the saved weights have taken. */
  steps: number;
  /** The training data's fingerprint; absent when the caller did not record it. */
  data?: DataFingerprint;
  evaluation?: CardEvaluation[];
  /** Hub dataset ids of the training data, when known. */
  datasets?: string[];
  language?: string | string[];
  license?: string;
}

/** The model-card facts that callers of saveTrainedModel know and a finished run does not: the data, and extras. */
export type ModelCardExtras = Pick<SavedModelInfo, 'data' | 'evaluation' | 'datasets' | 'language' | 'license'>;

/**
 * config.json as transformers writes it for the saved weights: the *ForMaskedLM class they belong to, the tying
 * spelled out (the tied decoder matrix is not in model.safetensors; transformers ties it again on load) and fp32,
 * the dtype of the saved tensors (a backbone config saying bfloat16 would otherwise make `torch_dtype="auto"` loads
 * cast them).
 */
function savedConfig(hfConfig: HfConfig, config: ModelConfig): HfConfig {
  const out: HfConfig = {
    ...hfConfig,
    architectures: [config.hfArchitecture],
    tie_word_embeddings: config.tieWordEmbeddings,
    torch_dtype: 'float32',
  };
  if ('dtype' in hfConfig) out.dtype = 'float32';
  return out;
}

/** Mean L2 norm of the rows of a (V, d) matrix, over the rows that are finite; NaN when none is. */
function meanRowNorm(matrix: HostTensor): number {
  const [V, d] = matrix.shape;
  let sum = 0;
  let rows = 0;
  for (let v = 0; v < V; v++) {
    let squares = 0;
    for (let j = 0; j < d; j++) squares += matrix.data[v * d + j] ** 2;
    if (Number.isFinite(squares)) {
      sum += Math.sqrt(squares);
      rows++;
    }
  }
  return rows ? sum / rows : NaN;
}

/** The card's description of the backbone the run started from (its head before the division by k). */
function baseOf(model: OpenedModel): ModelCardInfo['base'] {
  const ref = model.ref;
  const hub = ref.kind === 'hub' && !ref.hubUrl && ref.repoType !== 'dataset' ? ref : null;
  const head = model.params.get(decoderWeightName(model.config));
  return {
    name: model.name,
    hubId: hub ? hub.id : null,
    revision: hub?.revision,
    architecture: model.config.hfArchitecture,
    tiedHead: model.config.tieWordEmbeddings,
    vocabSize: model.config.vocabSize,
    meanRowNorm: head ? meanRowNorm(head) : undefined,
  };
}

/** The model type, tokenizer size and special tokens' texts a Router's query folder is written with. */
function queryTokenizerInfo(model: OpenedModel): QueryTokenizerInfo {
  const { tokenizer } = model;
  const text = (id: number | null) => (id === null ? undefined : tokenizer.idToToken(id));
  const ids = tokenizer.specialIds;
  return {
    modelType: model.config.modelType,
    vocabSize: Math.min(tokenizer.vocabSize, model.config.vocabSize),
    specials: { cls: text(ids.cls), sep: text(ids.sep), pad: text(ids.pad), mask: text(ids.mask), unk: text(ids.unk) },
  };
}

/**
 * The files of a SparseEncoder folder for `params` (internal names) of `model`, by path inside the folder; with
 * `queryWeights` (an inference-free run), a Router whose query route is that static table.
 */
export async function savedModelFiles(
  model: OpenedModel,
  params: Map<string, HostTensor>,
  info: SavedModelInfo,
  queryWeights?: Float32Array,
): Promise<Map<string, Uint8Array>> {
  const bad = findNonFinite(params);
  if (bad)
    throw new NonFiniteError(`the trained model was not saved: parameter ${bad.name} holds ${bad.value} (index ${bad.index})`);
  const maxSeqLength = Math.max(info.recipe.queryLength, info.recipe.documentLength);
  const tokenizerFiles = await collectTokenizerFiles(model.files);
  const encoder = buildSavedModelFiles(
    {
      config: savedConfig(model.hfConfig, model.config),
      tensors: toHuggingFaceTensors(model.config, params),
      aliases: new Map(),
    },
    { tokenizerFiles, maxSeqLength },
  );
  const files = queryWeights
    ? buildRouterFiles(encoder, queryWeights, tokenizerFiles, queryTokenizerInfo(model), {
        frozen: !info.recipe.inferenceFree?.trained,
      })
    : encoder;
  const card = modelCard({
    base: baseOf(model),
    k: info.k,
    recipe: info.recipe,
    seed: info.seed,
    data: info.data,
    steps: info.steps,
    maxSeqLength,
    evaluation: info.evaluation,
    datasets: info.datasets,
    language: info.language,
    license: info.license,
  });
  files.set('README.md', new TextEncoder().encode(card));
  return files;
}

/** Files that only a SparseEncoder folder has; a plain transformers backbone folder leaves them out. */
const SPARSE_ENCODER_ONLY = [
  'modules.json',
  'sentence_bert_config.json',
  'config_sentence_transformers.json',
  '1_SpladePooling/config.json',
];

/**
 * The backbone itself as a transformers folder (config.json, model.safetensors in fp32, the tokenizer files), head
 * not divided: what a Python project loads with AutoModelForMaskedLM when the backbone is not on the Hub.
 */
export async function backboneFiles(model: OpenedModel): Promise<Map<string, Uint8Array>> {
  return maskedLmFiles(model, model.params);
}

/**
 * A transformers masked-LM folder of `model` with `params` (internal names), e.g. after masked-LM training: config.json,
 * model.safetensors (fp32), the tokenizer files, and `readme` as README.md when given. Never with a NaN/Inf weight.
 */
export async function maskedLmFiles(
  model: OpenedModel,
  params: Map<string, HostTensor>,
  readme?: string,
): Promise<Map<string, Uint8Array>> {
  const bad = findNonFinite(params);
  if (bad) throw new NonFiniteError(`the model was not saved: parameter ${bad.name} holds ${bad.value} (index ${bad.index})`);
  const files = buildSavedModelFiles(
    {
      config: savedConfig(model.hfConfig, model.config),
      tensors: toHuggingFaceTensors(model.config, params),
      aliases: new Map(),
    },
    { tokenizerFiles: await collectTokenizerFiles(model.files) },
  );
  for (const name of SPARSE_ENCODER_ONLY) files.delete(name);
  if (readme !== undefined) files.set('README.md', new TextEncoder().encode(readme));
  return files;
}
