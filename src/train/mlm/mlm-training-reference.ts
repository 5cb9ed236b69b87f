// Float64 masked-LM objective of a step over the whole model (encoder and head): the mean cross-entropy over the
// labelled positions of each micro-batch, averaged over the micro-batches, and the gradient of every parameter (tests).
import type { ModelConfig } from '../../contract/model/model-config.ts';
import { zerosLike, type ModelParams } from '../../model/layout.ts';
import { encoderForward, mlmBackward } from '../../model/reference/encoder.ts';
import { decoderForward } from '../../model/reference/mlm-head.ts';
import { IGNORED_LABEL } from '../../kernels/reference/masked-lm-loss.ts';
import type { MlmBatch } from './mlm-trainer.ts';

export { IGNORED_LABEL } from '../../kernels/reference/masked-lm-loss.ts';

/** Mean cross-entropy of logits (N, V) at the labelled rows, and d loss / d logits (zero rows where unlabelled). */
export function maskedCrossEntropy(logits: Float64Array, labels: Int32Array, V: number): { loss: number; dlogits: Float64Array } {
  const dlogits = new Float64Array(logits.length);
  const rows = labels.reduce((n, label) => n + (label === IGNORED_LABEL ? 0 : 1), 0);
  let loss = 0;
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i];
    if (label === IGNORED_LABEL) continue;
    const row = logits.subarray(i * V, (i + 1) * V);
    const max = row.reduce((m, x) => Math.max(m, x), -Infinity);
    let sum = 0;
    for (const x of row) sum += Math.exp(x - max);
    const lse = max + Math.log(sum);
    loss += (lse - row[label]) / rows;
    for (let v = 0; v < V; v++) dlogits[i * V + v] = (Math.exp(row[v] - lse) - (v === label ? 1 : 0)) / rows;
  }
  return { loss, dlogits };
}

/** The step's loss (mean over micro-batches) and gradients (their mean), without dropout, with `T` tokens per sequence. */
export function mlmStepReference(
  config: ModelConfig,
  params: ModelParams,
  batches: readonly MlmBatch[],
  T: number,
): { loss: number; grads: ModelParams } {
  const grads = zerosLike(config);
  let loss = 0;
  for (const batch of batches) {
    const B = batch.inputIds.length / T;
    const acts = encoderForward(config, params, { ids: batch.inputIds, mask: batch.attentionMask, B, T });
    const logits = decoderForward(config, params, acts.headHidden, B * T);
    const micro = maskedCrossEntropy(logits, batch.labels, config.vocabSize);
    loss += micro.loss / batches.length;
    for (let i = 0; i < micro.dlogits.length; i++) micro.dlogits[i] /= batches.length;
    mlmBackward(config, params, acts, micro.dlogits, grads);
  }
  return { loss, grads };
}
