// Float64 masked-LM cross-entropy from hidden states and the decoder (no logits tensor kept): the mean over labelled
// positions of log-sum-exp minus the label's logit, and its gradients (what shaders/masked_lm_loss.wgsl computes).

import { IGNORED_LABEL } from '../../contract/training/mlm-recipe.ts';

export { IGNORED_LABEL } from '../../contract/training/mlm-recipe.ts';

export interface MaskedLmShape {
  /** Positions (B·T) and width d of the hidden rows; V decoder rows. */
  N: number;
  d: number;
  V: number;
}

function logitsOf(hidden: Float64Array, W: Float64Array, b: Float64Array, pos: number, { d, V }: MaskedLmShape): Float64Array {
  const logits = new Float64Array(V);
  for (let v = 0; v < V; v++) {
    let dot = b[v];
    for (let j = 0; j < d; j++) dot += hidden[pos * d + j] * W[v * d + j];
    logits[v] = dot;
  }
  return logits;
}

function logSumExp(logits: Float64Array): number {
  const max = logits.reduce((m, x) => Math.max(m, x), -Infinity);
  let sum = 0;
  for (const x of logits) sum += Math.exp(x - max);
  return max + Math.log(sum);
}

/** Mean cross-entropy over the positions whose label is not -100 (0 when none). */
export function maskedLmLossForward(
  hidden: Float64Array,
  W: Float64Array,
  b: Float64Array,
  labels: Int32Array,
  shape: MaskedLmShape,
): number {
  let loss = 0;
  let predicted = 0;
  for (let pos = 0; pos < shape.N; pos++) {
    if (labels[pos] === IGNORED_LABEL) continue;
    const logits = logitsOf(hidden, W, b, pos, shape);
    loss += logSumExp(logits) - logits[labels[pos]];
    predicted++;
  }
  return predicted ? loss / predicted : 0;
}

/** Gradients of `scale` x the loss with respect to the hidden rows, the decoder and its bias. */
export function maskedLmLossBackward(
  hidden: Float64Array,
  W: Float64Array,
  b: Float64Array,
  labels: Int32Array,
  shape: MaskedLmShape,
  scale = 1,
): { dhidden: Float64Array; dweight: Float64Array; dbias: Float64Array } {
  const { N, d, V } = shape;
  const dhidden = new Float64Array(N * d);
  const dweight = new Float64Array(V * d);
  const dbias = new Float64Array(V);
  const predicted = labels.reduce((n, label) => n + (label === IGNORED_LABEL ? 0 : 1), 0);
  for (let pos = 0; pos < N; pos++) {
    if (labels[pos] === IGNORED_LABEL) continue;
    const logits = logitsOf(hidden, W, b, pos, shape);
    const lse = logSumExp(logits);
    for (let v = 0; v < V; v++) {
      const g = ((Math.exp(logits[v] - lse) - (v === labels[pos] ? 1 : 0)) * scale) / predicted;
      dbias[v] += g;
      for (let j = 0; j < d; j++) {
        dhidden[pos * d + j] += g * W[v * d + j];
        dweight[v * d + j] += g * hidden[pos * d + j];
      }
    }
  }
  return { dhidden, dweight, dbias };
}

/**
 * What the kernel reports besides the loss: the labelled positions, those whose highest logit (the lowest id on a tie)
 * is the label, and the mean highest logit over them (0 when none).
 */
export function maskedLmPredictions(
  hidden: Float64Array,
  W: Float64Array,
  b: Float64Array,
  labels: Int32Array,
  shape: MaskedLmShape,
): { predicted: number; correct: number; meanLargestLogit: number } {
  let predicted = 0;
  let correct = 0;
  let largest = 0;
  for (let pos = 0; pos < shape.N; pos++) {
    if (labels[pos] === IGNORED_LABEL) continue;
    const logits = logitsOf(hidden, W, b, pos, shape);
    let best = 0;
    for (let v = 1; v < shape.V; v++) if (logits[v] > logits[best]) best = v;
    predicted++;
    if (best === labels[pos]) correct++;
    largest += logits[best];
  }
  return { predicted, correct, meanLargestLogit: predicted ? largest / predicted : 0 };
}
