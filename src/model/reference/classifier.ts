// Float64 reference of the sequence classifiers' forward: BertForSequenceClassification (modeling_bert.py: the encoder,
// BertPooler tanh(dense(hidden[:, 0])), the classifier) and ModernBertForSequenceClassification (modeling_modernbert.py:
// the encoder, hidden[:, 0] or the mean over real tokens, its head LN(gelu(dense)), the classifier); dropout is the
// identity when scoring; logits (B, numLabels) raw.
import type { ModelConfig } from '../../contract/model/model-config.ts';
import { firstTokenGather, maskedMean, tanhForward } from '../../kernels/reference/activations.ts';
import type { ModelParams } from '../layout.ts';
import { headTransformForward } from './mlm-head.ts';
import { type EncoderInput, encoderForward } from './encoder.ts';
import { linearForward } from './linear.ts';

/** BERT's pooler (null: ModernBERT's head, from `params`), how ModernBERT pools, and the classifier in float64. */
export interface ClassifierHeadParams {
  pooler: { weight: Float64Array; bias: Float64Array } | null; // (d, d), (d)
  pooling: 'cls' | 'mean';
  classifierWeight: Float64Array; // (numLabels, d)
  classifierBias: Float64Array; // (numLabels)
}

export interface ClassifierActivations {
  cls: Float64Array; // (B, d): each sequence's first-token last hidden state, or (ModernBERT "mean") its token mean
  pooled: Float64Array; // (B, d): tanh(pooler dense(cls)), or ModernBERT's LN(gelu(dense(cls)))
  logits: Float64Array; // (B, numLabels): raw, never squashed
}

/** logits (B, numLabels) = classifier(pooled), pooled as above. */
export function classifierForward(
  config: ModelConfig,
  params: ModelParams,
  head: ClassifierHeadParams,
  input: EncoderInput,
): ClassifierActivations {
  const { B, T } = input;
  const d = config.hidden;
  const numLabels = head.classifierBias.length;
  if (head.classifierWeight.length !== numLabels * d || (head.pooler && head.pooler.weight.length !== d * d)) {
    throw new RangeError(`classifierForward: head weights must be (d, d) and (${numLabels}, d) with d = ${d}`);
  }
  const { lastHidden } = encoderForward(config, params, input);
  const cls = new Float64Array(B * d);
  if (head.pooling === 'mean') maskedMean(cls, lastHidden, input.mask, B, T, d);
  else firstTokenGather(cls, lastHidden, B, T, d);
  let pooled: Float64Array = new Float64Array(B * d);
  if (head.pooler) {
    const pre = new Float64Array(B * d);
    linearForward(pre, cls, head.pooler.weight, head.pooler.bias, B, d, d);
    tanhForward(pooled, pre);
  } else pooled = headTransformForward(config, params, cls, B).norm.out;
  const logits = new Float64Array(B * numLabels);
  linearForward(logits, pooled, head.classifierWeight, head.classifierBias, B, d, numLabels);
  return { cls, pooled, logits };
}
