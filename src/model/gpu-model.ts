// An encoder's parameters and gradients on the GPU: one buffer per internal parameter (layout.ts names), one gradient
// each; a tied decoder is the word-embedding buffer itself (one buffer, one gradient that sums both uses). A vocabulary
// matrix (word embeddings, decoder) too large for one storage binding (a 250k vocabulary on a 128 MiB device) is held
// in row parts, each its own buffer, gradient and optimiser state.
import type { GpuContext } from '../gpu/context.ts';
import { planRowParts, type RowPart, type RowParted } from '../gpu/row-parts.ts';
import type { Tensor } from '../gpu/tensor.ts';
import type { HostTensor } from '../io/host-tensor.ts';
import type { ModelConfig } from '../contract/model/model-config.ts';
import { P, decoderWeightName, parameterLayout, type ParamSpec } from './layout.ts';

export interface GpuParameter {
  name: string;
  param: Tensor<'f32'>;
  dparam: Tensor<'f32'>;
  /** Weight decay applies: embeddings and weight matrices, not biases and LayerNorm parameters (transformers' Trainer rule). */
  decays: boolean;
}

/** A parameter held in row parts: its parts and their gradients. */
interface SplitParameter {
  parts: RowPart[];
  dparts: RowPart[];
}

export class GpuModel {
  /** Parameter + gradient bytes (the untrained zero decoder bias of a model without one included; no gradients: parameters only). */
  readonly bytes: number;
  readonly decoderWeight: RowParted; // (V, E): the word embeddings when tied; in row parts past one binding
  /** (V, E), in the same parts; throws on a model uploaded without gradients (inference). */
  get ddecoderWeight(): RowParted {
    return this.drowParts(decoderWeightName(this.config));
  }
  /** Row ranges the decoder is held in (one: the whole matrix). */
  readonly decoderParts: readonly { row0: number; rows: number }[];
  readonly decoderBias: Tensor<'f32'>; // (V): zeros, never trained, when the config has no decoder bias
  /** (V): a throw-away target when the config has no decoder bias; throws on a model without gradients. */
  get ddecoderBias(): Tensor<'f32'> {
    if (!this.gradients) throw this.noGradients('decoder bias');
    return this.spareBias ? this.spareBias.dparam! : this.dparam(P.decoderBias);
  }
  /** Whether gradient tensors were allocated (training); false: uploaded for inference, half the memory. */
  readonly gradients: boolean;
  private readonly params: Map<string, Tensor<'f32'>>;
  private readonly dparams: Map<string, Tensor<'f32'>>;
  private readonly split: Map<string, SplitParameter>;
  private readonly specs: ParamSpec[];

  private constructor(
    readonly ctx: GpuContext,
    readonly config: ModelConfig,
    specs: ParamSpec[],
    params: Map<string, Tensor<'f32'>>,
    dparams: Map<string, Tensor<'f32'>>,
    split: Map<string, SplitParameter>,
    private readonly spareBias: { param: Tensor<'f32'>; dparam: Tensor<'f32'> | null } | null,
    gradients: boolean,
  ) {
    this.specs = specs;
    this.params = params;
    this.dparams = dparams;
    this.split = split;
    this.gradients = gradients;
    this.decoderWeight = this.rowParts(decoderWeightName(config));
    this.decoderParts = this.partRanges(decoderWeightName(config));
    this.decoderBias = spareBias ? spareBias.param : this.param(P.decoderBias);
    let bytes = 0;
    for (const t of [...params.values(), ...dparams.values()]) bytes += t.byteLength;
    for (const { parts, dparts } of split.values()) for (const p of [...parts, ...dparts]) bytes += p.tensor.byteLength;
    if (spareBias) bytes += spareBias.param.byteLength + (spareBias.dparam?.byteLength ?? 0);
    this.bytes = bytes;
  }

