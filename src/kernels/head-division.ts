// W <- W / k on the GPU, in place: the paper's correction of the MLM head (the tied embedding matrix when tied).
import { f32Bits, grid1d, type GpuContext } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import source from '../../shaders/head_divide.wgsl?raw';
import { expectTensor } from './shape-check.ts';

const WORKGROUP = 256;

const spec = { family: 'head_divide', source, entryPoint: 'head_divide', constants: { WORKGROUP } };

export class HeadDivision {
  private readonly params: GPUBuffer;

  constructor(
    readonly ctx: GpuContext,
    readonly V: number,
    readonly d: number,
  ) {
    this.params = ctx.uniform(`head_divide V${V} d${d}`, 2);
  }

  /** Records W <- W / k, in place, as W · f32(1/k): within an ulp of W / k, and bit-identical on every device. */
  record(encoder: GPUCommandEncoder, weight: Tensor, k: number): void {
    expectTensor('head_divide', 'weight', weight, [this.V, this.d]);
    if (!(k > 0) || !Number.isFinite(k)) throw new Error(`head division: k must be a positive number, got ${k}`);
    // the kernel multiplies by 1/k rounded here, once: the same product on every device
    this.ctx.writeUniform(this.params, [this.V * this.d, f32Bits(1 / k)]);
    const groups = grid1d(this.V * this.d, WORKGROUP, this.ctx.limits.maxComputeWorkgroupsPerDimension);
    this.ctx.dispatch(encoder, spec, [this.params, weight], groups, `V=${this.V} d=${this.d} k=${k}`);
  }
}
