// In-batch contrastive loss with temperature and its gradient in one pass (shaders/contrastive_loss.wgsl).
import { f32Bits, type GpuContext } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import source from '../../shaders/contrastive_loss.wgsl?raw';
import { expectTensor } from './shape-check.ts';

const WORKGROUP = 256;
const SPEC = { family: 'contrastive_loss', source, entryPoint: 'contrastive_forward_backward', constants: { WORKGROUP } };

export class ContrastiveLoss {
  private readonly params: GPUBuffer;

  /** `slot`: index of this loss in the shared losses tensor. */
  constructor(
    private readonly ctx: GpuContext,
    readonly B: number,
    readonly N: number,
    readonly tau: number,
    readonly slot: number,
  ) {
    if (N < B) throw new Error(`contrastive loss: ${N} documents for ${B} queries; each query needs its positive`);
    this.params = ctx.uniform(`contrastive_loss B${B} N${N}`, 5);
    this.setScale(1);
  }

  /** The weight of this loss in the total (dloss); applied to the gradient, not to the reported value. */
  setScale(scale: number): void {
    this.ctx.writeUniform(this.params, [this.B, this.N, f32Bits(this.tau), this.slot, f32Bits(scale)]);
  }

  /** losses[slot] = L(scores (B, N)); dscores (B, N) = scale · dL/dscores (overwritten). */
  forwardBackward(
    encoder: GPUCommandEncoder,
    { scores, dscores, losses }: { scores: Tensor; dscores: Tensor; losses: Tensor },
  ): void {
    expectTensor('contrastive_loss', 'scores', scores, [this.B, this.N]);
    expectTensor('contrastive_loss', 'dscores', dscores, [this.B, this.N]);
    if (losses.size <= this.slot) throw new Error(`contrastive_loss: losses ${losses} has no slot ${this.slot}`);
    this.ctx.dispatch(encoder, SPEC, [this.params, scores, dscores, losses], [1], `B=${this.B} N=${this.N} tau=${this.tau}`);
  }
}
