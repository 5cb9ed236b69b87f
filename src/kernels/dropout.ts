// Typed wrapper of shaders/dropout.wgsl: one dropout site (a tensor size and a rate), its key set per micro-batch.
import source from '../../shaders/dropout.wgsl?raw';
import { f32Bits, grid1d, type GpuContext, type KernelSpec } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { dropThreshold } from './host/dropout-hash.ts';

const WORKGROUP = 256;
const IN_PLACE: KernelSpec = { family: 'dropout', source, entryPoint: 'apply_in_place', constants: { WORKGROUP } };
const COPY: KernelSpec = { family: 'dropout', source, entryPoint: 'apply_copy', constants: { WORKGROUP } };

/**
 * Dropout over n-element tensors at rate `rate` (0 < rate < 1). The mask is a function of the key and the index, so
 * the same site with the same key applied to a gradient is the backward pass.
 */
export class DropoutSite {
  private readonly uniform: GPUBuffer;

  constructor(
    private readonly ctx: GpuContext,
    readonly n: number,
    readonly rate: number,
    readonly label: string,
  ) {
    if (!(rate > 0 && rate < 1)) throw new RangeError(`${label}: dropout rate ${rate} is not in (0, 1)`);
    this.uniform = ctx.uniform(`dropout ${label}`, 4);
    this.setKey(0);
  }

  /** The key of the next submit's uses (dropoutKey: seed, step, micro-batch, site). */
  setKey(key: number): void {
    this.ctx.writeUniform(this.uniform, [this.n, dropThreshold(this.rate), f32Bits(1 / (1 - this.rate)), key >>> 0]);
  }

  /** x <- dropout(x). */
  inPlace(encoder: GPUCommandEncoder, x: Tensor): void {
    this.expectSize(x);
    this.ctx.dispatch(encoder, IN_PLACE, [this.uniform, x], this.groups(), `${x}`);
  }

  /** dst <- dropout(src). */
  copy(encoder: GPUCommandEncoder, src: Tensor, dst: Tensor): void {
    this.expectSize(src);
    this.expectSize(dst);
    if (src.buffer === dst.buffer) throw new Error(`dropout ${this.label}: source and destination are one buffer; use inPlace`);
    this.ctx.dispatch(encoder, COPY, [this.uniform, null, src, dst], this.groups(), `${src} -> ${dst}`);
  }

  private groups() {
    return grid1d(this.n, WORKGROUP, this.ctx.limits.maxComputeWorkgroupsPerDimension);
  }

  private expectSize(tensor: Tensor): void {
    if (tensor.size !== this.n || tensor.dtype !== 'f32')
      throw new Error(`dropout ${this.label}: expected ${this.n} f32 elements, got ${tensor}`);
  }
}
