// Masked-language-model training on the GPU (encoder and head): one encoder pass, the masked cross-entropy over the
// vocabulary in chunks (never B x T x V), its backward, then the shared gradient scale and optimiser update.
import type { GpuContext } from '../../gpu/context.ts';
import type { Tensor } from '../../gpu/tensor.ts';
import type { HealthReport } from '../../kernels/finite-check.ts';
import { MaskedLmLoss } from '../../kernels/masked-lm-loss.ts';
import { GpuEncoderPass } from '../../model/gpu-encoder.ts';
import { DROPOUT_STREAMS } from '../../model/dropout-sites.ts';
import type { GpuModel } from '../../model/gpu-model.ts';
import { IGNORED_LABEL, type MlmRecipe } from '../../contract/training/mlm-recipe.ts';
import { microBatches, trainingDropout } from '../../contract/training/recipe-facts.ts';
import { ParameterUpdate, checkStepCount, type OptimizerState } from '../parameter-update.ts';

/** One micro-batch of sequences (B, T): what the encoder reads, and the id to predict at each position (-100: none). */
export interface MlmBatch {
  inputIds: Int32Array;
  attentionMask: Uint8Array;
  labels: Int32Array;
}

/** What one step measured, read back on the steps that ask (means over the step's micro-batches). */
export interface MlmStepResult {
  step: number;
  /** Mean cross-entropy over the predicted positions. */
  loss: number;
  /** Fraction of the predicted positions whose highest logit is the label. */
  accuracy: number;
  /** Predicted positions per micro-batch. */
  predicted: number;
  /** Mean over the predicted positions of their largest logit: how sharp the head's scores are. */
  logitScale: number;
  /** Global L2 norm of the averaged gradient, before clipping. */
  gradNorm: number;
}

export const MLM_LOSS_NAMES = ['masked-LM loss'];

export class MlmTrainer {
  readonly pass: GpuEncoderPass;
  private readonly loss: MaskedLmLoss;
  private readonly labels: Tensor<'i32'>;
  /** (1) the micro-batch's mean masked cross-entropy. */
  readonly losses: Tensor<'f32'>;
  private readonly update: ParameterUpdate;
  /** With micro-batches: each earlier micro-batch's copies of the loss and its counts, read with the last's. */
  private readonly reportCopies: Tensor[][];
  /** The health flags as a report step's one readback found them after step `t` (null: read them when asked). */
  private healthAfter: { t: number; report: HealthReport } | null = null;
  /** Steps taken so far. */
  t = 0;

  /** `seed`: the run's seed, which draws the dropout masks (with the step and the micro-batch). */
  constructor(
    private readonly ctx: GpuContext,
    readonly model: GpuModel,
    readonly recipe: MlmRecipe,
    private readonly seed = 0,
  ) {
    const { batchSize: B, maxLength: T } = recipe;
    const { embeddingSize: d, vocabSize: V } = model.config;
    const dropout = trainingDropout(recipe, model.config);
    this.pass = new GpuEncoderPass(model, B, T, 'masked-LM sequences', { dropout, stream: DROPOUT_STREAMS.queries });
    this.loss = new MaskedLmLoss(ctx, { B, T, d, V, parts: model.decoderParts }, 0);
    this.labels = ctx.tensor('masked-LM labels', [B, T], 'i32');
    this.losses = ctx.tensor('masked-LM losses', [1], 'f32');
    this.update = new ParameterUpdate(ctx, model, recipe, { tensor: this.losses, names: MLM_LOSS_NAMES });
    this.reportCopies = Array.from({ length: microBatches(recipe) - 1 }, (_, i) =>
      this.reportTensors.map((t) => ctx.tensor(`${t.label} of micro-batch ${i + 1}`, [t.size], t.dtype)),
    );
  }

  /** What a report reads of a micro-batch: its loss, then the loss kernel's counts and measures. */
  private get reportTensors(): readonly Tensor[] {
    return [this.losses, ...this.loss.reportTensors];
  }

  readHealth(): Promise<HealthReport> {
    // a report step read the flags with its measures, and nothing ran on the GPU since: no second readback
    if (this.healthAfter?.t === this.t) return Promise.resolve(this.healthAfter.report);
    return this.update.readHealth();
  }

  readOptimizerState(): Promise<OptimizerState> {
    return this.update.readOptimizerState();
  }

  /** Continues a run: the step t (schedules) and the optimiser's state; the parameters are the model's own. */
  restoreState(t: number, optimizer: OptimizerState): void {
    checkStepCount(t);
    this.update.restoreOptimizer(optimizer);
    this.t = t;
    this.healthAfter = null;
  }

  /** One optimiser step over the recipe's micro-batches (gradients averaged); with `readResult`, its measures. */
  async step(batches: readonly MlmBatch[], readResult: boolean): Promise<MlmStepResult | undefined> {
    const n = microBatches(this.recipe);
    if (batches.length !== n)
      throw new Error(`a training step takes ${n} micro-batches (the recipe's accumulation), got ${batches.length}`);
    const sums = { loss: 0, accuracy: 0, predicted: 0, logitScale: 0 };
    for (const [i, micro] of batches.entries()) {
      this.pass.setInputs(micro.inputIds, micro.attentionMask);
      this.pass.setDropoutKeys(this.seed, this.t, i);
      this.ctx.upload(this.labels, micro.labels);
      const encoder = this.ctx.encoder(
        n > 1 ? `masked-LM step ${this.t}, micro-batch ${i + 1} of ${n}` : `masked-LM step ${this.t}`,
      );
      if (i === 0) this.model.zeroGrads(encoder);
      this.pass.forward(encoder);
      this.loss.forwardBackward(encoder, {
        hidden: this.pass.headHidden,
        labels: this.labels,
        weight: this.model.decoderWeight,
        bias: this.model.decoderBias,
        dhidden: this.pass.dheadHidden,
        dweight: this.model.ddecoderWeight,
        dbias: this.model.ddecoderBias,
        losses: this.losses,
        predicted: micro.labels.reduce((n, label) => n + (label === IGNORED_LABEL ? 0 : 1), 0),
      });
      this.pass.backward(encoder);
      if (i === n - 1) this.update.record(encoder, this.t);
      else if (readResult)
        this.reportTensors.forEach((t, j) => this.ctx.copy(encoder, t.buffer, 0, this.reportCopies[i][j].buffer, 0, t.size * 4));
      this.ctx.submit(encoder);
    }
    const step = this.t++;
    this.healthAfter = null;
    if (!readResult) return undefined;
    // one readback for the whole report: every micro-batch's loss and counts, the gradient norm, the health flags
    const parts = this.reportTensors.length;
    const read = await this.ctx.readAll([...this.reportCopies.flat(), ...this.reportTensors, ...this.update.reportTensors]);
    for (let i = 0; i < n; i++) {
      const [loss, ...counts] = read.slice(i * parts, (i + 1) * parts);
      const { predicted, correct, meanLargestLogit } = this.loss.countsFrom(counts);
      sums.logitScale += meanLargestLogit / n;
      sums.loss += loss[0] / n;
      sums.accuracy += (predicted > 0 ? correct / predicted : 0) / n;
      sums.predicted += predicted / n;
    }
    const { gradNorm, health } = this.update.reportFrom(read.slice(n * parts));
    this.healthAfter = { t: this.t, report: health };
    return { step, ...sums, gradNorm };
  }
}