  /**
   * Uploads every parameter of `config` from `params` (internal names, as loadParameters returns them). Every tensor is
   * checked (present, right size, within the device's binding limits) before any GPU buffer is allocated; the decoder
   * alone may exceed one binding, and is then held in row parts. `gradients: false` (encoding, evaluating, scoring
   * with a teacher) allocates no gradient tensors: half the memory; a backward pass on such a model throws.
   */
  static upload(
    ctx: GpuContext,
    config: ModelConfig,
    params: Map<string, HostTensor>,
    { gradients = true }: { gradients?: boolean } = {},
  ): GpuModel {
    const specs = parameterLayout(config);
    const [V, E] = [config.vocabSize, config.embeddingSize];
    // the vocabulary matrices (word embeddings, an untied decoder) may be held in row parts; nothing else is that large
    const vocabularyRanges = planRowParts(V, E, ctx.bindingLimit, 1);
    const inParts = (name: string) => vocabularyRanges.length > 1 && (name === P.wordEmbeddings || name === P.decoderWeight);
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
      const largest = inParts(spec.name) ? Math.max(...vocabularyRanges.map((r) => r.rows)) * E : size;
      ctx.checkBindingSize(`parameter ${spec.name} [${spec.shape.join('x')}]`, largest * 4);
    }
    const params_ = new Map<string, Tensor<'f32'>>();
    const dparams = new Map<string, Tensor<'f32'>>();
    const split = new Map<string, SplitParameter>();
    for (const spec of specs) {
      const shape = `[${spec.shape.join('x')}]`;
      const data = params.get(spec.name)!.data;
      if (inParts(spec.name)) {
        const part = (prefix: string, values: boolean) =>
          vocabularyRanges.map(({ row0, rows }): RowPart => ({
            row0,
            tensor: ctx.tensor(
              `${prefix}${spec.name} rows ${row0}+${rows} [${rows}x${E}]`,
              [rows, E],
              'f32',
              values ? data.subarray(row0 * E, (row0 + rows) * E) : undefined,
            ),
          }));
        split.set(spec.name, { parts: part('', true), dparts: gradients ? part('d ', false) : [] });
        continue;
      }
      params_.set(spec.name, ctx.tensor(`${spec.name} ${shape}`, spec.shape, 'f32', data));
      if (gradients) dparams.set(spec.name, ctx.tensor(`d ${spec.name} ${shape}`, spec.shape, 'f32'));
    }
    const spare = config.decoderBias
      ? null
      : {
          param: ctx.tensor(`decoder.bias (none, zeros) [${V}]`, [V], 'f32'),
          dparam: gradients ? ctx.tensor(`d decoder.bias (unused) [${V}]`, [V], 'f32') : null,
        };
    return new GpuModel(ctx, config, specs, params_, dparams, split, spare, gradients);
  }

  /** The parameter tensor of an internal name (layout.ts); a parameter in row parts has none (rowParts). */
  param(name: string): Tensor<'f32'> {
    const t = this.params.get(name);
    if (!t)
      throw new Error(
        this.split.has(name)
          ? `GpuModel: ${name} is held in row parts; read it with rowParts`
          : `GpuModel: no parameter "${name}" in this ${this.config.architecture} model`,
      );
    return t;
  }

  /** The gradient tensor of an internal name; backward passes add into it. */
  dparam(name: string): Tensor<'f32'> {
    if (!this.gradients) throw this.noGradients(name);
    const t = this.dparams.get(name);
    if (!t)
      throw new Error(
        this.split.has(name)
          ? `GpuModel: d ${name} is held in row parts; read it with drowParts`
          : `GpuModel: no gradient "${name}" in this ${this.config.architecture} model`,
      );
    return t;
  }

  /** A parameter whole, or in row parts (the decoder past one binding). */
  rowParts(name: string): RowParted {
    return this.split.get(name)?.parts ?? this.param(name);
  }

  /** A gradient whole, or in row parts. */
  drowParts(name: string): RowParted {
    if (!this.gradients) throw this.noGradients(name);
    return this.split.get(name)?.dparts ?? this.dparam(name);
  }

  private noGradients(name: string): Error {
    return new Error(
      `GpuModel: no gradient of ${name}: this ${this.config.architecture} model was uploaded for inference (gradients: false)`,
    );
  }

  /** The row ranges a parameter is held in (one: the whole tensor). */
  partRanges(name: string): { row0: number; rows: number }[] {
    const parts = this.split.get(name)?.parts;
    return parts ? parts.map((p) => ({ row0: p.row0, rows: p.tensor.shape[0] })) : [{ row0: 0, rows: this.param(name).shape[0] }];
  }

  /** Has the model a parameter of this internal name? */
  has(name: string): boolean {
    return this.params.has(name) || this.split.has(name);
  }

  /**
   * Every trainable parameter once, in layout order (for the optimiser). DistilBERT's fixed sinusoidal position table
   * is left out (transformers does not train it), though its gradient is still computed.
   */
  parameters(): GpuParameter[] {
    if (!this.gradients) throw this.noGradients('its parameters');
    return this.specs
      .filter((s) => !(this.config.sinusoidalPositions && s.name === P.positionEmbeddings))
      .flatMap((s) => {
        const decays = s.kind === 'embedding' || s.kind === 'weight';
        const split = this.split.get(s.name);
        if (!split) return [{ name: s.name, param: this.param(s.name), dparam: this.dparam(s.name), decays }];
        // a part's name carries its rows, so that optimiser state saved under it is only ever restored into them
        return split.parts.map((part, k) => ({
          name: `${s.name}[rows ${part.row0}+${part.tensor.shape[0]}]`,
          param: part.tensor as Tensor<'f32'>,
          dparam: split.dparts[k].tensor as Tensor<'f32'>,
          decays,
        }));
      });
  }

  /** Records zeroing of every gradient (the step before the backward passes accumulate). */
  zeroGrads(encoder: GPUCommandEncoder): void {
    if (!this.gradients) throw this.noGradients('its parameters');
    for (const g of this.dparams.values()) this.ctx.clear(encoder, g);
    for (const { dparts } of this.split.values()) for (const part of dparts) this.ctx.clear(encoder, part.tensor);
    this.ctx.clear(encoder, this.ddecoderBias);
  }

  /** Reads every parameter back (internal names, fp32), e.g. to save a checkpoint. */
  async download(): Promise<Map<string, HostTensor>> {
    return this.readAll((name) => this.rowParts(name));
  }

  /** Reads every gradient back (internal names), for tests and diagnostics. */
  async downloadGrads(): Promise<Map<string, HostTensor>> {
    return this.readAll((name) => this.drowParts(name));
  }

  private async readAll(tensorOf: (name: string) => RowParted): Promise<Map<string, HostTensor>> {
    const out = new Map<string, HostTensor>();
    for (const spec of this.specs) {
      const held = tensorOf(spec.name);
      if (!Array.isArray(held)) {
        out.set(spec.name, { shape: [...spec.shape], data: await this.ctx.read(held as Tensor<'f32'>) });
        continue;
      }
      const width = spec.shape[1];
      const data = new Float32Array(spec.shape[0] * width);
      for (const part of held as readonly RowPart[])
        data.set(await this.ctx.read(part.tensor as Tensor<'f32'>), part.row0 * width);
      out.set(spec.name, { shape: [...spec.shape], data });
    }
    return out;
  }
}
