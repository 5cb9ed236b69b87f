// Counts the active dimensions and sums the squares of each pooled vector on the GPU (shaders/active_dims.wgsl), so
// that sparsity (and the FLOPS term at another batch size) is reported with two words per row, not the (rows, V) matrix.
import type { GpuContext } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import source from '../../shaders/active_dims.wgsl?raw';
import { expectTensor } from './shape-check.ts';

const WORKGROUP = 256;
const SPEC = { family: 'active_dims', source, entryPoint: 'count_active', constants: { WORKGROUP } };

export class ActiveDims {
  private readonly params: GPUBuffer;

  /** Counts and squared norms of `rows` vectors of size V go to counts/squares[offset .. offset + rows). */
  constructor(
    private readonly ctx: GpuContext,
    readonly rows: number,
    readonly V: number,
    readonly offset = 0,
  ) {
    if (rows > ctx.limits.maxComputeWorkgroupsPerDimension) {
      throw new Error(
        `active_dims: ${rows} rows exceed maxComputeWorkgroupsPerDimension ${ctx.limits.maxComputeWorkgroupsPerDimension}`,
      );
    }
    this.params = ctx.uniform(`active_dims rows${rows} V${V}`, 2);
    ctx.writeUniform(this.params, [V, offset]);
  }

  /**
   * counts[offset + r] (u32) = number of entries > 0 in vectors[r] (rows, V); squares[offset + r] (f32) = the sum of
   * squares of vectors[r] (both overwritten).
   */
  forward(encoder: GPUCommandEncoder, { vectors, counts, squares }: { vectors: Tensor; counts: Tensor; squares: Tensor }): void {
    expectTensor('active_dims', 'vectors', vectors, [this.rows, this.V]);
    for (const [name, tensor, dtype] of [
      ['counts', counts, 'u32'],
      ['squares', squares, 'f32'],
    ] as const) {
      if (tensor.dtype !== dtype || tensor.size < this.offset + this.rows) {
        throw new Error(`active_dims: ${name} must be ${dtype} with at least ${this.offset + this.rows} entries, got ${tensor}`);
      }
    }
    this.ctx.dispatch(encoder, SPEC, [this.params, vectors, counts, squares], [this.rows], `rows=${this.rows} V=${this.V}`);
  }
}
