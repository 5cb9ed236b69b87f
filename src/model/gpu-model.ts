// An encoder's parameters and gradients on the GPU: one buffer per internal parameter (layout.ts names), one gradient
// each; a tied decoder is the word-embedding buffer itself (one buffer, one gradient that sums both uses).
import type { GpuContext } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import type { HostTensor } from '../io/host-tensor.ts';
import type { ModelConfig } from './config.ts';
import { P, decoderWeightName, parameterLayout, type ParamSpec } from './layout.ts';

export interface GpuParameter {
  name: string;
  param: Tensor<'f32'>;
  dparam: Tensor<'f32'>;
  /** Weight decay applies: embeddings and weight matrices, not biases and LayerNorm parameters (transformers' Trainer rule). */
  decays: boolean;
}

export class GpuModel {
  /** Parameter + gradient bytes (the untrained zero decoder bias of a model without one included). */
  readonly bytes: number;
  readonly decoderWeight: Tensor<'f32'>; // (V, d): the word embeddings when tied
  readonly ddecoderWeight: Tensor<'f32'>; // (V, d)
  readonly decoderBias: Tensor<'f32'>; // (V): zeros, never trained, when the config has no decoder bias
  readonly ddecoderBias: Tensor<'f32'>; // (V): a throw-away target in that case
  private readonly params: Map<string, Tensor<'f32'>>;
  private readonly dparams: Map<string, Tensor<'f32'>>;
  private readonly specs: ParamSpec[];

  private constructor(
    readonly ctx: GpuContext,
    readonly config: ModelConfig,
    specs: ParamSpec[],
    params: Map<string, Tensor<'f32'>>,
    dparams: Map<string, Tensor<'f32'>>,
    spareBias: { param: Tensor<'f32'>; dparam: Tensor<'f32'> } | null,
  ) {
    this.specs = specs;
    this.params = params;
    this.dparams = dparams;
    this.decoderWeight = this.param(decoderWeightName(config));
    this.ddecoderWeight = this.dparam(decoderWeightName(config));
    this.decoderBias = spareBias ? spareBias.param : this.param(P.decoderBias);
    this.ddecoderBias = spareBias ? spareBias.dparam : this.dparam(P.decoderBias);
    let bytes = 0;
    for (const t of [...params.values(), ...dparams.values()]) bytes += t.byteLength;
    if (spareBias) bytes += spareBias.param.byteLength + spareBias.dparam.byteLength;
    this.bytes = bytes;
  }

  /**
   * Uploads every parameter of `config` from `params` (internal names, as loadParameters returns them). Every tensor is
   * checked (present, right size, within the device's binding limits) before any GPU buffer is allocated.
   */
  static upload(ctx: GpuContext, config: ModelConfig, params: Map<string, HostTensor>): GpuModel {
    const specs = parameterLayout(config);
    for (const spec of specs) {
      const host = params.get(spec.name);
      const size = spec.shape.reduce((a, b) => a * b, 1);
      if (!host) throw new Error(`GpuModel.upload: parameter ${spec.name} (${spec.role}, [${spec.shape.join('x')}]) is missing`);
      if (host.data.length !== size) {
        throw new Error(
          `GpuModel.upload: parameter ${spec.name} holds ${host.data.length} values ([${host.shape.join('x')}]), ` +
            `expected [${spec.shape.join('x')}] = ${size}`,
        );
      }
      ctx.checkBindingSize(`parameter ${spec.name} [${spec.shape.join('x')}]`, size * 4);
    }
    const params_ = new Map<string, Tensor<'f32'>>();
    const dparams = new Map<string, Tensor<'f32'>>();
    for (const spec of specs) {
      const shape = `[${spec.shape.join('x')}]`;
      params_.set(spec.name, ctx.tensor(`${spec.name} ${shape}`, spec.shape, 'f32', params.get(spec.name)!.data));
      dparams.set(spec.name, ctx.tensor(`d ${spec.name} ${shape}`, spec.shape, 'f32'));
    }
    const V = config.vocabSize;
    const spare = config.decoderBias
      ? null
      : { param: ctx.tensor(`decoder.bias (none, zeros) [${V}]`, [V], 'f32'), dparam: ctx.tensor(`d decoder.bias (unused) [${V}]`, [V], 'f32') };
    return new GpuModel(ctx, config, specs, params_, dparams, spare);
  }

  /** The parameter tensor of an internal name (layout.ts). */
  param(name: string): Tensor<'f32'> {
    const t = this.params.get(name);
    if (!t) throw new Error(`GpuModel: no parameter "${name}" in this ${this.config.architecture} model`);
    return t;
  }

  /** The gradient tensor of an internal name; backward passes add into it. */
  dparam(name: string): Tensor<'f32'> {
    const t = this.dparams.get(name);
    if (!t) throw new Error(`GpuModel: no gradient "${name}" in this ${this.config.architecture} model`);
    return t;
  }

  /** Has the model a parameter of this internal name? */
  has(name: string): boolean {
    return this.params.has(name);
  }

  /**
   * Every trainable parameter once, in layout order (for the optimiser). DistilBERT's fixed sinusoidal position table
   * is left out (transformers does not train it), though its gradient is still computed.
   */
  parameters(): GpuParameter[] {
    return this.specs
      .filter((s) => !(this.config.sinusoidalPositions && s.name === P.positionEmbeddings))
      .map((s) => ({ name: s.name, param: this.param(s.name), dparam: this.dparam(s.name), decays: s.kind === 'embedding' || s.kind === 'weight' }));
  }

  /** Records zeroing of every gradient (the step before the backward passes accumulate). */
  zeroGrads(encoder: GPUCommandEncoder): void {
    for (const g of this.dparams.values()) this.ctx.clear(encoder, g);
    this.ctx.clear(encoder, this.ddecoderBias);
  }

  /** Reads every parameter back (internal names, fp32), e.g. to save a checkpoint. */
  async download(): Promise<Map<string, HostTensor>> {
    return this.readAll(this.params);
  }

  /** Reads every gradient back (internal names), for tests and diagnostics. */
  async downloadGrads(): Promise<Map<string, HostTensor>> {
    return this.readAll(this.dparams);
  }

  private async readAll(tensors: Map<string, Tensor<'f32'>>): Promise<Map<string, HostTensor>> {
    const out = new Map<string, HostTensor>();
    for (const spec of this.specs) {
      out.set(spec.name, { shape: [...spec.shape], data: await this.ctx.read(tensors.get(spec.name)!) });
    }
    return out;
  }
}
