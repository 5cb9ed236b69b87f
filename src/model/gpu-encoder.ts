// The whole encoder + MLM head transform on the GPU for one (B, T): ids -> headHidden (B, T, d), and back into the
// GpuModel's gradients. Mirrors src/model/reference/encoder.ts layer for layer; dropout only in a training pass.
import type { GpuContext } from '../gpu/context.ts';
import type { DType, Tensor } from '../gpu/tensor.ts';
import { Add, Geglu, Gelu } from '../kernels/activations.ts';
import { type AttentionDims } from '../kernels/attention.ts';
import { Attention } from './gpu/attention.ts';
import { DropoutSite } from '../kernels/dropout.ts';
import { dropoutKey } from '../kernels/host/dropout-hash.ts';
import { LayerNorm } from '../kernels/layernorm.ts';
import { NO_DROPOUT, type DropoutRates, type ModelConfig } from '../contract/model/model-config.ts';
import { dropoutSiteId, planDropoutSites } from './dropout-sites.ts';
import { GpuEmbeddings } from './gpu/embeddings.ts';
import {
  GpuLayer,
  modelAffine,
  recordNormBackward,
  recordNormForward,
  type Allocate,
  type BackwardScratch,
  type LayerDropout,
  type LayerKernels,
  type NormState,
} from './gpu/layers.ts';
import { GpuLinear } from './gpu/linear.ts';
import type { GpuModel } from './gpu-model.ts';
import { P, hasEmbeddingProjection } from './layout.ts';
import { GpuHeadTransform } from './gpu/head-transform.ts';
import { layerAttentionKind } from './rotary.ts';

/**
 * Activations for one (B, T), allocated once; several passes (queries, documents) share one GpuModel.
 *
 * Step protocol: setInputs, then forward (fills headHidden); the caller adds d loss / d headHidden into dheadHidden
 * (e.g. SpladeHead.backward's dhidden); backward accumulates every parameter gradient into the model and then clears
 * dheadHidden, so the next step starts from zero. Zeroing the model's gradients is the caller's step (zeroGrads).
 */
export class GpuEncoderPass {
  readonly headHidden: Tensor<'f32'>; // (B, T, E): MLM head transform output (E = d but for ALBERT)
  readonly dheadHidden: Tensor<'f32'>; // (B, T, E): d loss / d headHidden, added by the caller, cleared by backward
  readonly mask: Tensor<'u32'>; // (B, T) u32: 1 real token, 0 padding
  /** Bytes of this pass's buffers: activations, ids and gather plans, backward scratch, attention scratch (kernel
   *  partial-sum buffers of a few rows, and uniforms, not counted). */
  readonly activationBytes: number;
  readonly config: ModelConfig;
  private readonly ctx: GpuContext;
  private readonly embeddings: GpuEmbeddings;
  private readonly embeddingNorm: NormState; // (N, E): LN(word + position + token type)
  private readonly embeddingNormKernel: LayerNorm; // (N, E): the layers' norm kernel when E = d
  /** ALBERT's embedding_hidden_mapping_in: (N, E) -> out (N, d), and the gradients before it (N, E). */
  private readonly projection: { linear: GpuLinear; out: Tensor; dembedded: Tensor; dsum: Tensor } | null;
  private readonly layers: GpuLayer[];
  private readonly finalNorm: NormState | null; // ModernBERT's norm after the last layer
  readonly lastHidden: Tensor; // (N, d): the encoder output the MLM head (or a classifier's pooler) reads
  private readonly head: GpuHeadTransform;
  private readonly kernels: LayerKernels;
  private readonly scratch: BackwardScratch;
  /** Dropout after the embeddings' norm (null: none). */
  private readonly embeddingDropout: DropoutSite | null;
  /** Every dropout site of the pass, with its number in planDropoutSites (what its mask's key is drawn under). */
  private readonly dropoutSites: { site: DropoutSite; number: number }[] = [];

