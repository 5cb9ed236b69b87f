// BertForSequenceClassification on the GPU: the project's encoder pass, then the [CLS] row, BertPooler
// (tanh(dense)) and the classifier, to raw logits (B, numLabels). Mirrors src/model/reference/classifier.ts.
import type { GpuContext } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { FirstTokenGather, Tanh } from '../kernels/activations.ts';
import { GpuEncoderPass } from './gpu-encoder.ts';
import { GpuLinear } from './gpu/linear.ts';
import { GpuModel } from './gpu-model.ts';
import type { LoadedClassifier } from './load-classifier.ts';

/** A classifier's weights on the GPU, uploaded once; passes of any (B, T) share them. */
export class GpuClassifierModel {
  readonly model: GpuModel;
  readonly numLabels: number;
  readonly poolerWeight: Tensor<'f32'>; // (d, d)
  readonly poolerBias: Tensor<'f32'>; // (d)
  readonly classifierWeight: Tensor<'f32'>; // (numLabels, d)
  readonly classifierBias: Tensor<'f32'>; // (numLabels)

  constructor(
    readonly ctx: GpuContext,
    loaded: Pick<LoadedClassifier, 'config' | 'params' | 'head' | 'classifier'>,
  ) {
    const { head } = loaded;
    this.numLabels = loaded.classifier.numLabels;
    this.model = GpuModel.upload(ctx, loaded.config, loaded.params);
    const upload = (name: string, t: { shape: number[]; data: Float32Array }) =>
      ctx.tensor(`${name} [${t.shape.join('x')}]`, t.shape, 'f32', t.data);
    this.poolerWeight = upload('pooler.dense.weight', head.poolerWeight);
    this.poolerBias = upload('pooler.dense.bias', head.poolerBias);
    this.classifierWeight = upload('classifier.weight', head.classifierWeight);
    this.classifierBias = upload('classifier.bias', head.classifierBias);
  }
}

/** One (B, T) of pairs through the classifier: setInputs, forward, then read `logits`; or all three with `run`. */
export class GpuClassifierPass {
  readonly logits: Tensor<'f32'>; // (B, numLabels): raw logits
  private readonly encoderPass: GpuEncoderPass;
  private readonly gather: FirstTokenGather; // (B, T, d) -> (B, d)
  private readonly pooler: GpuLinear; // (B, d) -> (B, d)
  private readonly tanh: Tanh; // B·d elements
  private readonly classifier: GpuLinear; // (B, d) -> (B, numLabels)
  private readonly cls: Tensor<'f32'>; // (B, d): the first token's last hidden state
  private readonly pre: Tensor<'f32'>; // (B, d): pooler dense output
  private readonly pooled: Tensor<'f32'>; // (B, d): tanh(pre)

  constructor(
    readonly weights: GpuClassifierModel,
    readonly B: number,
    readonly T: number,
    readonly label = 'classifier',
  ) {
    const { ctx, numLabels } = weights;
    const d = weights.model.config.hidden;
    this.encoderPass = new GpuEncoderPass(weights.model, B, T, `${label} encoder`);
    this.gather = new FirstTokenGather(ctx, B, T, d, `${label} [CLS] gather`);
    this.pooler = new GpuLinear(ctx, B, d, d, true, `${label} pooler dense`);
    this.tanh = new Tanh(ctx, B * d, `${label} pooler tanh`);
    this.classifier = new GpuLinear(ctx, B, d, numLabels, true, `${label} classifier`);
    this.cls = ctx.tensor(`${label} cls [${B}x${d}]`, [B, d], 'f32');
    this.pre = ctx.tensor(`${label} pooler pre [${B}x${d}]`, [B, d], 'f32');
    this.pooled = ctx.tensor(`${label} pooled [${B}x${d}]`, [B, d], 'f32');
    this.logits = ctx.tensor(`${label} logits [${B}x${numLabels}]`, [B, numLabels], 'f32');
  }

  /** ids (B, T), mask (B, T) (non-zero = real token), token types (B, T): 0 for the query, 1 for the passage. */
  setInputs(ids: Int32Array, mask: ArrayLike<number>, tokenTypes?: Int32Array): void {
    this.encoderPass.setInputs(ids, mask, tokenTypes);
  }

  /** Records encoder, [CLS] gather, pooler and classifier: logits (B, numLabels). */
  forward(encoder: GPUCommandEncoder): void {
    const w = this.weights;
    this.encoderPass.forward(encoder);
    this.gather.forward(encoder, { out: this.cls, inp: this.encoderPass.lastHidden });
    this.pooler.forward(encoder, { out: this.pre, inp: this.cls, weight: w.poolerWeight, bias: w.poolerBias });
    this.tanh.forward(encoder, { out: this.pooled, inp: this.pre });
    this.classifier.forward(encoder, { out: this.logits, inp: this.pooled, weight: w.classifierWeight, bias: w.classifierBias });
  }

  /** Uploads the inputs, runs the forward and reads the logits back (B, numLabels), row-major. */
  async run(ids: Int32Array, mask: ArrayLike<number>, tokenTypes?: Int32Array): Promise<Float32Array> {
    this.setInputs(ids, mask, tokenTypes);
    await this.weights.ctx.run(`${this.label} forward`, (encoder) => this.forward(encoder));
    return this.weights.ctx.read(this.logits);
  }
}
