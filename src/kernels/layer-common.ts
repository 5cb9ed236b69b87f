// Checks and dispatch arithmetic shared by the encoder-layer wrappers (layernorm, activations, attention, embedding).
import { grid1d, type GpuContext } from '../gpu/context.ts';
import type { DType, Tensor } from '../gpu/tensor.ts';

/** Throws unless every named dimension is a positive integer. */
export function checkDims(kernel: string, dims: Record<string, number>): void {
  for (const [name, n] of Object.entries(dims)) {
    if (!Number.isInteger(n) || n < 1) throw new Error(`${kernel}: ${name} must be a positive integer, got ${n}`);
  }
}

/** Throws unless `n` is a power of two (tree reductions in workgroup memory). */
export function checkPowerOfTwo(kernel: string, name: string, n: number, ctx: GpuContext): void {
  if (!Number.isInteger(n) || n < 1 || (n & (n - 1)) !== 0)
    throw new Error(`${kernel}: ${name} must be a power of two, got ${n}`);
  const limit = ctx.limits.maxComputeInvocationsPerWorkgroup;
  if (n > limit) throw new Error(`${kernel}: ${name} = ${n} is over maxComputeInvocationsPerWorkgroup ${limit}`);
}

/** Workgroups covering `n` invocations (or, with workgroupSize 1, `n` workgroups), folded into y past the limit. */
export function grid(ctx: GpuContext, n: number, workgroupSize: number): [number, number] {
  return grid1d(n, workgroupSize, ctx.limits.maxComputeWorkgroupsPerDimension);
}

/** Like expectTensor, but the shape only has to hold `size` elements ending in `last`, and several dtypes may do. */
export function expectOperand(
  kernel: string,
  role: string,
  tensor: Tensor,
  shape: readonly number[],
  dtypes: readonly DType[] = ['f32'],
): void {
  const size = shape.reduce((a, b) => a * b, 1);
  const last = tensor.shape.length ? tensor.shape[tensor.shape.length - 1] : 1;
  const want = shape.length ? shape[shape.length - 1] : 1;
  if (tensor.size !== size || last !== want || !dtypes.includes(tensor.dtype)) {
    throw new Error(
      `${kernel}: ${role} must be [${shape.join('x')}]:${dtypes.join('|')} (or any shape ending in ${want} with ${size} ` +
        `elements), got ${tensor}`,
    );
  }
}

/** Throws when two operands of one dispatch share a buffer that one of them writes. */
export function expectDistinct(kernel: string, written: Tensor, ...others: (Tensor | null | undefined)[]): void {
  for (const other of others) {
    if (other && other.buffer === written.buffer) {
      throw new Error(`${kernel}: ${written} and ${other} are the same buffer; write to a separate tensor`);
    }
  }
}

/**
 * Invocations per row of the one-workgroup-per-row kernels (LayerNorm, softmax). Measured on SwiftShader (N=4096
 * C=256 LayerNorm, 8x4x128x128 softmax): 4 lanes ran 6-13x faster than 64, whose barriers cost a CPU device dearly;
 * GPUs want wide rows.
 */
export function defaultRowWorkgroup(ctx: GpuContext): number {
  return ctx.onCpu ? 4 : 64;
}
