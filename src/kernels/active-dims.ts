// Counts the active dimensions of each pooled vector on the GPU (shaders/active_dims.wgsl), so that sparsity can be
// reported with a readback of one integer per row instead of the whole (rows, V) matrix.
import type { GpuContext } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import source from '../../shaders/active_dims.wgsl?raw';
import { expectTensor } from './shape-check.ts';

const WORKGROUP = 256;
const SPEC = { family: 'active_dims', source, entryPoint: 'count_active', constants: { WORKGROUP } };

export class ActiveDims {
  private readonly params: GPUBuffer;

  /** Counts for `rows` vectors of size V go to counts[offset .. offset + rows). */
  constructor(private readonly ctx: GpuContext, readonly rows: number, readonly V: number, readonly offset = 0) {
    if (rows > ctx.limits.maxComputeWorkgroupsPerDimension) {
      throw new Error(`active_dims: ${rows} rows exceed maxComputeWorkgroupsPerDimension ${ctx.limits.maxComputeWorkgroupsPerDimension}`);
    }
    this.params = ctx.uniform(`active_dims rows${rows} V${V}`, 2);
    ctx.writeUniform(this.params, [V, offset]);
  }

  /** counts[offset + r] (u32) = number of entries > 0 in vectors[r] (rows, V) (overwritten). */
  forward(encoder: GPUCommandEncoder, { vectors, counts }: { vectors: Tensor; counts: Tensor }): void {
    expectTensor('active_dims', 'vectors', vectors, [this.rows, this.V]);
    if (counts.dtype !== 'u32' || counts.size < this.offset + this.rows) {
      throw new Error(`active_dims: counts must be u32 with at least ${this.offset + this.rows} entries, got ${counts}`);
    }
    this.ctx.dispatch(encoder, SPEC, [this.params, vectors, counts], [this.rows], `rows=${this.rows} V=${this.V}`);
  }
}
