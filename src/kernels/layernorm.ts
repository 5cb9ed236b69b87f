// Typed wrapper of shaders/layernorm.wgsl: LayerNorm over the last dim (optional bias), forward and backward.
import source from '../../shaders/layernorm.wgsl?raw';
import { f32Bits, type GpuContext, type KernelSpec } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { checkDims, checkPowerOfTwo, defaultRowWorkgroup, expectDistinct, expectOperand, grid } from './layer-common.ts';

const FAMILY = 'layernorm';

export interface LayerNormDims {
  /** rows (B·T) */
  N: number;
  /** normalised size (hidden d) */
  C: number;
}

export interface LayerNormOptions {
  /** The norm has a bias (false for ModernBERT's norm_bias = false). */
  bias: boolean;
  eps: number;
  /** backward adds into dinp instead of overwriting it (a pre-norm residual stream). Default false. */
  accumulate?: boolean;
  label?: string;
  /** Invocations per row and per workgroup of the column kernels (power of two). Default: defaultRowWorkgroup. */
  workgroup?: number;
  /** Rows per partial sum of the parameter gradients. Default 32. */
  rowsPerChunk?: number;
}

export interface LayerNormForwardArgs {
  out: Tensor; // (N, C), overwritten
  mean: Tensor; // (N), overwritten: saved for backward
  rstd: Tensor; // (N), overwritten: saved for backward
  inp: Tensor; // (N, C)
  weight: Tensor; // (C)
  /** (C); null exactly when built with bias: false */
  bias: Tensor | null;
}

export interface LayerNormBackwardArgs {
  /** (N, C): overwritten, or added into with `accumulate` */
  dinp: Tensor;
  dweight: Tensor; // (C), accumulated into
  /** (C), accumulated into; null exactly when built with bias: false */
  dbias: Tensor | null;
  dout: Tensor; // (N, C)
  inp: Tensor; // (N, C), forward's input
  weight: Tensor; // (C)
  mean: Tensor; // (N) from forward
  rstd: Tensor; // (N) from forward
}

/**
 * LayerNorm for one (N, C), built once: it owns its uniform and the (chunks, 2, C) scratch of the parameter gradients.
 *
 * forward overwrites out, mean and rstd. backward overwrites dinp (adds with `accumulate`) and ADDS into dweight and
 * dbias, so gradients of several calls sum; zeroing parameter gradients is the caller's own step (`ctx.clear`).
 * The parameter gradients are reduced in a fixed order (per-chunk column sums, then chunks in order): deterministic.
 */
export class LayerNorm {
  readonly label: string;
  readonly chunks: number;
  private readonly params: GPUBuffer;
  private readonly partials: Tensor<'f32'>; // (chunks, 2, C)
  private readonly dummy: Tensor<'f32'>; // (1) stands in for bias and dbias when the norm has none
  private readonly constants: Record<string, number>;
  private readonly workgroup: number;
  private readonly shapes: string;

  constructor(
    private readonly ctx: GpuContext,
    readonly dims: LayerNormDims,
    readonly options: LayerNormOptions,
  ) {
    const { N, C } = dims;
    checkDims(FAMILY, { N, C });
    if (!(options.eps > 0)) throw new Error(`${FAMILY}: eps must be positive, got ${options.eps}`);
    this.workgroup = options.workgroup ?? defaultRowWorkgroup(ctx);
    checkPowerOfTwo(FAMILY, 'workgroup', this.workgroup, ctx);
    const rowsPerChunk = options.rowsPerChunk ?? 32;
    checkDims(FAMILY, { rowsPerChunk });
    this.chunks = Math.ceil(N / rowsPerChunk);
    if (this.chunks > ctx.limits.maxComputeWorkgroupsPerDimension) {
      throw new Error(`${FAMILY}: N = ${N} rows make ${this.chunks} chunks, over the workgroup limit; raise rowsPerChunk`);
    }
    this.label = options.label ?? `layernorm N${N} C${C}`;
    this.shapes = `N=${N} C=${C}${options.bias ? ' +bias' : ''}`;
    this.constants = {
      WORKGROUP: this.workgroup,
      ROWS_PER_CHUNK: rowsPerChunk,
      HAS_BIAS: Number(options.bias),
      ACCUMULATE: Number(options.accumulate ?? false),
    };
    this.params = ctx.uniform(`${this.label} params`, 4);
    ctx.writeUniform(this.params, [N, C, f32Bits(options.eps), this.chunks]);
    this.partials = ctx.tensor(`${this.label} partials`, [this.chunks, 2, C], 'f32');
    this.dummy = ctx.tensor(`${this.label} no-bias`, [1], 'f32');
  }