  /**
   * `dropout`: the rates of a training pass (none: no dropout, as encoding); `stream` (DROPOUT_STREAMS) keeps this
   * pass's masks apart from another's.
   */
  constructor(
    readonly model: GpuModel,
    readonly B: number,
    readonly T: number,
    readonly label: string,
    private readonly options: { dropout?: DropoutRates; stream?: number } = {},
  ) {
    const { config, ctx } = model;
    this.config = config;
    this.ctx = ctx;
    const { hidden: d, intermediate: I, heads: NH, headDim: hd, layers: L, embeddingSize: E } = config;
    for (const [name, n] of Object.entries({ B, T })) {
      if (!Number.isInteger(n) || n < 1) throw new Error(`GpuEncoderPass ${label}: ${name} must be a positive integer, got ${n}`);
    }
    // The longest position id a full sequence can reach (RoBERTa counts from padding_idx + 1).
    const lastPosition = config.positions === 'roberta' ? T + config.padTokenId : config.positions === 'absolute' ? T - 1 : 0;
    if (lastPosition >= config.maxPositions) {
      throw new Error(
        `GpuEncoderPass ${label}: T = ${T} tokens reach position id ${lastPosition}, but the model has ` +
          `max_position_embeddings ${config.maxPositions}; use at most ${T - (lastPosition - config.maxPositions + 1)} tokens`,
      );
    }
    const N = B * T;
    const mlpWidth = config.mlp === 'geglu' ? 2 * I : I;
    // The largest single activations, checked before anything is allocated.
    const largest: [string, number][] = [
      [`attention probs [${B}x${NH}x${T}x${T}]`, B * NH * T * T],
      [`qkv [${N}x${3 * d}]`, N * 3 * d],
      [`mlp pre [${N}x${mlpWidth}]`, N * mlpWidth],
    ];
    for (const [what, size] of largest) ctx.checkBindingSize(`GpuEncoderPass ${label}: ${what}`, size * 4);

    let bytes = 0;
    const alloc: Allocate = <D extends DType = 'f32'>(name: string, shape: number[], dtype?: D): Tensor<D> => {
      const t = ctx.tensor(`${label} ${name} [${shape.join('x')}]`, shape, (dtype ?? 'f32') as D);
      bytes += t.byteLength;
      return t;
    };
    const norm = (name: string, width = d): NormState => ({
      out: alloc(`${name} out`, [N, width]), // (N, d) or (N, E)
      mean: alloc(`${name} mean`, [N]), // (N)
      rstd: alloc(`${name} rstd`, [N]), // (N)
    });

    this.mask = alloc('mask', [B, T], 'u32'); // (B, T)
    this.embeddings = new GpuEmbeddings(model, B, T, label, alloc);
    this.embeddingNorm = norm('embedding norm', E);
    const rates = options.dropout ?? NO_DROPOUT;
    const plan = planDropoutSites(L, rates);
    const site = (number: number | null, rate: number, n: number, what: string): DropoutSite | null => {
      if (number === null) return null;
      const dropout = new DropoutSite(ctx, n, rate, `${label} ${what}`);
      this.dropoutSites.push({ site: dropout, number });
      return dropout;
    };
    this.embeddingDropout = site(plan.embeddings, rates.embeddings, N * E, 'embedding dropout');

    const normOptions = { bias: config.normBias, eps: config.normEps };
    this.projection = hasEmbeddingProjection(config)
      ? {
          linear: new GpuLinear(ctx, N, E, d, true, `${label} embedding projection`),
          out: alloc('embedding projection', [N, d]), // (N, d)
          dembedded: alloc('d embedded', [N, E]), // (N, E)
          dsum: alloc('d embedding sum', [N, E]), // (N, E)
        }
      : null;
    const dims: AttentionDims = { B, T, NH, hd };
    // Attention probabilities (B, NH, T, T) are the largest activation: one shared buffer per kind, recomputed in
    // backward from the saved q, k and mask (bit-identical), instead of one per layer.
    const recomputeProbs = true;
    const attentionByKind = new Map<string, Attention>();
    const layerAttention = Array.from({ length: L }, (_, i) => {
      const { kind, rope, halfWindow } = layerAttentionKind(config, i);
      if (!attentionByKind.has(kind)) {
        attentionByKind.set(
          kind,
          new Attention(ctx, dims, {
            halfWindow,
            rope,
            recomputeProbs,
            label: `${label} ${kind === 'global' ? '' : `${kind} `}attention`,
          }),
        );
      }
      return attentionByKind.get(kind)!;
    });
    this.kernels = {
      qkv: new GpuLinear(ctx, N, d, 3 * d, config.attentionBias, `${label} qkv`),
      attnOut: new GpuLinear(ctx, N, d, d, config.attentionBias, `${label} attention out`),
      mlpIn: new GpuLinear(ctx, N, d, mlpWidth, config.mlpInBias, `${label} mlp in`),
      mlpOut: new GpuLinear(ctx, N, I, d, config.mlpOutBias, `${label} mlp out`),
      norm: new LayerNorm(ctx, { N, C: d }, { ...normOptions, label: `${label} layernorm` }),
      normAccumulate: new LayerNorm(ctx, { N, C: d }, { ...normOptions, accumulate: true, label: `${label} layernorm+=` }),
      gelu: new Gelu(ctx, N * I, { approximate: config.activation === 'gelu_new', label: `${label} mlp gelu` }),
      geglu: config.mlp === 'geglu' ? new Geglu(ctx, N, I, { label: `${label} geglu` }) : null,
      add: new Add(ctx, N * d, `${label} residual add`),
      attention: (i) => layerAttention[i],
    };

    this.layers = [];
    const attentionBuffers = new Map<GPUBuffer, number>(); // shared probability buffers counted once
    this.embeddingNormKernel =
      E === d ? this.kernels.norm : new LayerNorm(ctx, { N, C: E }, { ...normOptions, label: `${label} embedding layernorm` });
    let x = this.projection ? this.projection.out : this.embeddingNorm.out;
    for (let i = 0; i < L; i++) {
      const sites = plan.layers[i];
      const dropout: LayerDropout = {
        probs: site(sites.probs, rates.attentionProbs, B * NH * T * T, `layer ${i} attention dropout`),
        attnOut: site(sites.attnOut, rates.attentionOutput, N * d, `layer ${i} attention output dropout`),
        mlpActivation: site(sites.mlpActivation, rates.mlpActivation, N * I, `layer ${i} mlp activation dropout`),
        mlpOutput: site(sites.mlpOutput, rates.mlpOutput, N * d, `layer ${i} mlp output dropout`),
      };
      const layer = new GpuLayer(model, i, x, this.mask, this.kernels, alloc, dropout);
      for (const t of layer.attentionTensors) attentionBuffers.set(t.buffer, t.byteLength);
      this.layers.push(layer);
      x = layer.out;
    }
    this.finalNorm = config.structure === 'pre-norm' ? norm('final norm') : null;
    this.lastHidden = this.finalNorm ? this.finalNorm.out : x;
    this.headHidden = alloc('head hidden', [B, T, E]); // (B, T, E)
    this.dheadHidden = alloc('d head hidden', [B, T, E]); // (B, T, E)
    this.scratch = {
      g0: alloc('d stream 0', [N, d]), // (N, d)
      g1: alloc('d stream 1', [N, d]), // (N, d)
      dqkv: alloc('d qkv', [N, 3 * d]), // (N, 3d)
      dcontext: alloc('d context', [N, d]), // (N, d)
      dmlpPre: alloc('d mlp pre', [N, mlpWidth]), // (N, I) or (N, 2I)
      dmlpAct: alloc('d mlp act', [N, I]), // (N, I)
      ddropped: rates.attentionOutput > 0 || rates.mlpOutput > 0 ? alloc('d through dropout', [N, d]) : null, // (N, d)
    };
    const headScratch =
      E === d
        ? { dact: this.scratch.g1, dpre: this.scratch.dcontext }
        : { dact: alloc('d head act', [N, E]), dpre: alloc('d head pre', [N, E]) };
    this.head = new GpuHeadTransform(model, ctx, N, this.headHidden, headScratch, label, alloc);
    const attentionScratch = (4 * N * d + B * NH * T * T) * 4; // dq, dk, dv, dcontext (B, NH, T, hd); dscores (B, NH, T, T)
    for (const size of attentionBuffers.values()) bytes += size;
    this.activationBytes = bytes + this.embeddings.planBytes + attentionByKind.size * attentionScratch;
  }

