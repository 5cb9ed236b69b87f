// Sequence classifiers on the GPU: the project's encoder pass, then BERT's [CLS] row, pooler (tanh(dense)) and
// classifier, or ModernBERT's [CLS] row or token mean, head (LN(gelu(dense))) and classifier, to raw logits
// (B, numLabels). Mirrors src/model/reference/classifier.ts.
import type { GpuContext } from '../gpu/context.ts';
import type { DType, Tensor } from '../gpu/tensor.ts';
import { FirstTokenGather, MaskedMean, Tanh } from '../kernels/activations.ts';
import { GpuEncoderPass } from './gpu-encoder.ts';
import { GpuHeadTransform } from './gpu/head-transform.ts';
import type { Allocate } from './gpu/layers.ts';
import { GpuLinear } from './gpu/linear.ts';
import { GpuModel } from './gpu-model.ts';
import type { LoadedClassifier } from './load-classifier.ts';

/** A classifier's weights on the GPU, uploaded once; passes of any (B, T) share them. */
export class GpuClassifierModel {
  readonly model: GpuModel;
  readonly numLabels: number;
  readonly pooling: 'cls' | 'mean';
  readonly pooler: { weight: Tensor<'f32'>; bias: Tensor<'f32'> } | null; // BERT's (d, d), (d)
  readonly classifierWeight: Tensor<'f32'>; // (numLabels, d)
  readonly classifierBias: Tensor<'f32'>; // (numLabels)

  constructor(
    readonly ctx: GpuContext,
    loaded: Pick<LoadedClassifier, 'config' | 'params' | 'head' | 'classifier'>,
  ) {
    const { head } = loaded;
    this.numLabels = loaded.classifier.numLabels;
    this.pooling = loaded.classifier.pooling;
    this.model = GpuModel.upload(ctx, loaded.config, loaded.params, { gradients: false });
    const upload = (name: string, t: { shape: number[]; data: Float32Array }) =>
      ctx.tensor(`${name} [${t.shape.join('x')}]`, t.shape, 'f32', t.data);
    this.pooler = head.pooler
      ? { weight: upload('pooler.dense.weight', head.pooler.weight), bias: upload('pooler.dense.bias', head.pooler.bias) }
      : null;
    this.classifierWeight = upload('classifier.weight', head.classifierWeight);
    this.classifierBias = upload('classifier.bias', head.classifierBias);
  }
}

/** BERT's pooler on (B, d): dense then tanh. */
interface BertPooler {
  kind: 'bert';
  cls: Tensor<'f32'>; // (B, d): the first token's last hidden state
  pre: Tensor<'f32'>; // (B, d): pooler dense output
  dense: GpuLinear; // (B, d) -> (B, d)
  tanh: Tanh; // B·d elements
}

/** ModernBERT "cls": the encoder pass's head output (row-wise, so head(x)[:, 0] = head(x[:, 0])) at the first token. */
interface ModernFirstToken {
  kind: 'modernbert-cls';
}

/** ModernBERT "mean": the mean over real tokens of the last hidden state, then the head on (B, d). */
interface ModernMean {
  kind: 'modernbert-mean';
  maskF32: Tensor<'f32'>; // (B, T): 1 real token, 0 padding
  mean: Tensor<'f32'>; // (B, d)
  meanKernel: MaskedMean; // (B, T, d) -> (B, d)
  head: GpuHeadTransform; // (B, d) -> pooled
}

/** One (B, T) of pairs through the classifier: setInputs, forward, then read `logits`; or all three with `run`. */
export class GpuClassifierPass {
  readonly logits: Tensor<'f32'>; // (B, numLabels): raw logits
  private readonly encoderPass: GpuEncoderPass;
  private readonly pooling: BertPooler | ModernFirstToken | ModernMean;
  private readonly gather: FirstTokenGather; // (B, T, d) -> (B, d)
  private readonly pooled: Tensor<'f32'>; // (B, d): what the classifier reads
  private readonly classifier: GpuLinear; // (B, d) -> (B, numLabels)

