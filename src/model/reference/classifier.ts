// Float64 reference of BertForSequenceClassification's forward (transformers' modeling_bert.py): the encoder, BertPooler
// (tanh(dense(hidden[:, 0]))), then the classifier (dropout, identity when scoring) to raw logits (B, numLabels).
import type { ModelConfig } from '../../contract/model/model-config.ts';
import { firstTokenGather, tanhForward } from '../../kernels/reference/activations.ts';
import type { ModelParams } from '../layout.ts';
import { type EncoderInput, encoderForward } from './encoder.ts';
import { linearForward } from './linear.ts';

/** The pooler and classifier in float64, PyTorch [out, in] weights. */
export interface ClassifierHeadParams {
  poolerWeight: Float64Array; // (d, d)
  poolerBias: Float64Array; // (d)
  classifierWeight: Float64Array; // (numLabels, d)
  classifierBias: Float64Array; // (numLabels)
}

export interface ClassifierActivations {
  cls: Float64Array; // (B, d): the last hidden state of each sequence's first token
  pooled: Float64Array; // (B, d): tanh(pooler dense(cls))
  logits: Float64Array; // (B, numLabels): raw, never squashed
}

/** logits (B, numLabels) = classifier(tanh(pooler(encoder(input)[:, 0]))). */
export function classifierForward(
  config: ModelConfig,
  params: ModelParams,
  head: ClassifierHeadParams,
  input: EncoderInput,
): ClassifierActivations {
  const { B, T } = input;
  const d = config.hidden;
  const numLabels = head.classifierBias.length;
  if (head.classifierWeight.length !== numLabels * d || head.poolerWeight.length !== d * d) {
    throw new RangeError(`classifierForward: head weights must be (d, d) and (${numLabels}, d) with d = ${d}`);
  }
  const { lastHidden } = encoderForward(config, params, input);
  const cls = new Float64Array(B * d);
  firstTokenGather(cls, lastHidden, B, T, d);
  const pre = new Float64Array(B * d);
  linearForward(pre, cls, head.poolerWeight, head.poolerBias, B, d, d);
  const pooled = new Float64Array(B * d);
  tanhForward(pooled, pre);
  const logits = new Float64Array(B * numLabels);
  linearForward(logits, pooled, head.classifierWeight, head.classifierBias, B, d, numLabels);
  return { cls, pooled, logits };
}