  /**
   * Uploads ids (B, T), mask (B, T) (non-zero = real token) and optional token types (B, T); derives position ids
   * (RoBERTa: ids after padding_idx, as the reference's positionIds) and the embedding-backward gather lists.
   * Every sequence needs at least one real token.
   */
  setInputs(ids: Int32Array, mask: ArrayLike<number>, tokenTypes?: Int32Array): void {
    const { B, T } = this;
    const N = B * T;
    if (ids.length !== N || mask.length !== N) {
      throw new Error(
        `GpuEncoderPass ${this.label}: ids (${ids.length}) and mask (${mask.length}) must each hold B·T = ${B}x${T} = ${N}`,
      );
    }
    const maskWords = new Uint32Array(N);
    for (let b = 0; b < B; b++) {
      let real = 0;
      for (let t = 0; t < T; t++) {
        maskWords[b * T + t] = mask[b * T + t] ? 1 : 0;
        real += maskWords[b * T + t];
      }
      if (real === 0) throw new Error(`GpuEncoderPass ${this.label}: sequence ${b} has no real token (its mask is all 0)`);
    }
    this.ctx.upload(this.mask, maskWords);
    this.embeddings.setInputs(ids, tokenTypes);
  }

  /** Draws this micro-batch's dropout masks: every site's key from the run's seed, the step and the micro-batch. */
  setDropoutKeys(seed: number, step: number, microBatch: number): void {
    const stream = this.options.stream ?? 0;
    for (const { site, number } of this.dropoutSites)
      site.setKey(dropoutKey(seed, step, microBatch, dropoutSiteId(stream, number)));
  }

