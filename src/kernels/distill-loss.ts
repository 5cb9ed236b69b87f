// Distillation losses from teacher scores and their gradient in one pass (shaders/distill_loss.wgsl): MarginMSE on
// teacher margins (B, n), or KL at a temperature on teacher scores (B, n + 1), over each query's own documents.
import { f32Bits, type GpuContext, type KernelSpec } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import source from '../../shaders/distill_loss.wgsl?raw';
import { expectTensor } from './shape-check.ts';

const WORKGROUP = 256;
const ENTRY_POINTS = { marginmse: 'margin_mse_forward_backward', kl: 'kl_forward_backward' } as const;

/** The distillation losses: MarginMSE on margins, KL divergence on scores. */
export type DistillKind = keyof typeof ENTRY_POINTS;

/** Teacher labels per query: n margins for MarginMSE, n + 1 scores [pos, neg_1..n] for KL. */
export function teacherWidth(kind: DistillKind, negatives: number): number {
  return kind === 'kl' ? negatives + 1 : negatives;
}

export class DistillLoss {
  private readonly params: GPUBuffer;
  private readonly spec: KernelSpec;

  /** `n`: negatives per query (the batch has N = (1 + n)·B documents); `slot`: index in the shared losses tensor. */
  constructor(
    private readonly ctx: GpuContext,
    readonly kind: DistillKind,
    readonly B: number,
    readonly n: number,
    readonly temperature: number,
    readonly slot: number,
  ) {
    if (!(n >= 1)) throw new Error(`${kind} distillation needs at least one negative per query, got ${n}`);
    if (!(temperature > 0)) throw new Error(`${kind} distillation: the temperature must be > 0, got ${temperature}`);
    this.spec = { family: 'distill_loss', source, entryPoint: ENTRY_POINTS[kind], constants: { WORKGROUP } };
    this.params = ctx.uniform(`${kind} loss B${B} n${n}`, 5);
    this.setScale(1);
  }

  /** The weight of this loss in the total (dloss); applied to the gradient, not to the reported value. */
  setScale(scale: number): void {
    this.ctx.writeUniform(this.params, [this.B, this.n, f32Bits(this.temperature), this.slot, f32Bits(scale)]);
  }

  /** losses[slot] = L(scores (B, N), teacher); dscores (B, N) = scale · dL/dscores (overwritten). */
  forwardBackward(
    encoder: GPUCommandEncoder,
    { scores, teacher, dscores, losses }: { scores: Tensor; teacher: Tensor; dscores: Tensor; losses: Tensor },
  ): void {
    const N = (1 + this.n) * this.B;
    const name = `${this.kind}_loss`;
    expectTensor(name, 'scores', scores, [this.B, N]);
    expectTensor(name, 'teacher', teacher, [this.B, teacherWidth(this.kind, this.n)]);
    expectTensor(name, 'dscores', dscores, [this.B, N]);
    if (losses.size <= this.slot) throw new Error(`${name}: losses ${losses} has no slot ${this.slot}`);
    this.ctx.dispatch(encoder, this.spec, [this.params, scores, teacher, dscores, losses], [1], `B=${this.B} n=${this.n}`);
  }
}
