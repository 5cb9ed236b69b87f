// The paper's correction, written once: W_head <- W_head / k on the GPU (a tied head is the word-embedding matrix
// itself, so dividing it divides both and the tying survives). Every use case divides through these two functions.
import type { GpuContext } from '../gpu/context.ts';
import { rowPartsOf } from '../gpu/row-parts.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { HeadDivision } from '../kernels/head-division.ts';
import type { GpuModel } from './gpu-model.ts';

/** Records target <- source / k (source defaults to target: in place). `kernel` is a HeadDivision of the head's shape, owned by the caller. */
export function recordHeadDivision(
  encoder: GPUCommandEncoder,
  kernel: HeadDivision,
  k: number,
  target: Tensor,
  source: Tensor = target,
): void {
  if (source !== target) kernel.ctx.copy(encoder, source.buffer, 0, target.buffer, 0, source.byteLength);
  if (k !== 1) kernel.record(encoder, target, k);
}

/** Divides the decoder matrix of a model already on the GPU by k, in place (part by part when it is held in row parts), and waits for it. */
export async function divideModelHead(ctx: GpuContext, model: GpuModel, k: number): Promise<void> {
  if (k === 1) return;
  const { vocabSize: V, embeddingSize: d } = model.config;
  for (const part of rowPartsOf(model.decoderWeight, V, d, 'the decoder')) {
    const kernel = ctx.owned(() => new HeadDivision(ctx, part.tensor.shape[0], d));
    try {
      await ctx.run(`divide the head by k = ${k}`, (encoder) => recordHeadDivision(encoder, kernel.value, k, part.tensor));
    } finally {
      kernel.destroy();
    }
  }
}
