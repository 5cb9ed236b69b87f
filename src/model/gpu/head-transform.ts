// The MLM head transform of one pass on the GPU: headHidden (N, E) = LN(gelu(dense(lastHidden (N, d)))), and back,
// mirroring src/model/reference/mlm-head.ts. E is the decoder rows' width: the hidden size d, or ALBERT's embedding size.
import type { GpuContext } from '../../gpu/context.ts';
import type { Tensor } from '../../gpu/tensor.ts';
import { Gelu } from '../../kernels/activations.ts';
import { LayerNorm } from '../../kernels/layernorm.ts';
import type { GpuModel } from '../gpu-model.ts';
import { P } from '../layout.ts';
import type { Allocate, NormState } from './layers.ts';
import { modelAffine, recordNormBackward, recordNormForward } from './layers.ts';
import { GpuLinear } from './linear.ts';

export class GpuHeadTransform {
  private readonly dense: GpuLinear; // (N, d) -> (N, E)
  private readonly gelu: Gelu; // N·E elements
  private readonly norm: LayerNorm; // (N, E)
  private readonly pre: Tensor; // (N, E): dense output
  private readonly act: Tensor; // (N, E): gelu(pre)
  private readonly state: NormState; // out = headHidden (N, E)
  /**
   * `scratch`: two (N, E) gradient buffers backward may overwrite before it writes dlast (when E = d, the pass's
   * own stream buffers: no extra memory).
   */
  constructor(
    private readonly model: GpuModel,
    ctx: GpuContext,
    N: number,
    headHidden: Tensor,
    private readonly scratch: { dact: Tensor; dpre: Tensor },
    label: string,
    alloc: Allocate,
  ) {
    const { config } = model;
    const { hidden: d, embeddingSize: E } = config;
    this.dense = new GpuLinear(ctx, N, d, E, config.headDenseBias, `${label} head dense`);
    this.gelu = new Gelu(ctx, N * E, { approximate: config.activation === 'gelu_new', label: `${label} head gelu` });
    this.norm = new LayerNorm(ctx, { N, C: E }, { bias: config.normBias, eps: config.normEps, label: `${label} head layernorm` });
    this.pre = alloc('head pre', [N, E]);
    this.act = alloc('head act', [N, E]);
    this.state = { out: headHidden, mean: alloc('head norm mean', [N]), rstd: alloc('head norm rstd', [N]) };
  }

  /** headHidden = LN(gelu(dense(lastHidden))). */
  forward(encoder: GPUCommandEncoder, lastHidden: Tensor): void {
    this.dense.forward(encoder, { out: this.pre, inp: lastHidden, ...modelAffine(this.model, P.headDense, false) });
    this.gelu.forward(encoder, { out: this.act, inp: this.pre });
    recordNormForward(this.norm, encoder, this.state, this.act, modelAffine(this.model, P.headNorm, false));
  }

  /** Adds the head's parameter gradients; dlast (N, d) = d loss / d lastHidden (overwritten). */
  backward(encoder: GPUCommandEncoder, dheadHidden: Tensor, lastHidden: Tensor, dlast: Tensor): void {
    recordNormBackward(this.norm, encoder, {
      dinp: this.scratch.dact,
      dout: dheadHidden,
      inp: this.act,
      state: this.state,
      norm: modelAffine(this.model, P.headNorm, false),
      dnorm: modelAffine(this.model, P.headNorm, true),
    });
    this.gelu.backward(encoder, { dinp: this.scratch.dpre, dout: this.scratch.dact, inp: this.pre });
    const dense = modelAffine(this.model, P.headDense, false);
    const ddense = modelAffine(this.model, P.headDense, true);
    this.dense.backward(encoder, {
      dinp: dlast,
      dweight: ddense.weight,
      dbias: ddense.bias,
      dout: this.scratch.dpre,
      inp: lastHidden,
      weight: dense.weight,
      accumulateInput: false,
    });
  }
}