  /** Records the forward pass: embeddings, layers, (final norm), MLM head transform into headHidden. */
  forward(encoder: GPUCommandEncoder): void {
    const param = (name: (part: 'weight' | 'bias') => string) => modelAffine(this.model, name, false);
    this.embeddings.forward(encoder);
    recordNormForward(this.embeddingNormKernel, encoder, this.embeddingNorm, this.embeddings.sum, param(P.embeddingNorm));
    this.embeddingDropout?.inPlace(encoder, this.embeddingNorm.out);
    this.projection?.linear.forward(encoder, {
      out: this.projection.out,
      inp: this.embeddingNorm.out,
      ...param(P.embeddingProjection),
    });
    for (const layer of this.layers) layer.forward(encoder);
    if (this.finalNorm)
      recordNormForward(this.kernels.norm, encoder, this.finalNorm, this.layers[this.layers.length - 1].out, param(P.finalNorm));
    this.head.forward(encoder, this.lastHidden);
  }

  /** Records the backward pass from dheadHidden: adds into every parameter gradient, then clears dheadHidden. */
  backward(encoder: GPUCommandEncoder): void {
    const { model, scratch: s } = this;
    const param = (name: (part: 'weight' | 'bias') => string) => modelAffine(model, name, false);
    const dparam = (name: (part: 'weight' | 'bias') => string) => modelAffine(model, name, true);
    this.head.backward(encoder, this.dheadHidden, this.lastHidden, this.finalNorm ? s.g1 : s.g0);
    if (this.finalNorm) {
      const last = this.layers[this.layers.length - 1].out;
      recordNormBackward(this.kernels.norm, encoder, {
        dinp: s.g0,
        dout: s.g1,
        inp: last,
        state: this.finalNorm,
        norm: param(P.finalNorm),
        dnorm: dparam(P.finalNorm),
      });
    }
    for (let i = this.layers.length - 1; i >= 0; i--) this.layers[i].backward(encoder, s);
    const e = this.embeddingNorm;
    // s.g0: d(layers' input); through the projection (ALBERT) it becomes d(embedding norm output) (N, E)
    const p = this.projection;
    const dembedded = p ? p.dembedded : s.g0;
    if (p) {
      const dprojection = dparam(P.embeddingProjection);
      p.linear.backward(encoder, {
        dinp: p.dembedded,
        dweight: dprojection.weight,
        dbias: dprojection.bias,
        dout: s.g0,
        inp: e.out,
        weight: param(P.embeddingProjection).weight,
        accumulateInput: false,
      });
    }
    this.embeddingDropout?.inPlace(encoder, dembedded); // through the embeddings' dropout
    const dsum = p ? p.dsum : s.g1;
    recordNormBackward(this.embeddingNormKernel, encoder, {
      dinp: dsum,
      dout: dembedded,
      inp: this.embeddings.sum,
      state: e,
      norm: param(P.embeddingNorm),
      dnorm: dparam(P.embeddingNorm),
    });
    this.embeddings.backward(encoder, dsum);
    this.ctx.clear(encoder, this.dheadHidden);
  }
}