  constructor(
    readonly weights: GpuClassifierModel,
    readonly B: number,
    readonly T: number,
    readonly label = 'classifier',
  ) {
    const { ctx, numLabels } = weights;
    const d = weights.model.config.hidden;
    const tensor = (name: string, shape: number[]) => ctx.tensor(`${label} ${name} [${shape.join('x')}]`, shape, 'f32');
    this.encoderPass = new GpuEncoderPass(weights.model, B, T, `${label} encoder`);
    this.gather = new FirstTokenGather(ctx, B, T, d, `${label} [CLS] gather`);
    this.pooled = tensor('pooled', [B, d]);
    this.classifier = new GpuLinear(ctx, B, d, numLabels, true, `${label} classifier`);
    this.logits = tensor('logits', [B, numLabels]);
    if (weights.pooler) {
      this.pooling = {
        kind: 'bert',
        cls: tensor('cls', [B, d]),
        pre: tensor('pooler pre', [B, d]),
        dense: new GpuLinear(ctx, B, d, d, true, `${label} pooler dense`),
        tanh: new Tanh(ctx, B * d, `${label} pooler tanh`),
      };
    } else if (weights.pooling === 'cls') {
      this.pooling = { kind: 'modernbert-cls' };
    } else {
      const alloc: Allocate = <D extends DType = 'f32'>(name: string, shape: number[], dtype?: D): Tensor<D> =>
        ctx.tensor(`${label} ${name} [${shape.join('x')}]`, shape, (dtype ?? 'f32') as D);
      const scratch = { dact: tensor('d head act (unused)', [B, d]), dpre: tensor('d head pre (unused)', [B, d]) };
      this.pooling = {
        kind: 'modernbert-mean',
        maskF32: tensor('mask f32', [B, T]),
        mean: tensor('token mean', [B, d]),
        meanKernel: new MaskedMean(ctx, B, T, d, `${label} token mean`),
        head: new GpuHeadTransform(weights.model, ctx, B, this.pooled, scratch, `${label} head`, alloc),
      };
    }
  }

  /** ids (B, T), mask (B, T) (non-zero = real token), token types (B, T): 0 for the query, 1 for the passage. */
  setInputs(ids: Int32Array, mask: ArrayLike<number>, tokenTypes?: Int32Array): void {
    this.encoderPass.setInputs(ids, mask, tokenTypes);
    if (this.pooling.kind === 'modernbert-mean')
      this.weights.ctx.upload(
        this.pooling.maskF32,
        Float32Array.from(mask, (m) => (m ? 1 : 0)),
      );
  }

  /** Records encoder, pooling and classifier: logits (B, numLabels). */
  forward(encoder: GPUCommandEncoder): void {
    const { weights: w, pooling: p, encoderPass: e } = this;
    e.forward(encoder);
    if (p.kind === 'bert') {
      this.gather.forward(encoder, { out: p.cls, inp: e.lastHidden });
      p.dense.forward(encoder, { out: p.pre, inp: p.cls, weight: w.pooler!.weight, bias: w.pooler!.bias });
      p.tanh.forward(encoder, { out: this.pooled, inp: p.pre });
    } else if (p.kind === 'modernbert-cls') {
      this.gather.forward(encoder, { out: this.pooled, inp: e.headHidden });
    } else {
      p.meanKernel.forward(encoder, { out: p.mean, inp: e.lastHidden, mask: p.maskF32 });
      p.head.forward(encoder, p.mean);
    }
    this.classifier.forward(encoder, { out: this.logits, inp: this.pooled, weight: w.classifierWeight, bias: w.classifierBias });
  }

  /** Uploads the inputs, runs the forward and reads the logits back (B, numLabels), row-major. */
  async run(ids: Int32Array, mask: ArrayLike<number>, tokenTypes?: Int32Array): Promise<Float32Array> {
    this.setInputs(ids, mask, tokenTypes);
    await this.weights.ctx.run(`${this.label} forward`, (encoder) => this.forward(encoder));
    return this.weights.ctx.read(this.logits);
  }
}