  /** out (N, C) = (inp - mean) · rstd · weight (+ bias); mean (N) and rstd (N) are saved for backward. */
  forward(encoder: GPUCommandEncoder, args: LayerNormForwardArgs): void {
    const { out, mean, rstd, inp, weight, bias } = args;
    const { N, C } = this.dims;
    this.expect('out', out, [N, C]);
    this.expect('mean', mean, [N]);
    this.expect('rstd', rstd, [N]);
    this.expect('inp', inp, [N, C]);
    this.expect('weight', weight, [C]);
    this.expectBias('bias', bias);
    expectDistinct(this.label, out, inp, weight, bias, mean, rstd);
    const bindings = [this.params, inp, weight, bias ?? this.dummy, out, mean, rstd];
    this.ctx.dispatch(encoder, this.spec('layernorm_forward'), bindings, grid(this.ctx, N, 1), this.shapes);
  }

  /**
   * dinp (N, C) = (or += with `accumulate`) the input gradient; dweight (C) += Σ_n dout · xhat; dbias (C) += Σ_n dout.
   * mean and rstd are forward's.
   */
  backward(encoder: GPUCommandEncoder, args: LayerNormBackwardArgs): void {
    const { dinp, dweight, dbias, dout, inp, weight, mean, rstd } = args;
    const { N, C } = this.dims;
    this.expect('dinp', dinp, [N, C]);
    this.expect('dweight', dweight, [C]);
    this.expectBias('dbias', dbias);
    this.expect('dout', dout, [N, C]);
    this.expect('inp', inp, [N, C]);
    this.expect('weight', weight, [C]);
    this.expect('mean', mean, [N]);
    this.expect('rstd', rstd, [N]);
    expectDistinct(this.label, dinp, dout, inp, weight, mean, rstd);
    const input = [this.params, inp, weight, null, null, mean, rstd, dout, dinp];
    this.ctx.dispatch(encoder, this.spec('layernorm_backward_input'), input, grid(this.ctx, N, 1), this.shapes);
    const partials = [this.params, inp, null, null, null, mean, rstd, dout, null, this.partials];
    const columnGroups = Math.ceil(C / this.workgroup);
    this.ctx.dispatch(encoder, this.spec('layernorm_backward_partials'), partials, [columnGroups, this.chunks], this.shapes);
    const reduce = [this.params, null, null, null, null, null, null, null, null, this.partials, dweight, dbias ?? this.dummy];
    this.ctx.dispatch(encoder, this.spec('layernorm_backward_params'), reduce, [columnGroups], this.shapes);
  }

  private spec(entryPoint: string): KernelSpec {
    return { family: FAMILY, source, entryPoint, constants: this.constants };
  }

  private expect(role: string, tensor: Tensor, shape: number[]): void {
    expectOperand(this.label, role, tensor, shape);
  }

  private expectBias(role: string, tensor: Tensor | null): void {
    if (this.options.bias && !tensor) throw new Error(`${this.label}: built with a bias, but ${role} is null`);
    if (!this.options.bias && tensor)
      throw new Error(`${this.label}: built without a bias (bias: false), but got ${role} ${tensor}`);
    if (tensor) this.expect(role, tensor, [this.dims.C]);
  }
}
