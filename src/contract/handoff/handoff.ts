// The hand-off's request: what the user sets for the Python project splade-lab writes beside a trained run.
import type { TrainRequest } from '../training/training-request.ts';

/** What the user sets; everything else is the paper's recipe, as in training (requests.ts planTraining). */
export interface HandoffRequest {
  k: number;
  /** GPUs of the training machine (torchrun processes); the batch is per GPU. */
  gpus: number;
  batchSize: number;
  queryLength: number;
  documentLength: number;
  /** Optimiser steps of the run; when absent, `epochs` (default 1). */
  steps?: number;
  epochs?: number;
  peakLr?: number;
  lambdaQueries?: number;
  lambdaDocuments?: number;
  seed?: number;
  /** The ranking loss (default contrastive) and its temperature, as training takes them. */
  loss?: TrainRequest['loss'];
  temperature?: number;
  /** Inference-free SPLADE: static IDF queries (of the training documents), frozen or trained, with a query L1. */
  inferenceFree?: boolean;
  trainQueryWeights?: boolean;
  queryL1?: number;
  /** A trained table's own peak learning rate (train.py's learning_rate_mapping; default QUERY_TABLE_LR). */
  queryTableLr?: number;
}
