// Typed wrappers of shaders/activations.wgsl: exact GELU, GeGLU, residual add, bias add (forward and backward), erf,
// and the classification heads' tanh, first-token gather and masked mean (forward only).
import source from '../../shaders/activations.wgsl?raw';
import type { GpuContext, KernelSpec } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { checkDims, expectDistinct, expectOperand, grid } from './layer-common.ts';

const FAMILY = 'activations';
const WORKGROUP = 256;

export interface ActivationOptions {
  /** backward adds into dinp instead of overwriting it. Default false. */
  accumulate?: boolean;
  label?: string;
}

/** out = f(inp): the forward operands of an element-wise kernel. */
export interface ElementForwardArgs {
  out: Tensor; // overwritten
  inp: Tensor;
}

/** dinp (+)= dout · f'(inp): the backward operands of an element-wise kernel. */
export interface ElementBackwardArgs {
  /** overwritten, or added into with `accumulate` */
  dinp: Tensor;
  dout: Tensor;
  inp: Tensor; // forward's input
}

/** Shared plumbing: one uniform (n, cols, chunks) written once, pipelines specialised by ACCUMULATE. */
abstract class ElementKernel {
  protected readonly params: GPUBuffer;
  protected readonly constants: Record<string, number>;

  constructor(
    protected readonly ctx: GpuContext,
    readonly label: string,
    words: [number, number, number],
    constants: Record<string, number> = {},
  ) {
    this.params = ctx.uniform(`${label} params`, 4);
    ctx.writeUniform(this.params, [...words, 0]);
    this.constants = { WORKGROUP, ...constants };
  }

  protected run(encoder: GPUCommandEncoder, entryPoint: string, bindings: (Tensor | null)[], invocations: number): void {
    const spec: KernelSpec = { family: FAMILY, source, entryPoint, constants: this.constants };
    this.ctx.dispatch(encoder, spec, [this.params, ...bindings], grid(this.ctx, invocations, WORKGROUP), this.label);
  }

  protected expect(role: string, tensor: Tensor, shape: number[]): void {
    expectOperand(this.label, role, tensor, shape);
  }

  /** Element-wise operands: any shape holding n f32. */
  protected expectSize(role: string, tensor: Tensor, n: number): void {
    if (tensor.size !== n || tensor.dtype !== 'f32') throw new Error(`${this.label}: ${role} must hold ${n} f32, got ${tensor}`);
  }
}

/** erf over n elements (the one GELU uses; absolute error below 1e-6). */
export class Erf extends ElementKernel {
  constructor(
    ctx: GpuContext,
    readonly n: number,
  ) {
    super(ctx, `erf n${n}`, [n, 0, 0]);
    checkDims('erf', { n });
  }

  /** out (n) = erf(inp (n)). */
  forward(encoder: GPUCommandEncoder, { out, inp }: ElementForwardArgs): void {
    this.expectSize('out', out, this.n);
    this.expectSize('inp', inp, this.n);
    expectDistinct(this.label, out, inp);
    this.run(encoder, 'erf_forward', [inp, null, out], this.n);
  }
}

/**
 * Exact GELU x·Φ(x) over n elements (any shape). forward overwrites out; backward overwrites dinp, or adds into it
 * with `accumulate` (zeroing it is then the caller's step).
 */
export class Gelu extends ElementKernel {
  /** `approximate`: transformers' gelu_new (tanh approximation, ALBERT) instead of the exact erf GELU. */
  constructor(
    ctx: GpuContext,
    readonly n: number,
    options: ActivationOptions & { approximate?: boolean } = {},
  ) {
    const constants = {
      ACCUMULATE: Number(options.accumulate ?? false),
      TANH_APPROXIMATION: Number(options.approximate ?? false),
    };
    super(ctx, options.label ?? `gelu${options.approximate ? ' (tanh)' : ''} n${n}`, [n, 0, 0], constants);
    checkDims('gelu', { n });
  }

  /** out (n) = gelu(inp (n)). */
  forward(encoder: GPUCommandEncoder, { out, inp }: ElementForwardArgs): void {
    this.expectSize('out', out, this.n);
    this.expectSize('inp', inp, this.n);
    expectDistinct(this.label, out, inp);
    this.run(encoder, 'gelu_forward', [inp, null, out], this.n);
  }

  /** dinp (n) (+)= dout (n) · gelu'(inp (n)). */
  backward(encoder: GPUCommandEncoder, { dinp, dout, inp }: ElementBackwardArgs): void {
    for (const [role, t] of [
      ['dinp', dinp],
      ['dout', dout],
      ['inp', inp],
    ] as const)
      this.expectSize(role, t, this.n);
    expectDistinct(this.label, dinp, dout, inp);
    this.run(encoder, 'gelu_backward', [inp, dout, dinp], this.n);
  }
}

/**
 * ModernBERT's GeGLU on N rows: the MLP input projection's output (N, 2I) is split into (input, gate) halves along
 * the last dim and out (N, I) = gelu(input) · gate. backward overwrites dinp (N, 2I), or adds with `accumulate`.
 */
export class Geglu extends ElementKernel {
  constructor(
    ctx: GpuContext,
    readonly N: number,
    readonly I: number,
    options: ActivationOptions = {},
  ) {
    super(ctx, options.label ?? `geglu N${N} I${I}`, [N, I, 0], { ACCUMULATE: Number(options.accumulate ?? false) });
    checkDims('geglu', { N, I });
  }

  /** out (N, I) = gelu(inp[:, :I]) · inp[:, I:], inp (N, 2I). */
  forward(encoder: GPUCommandEncoder, { out, inp }: ElementForwardArgs): void {
    this.expect('out', out, [this.N, this.I]);
    this.expect('inp', inp, [this.N, 2 * this.I]);
    expectDistinct(this.label, out, inp);
    this.run(encoder, 'geglu_forward', [inp, null, out], this.N * this.I);
  }

  /** dinp (N, 2I) (+)= [dout · gate · gelu'(input), dout · gelu(input)], dout (N, I). */
  backward(encoder: GPUCommandEncoder, { dinp, dout, inp }: ElementBackwardArgs): void {
    this.expect('dinp', dinp, [this.N, 2 * this.I]);
    this.expect('dout', dout, [this.N, this.I]);
    this.expect('inp', inp, [this.N, 2 * this.I]);
    expectDistinct(this.label, dinp, dout, inp);
    this.run(encoder, 'geglu_backward', [inp, dout, dinp], this.N * this.I);
  }
}

/**
 * Residual add over n elements. Its backward needs no kernel: d a = d b = d out, so a caller passes dout on (or adds
 * it into an existing gradient with `accumulate`).
 */
export class Add extends ElementKernel {
  constructor(
    ctx: GpuContext,
    readonly n: number,
    label?: string,
  ) {
    super(ctx, label ?? `add n${n}`, [n, 0, 0]);
    checkDims('add', { n });
  }

  /** out (n) = a (n) + b (n). */
  forward(encoder: GPUCommandEncoder, { out, a, b }: { out: Tensor; a: Tensor; b: Tensor }): void {
    for (const [role, t] of [
      ['out', out],
      ['a', a],
      ['b', b],
    ] as const)
      this.expectSize(role, t, this.n);
    expectDistinct(this.label, out, a, b);
    this.run(encoder, 'add_forward', [a, b, out], this.n);
  }

  /** out (n) += a (n): a residual branch into the stream, or one gradient into another. */
  accumulate(encoder: GPUCommandEncoder, { out, a }: { out: Tensor; a: Tensor }): void {
    this.expectSize('out', out, this.n);
    this.expectSize('a', a, this.n);
    expectDistinct(this.label, out, a);
    this.run(encoder, 'add_inplace', [a, null, out], this.n);
  }
}

/**
 * Bias add along the last dim where the matmul's own bias does not cover it, and the bias gradient every linear layer
 * needs (the matmul computes none): dbias (C) += Σ_n dout (N, C), a fixed-order two-stage column sum. backward ADDS
 * into dbias; zeroing parameter gradients is the caller's step.
 */
export class BiasAdd extends ElementKernel {
  readonly chunks: number;
  private readonly partials: Tensor<'f32'>; // (chunks, C)

  constructor(
    ctx: GpuContext,
    readonly N: number,
    readonly C: number,
    options: { label?: string; rowsPerChunk?: number } = {},
  ) {
    checkDims('bias_add', { N, C });
    const rowsPerChunk = options.rowsPerChunk ?? 32;
    const chunks = Math.ceil(N / rowsPerChunk);
    const label = options.label ?? `bias_add N${N} C${C}`;
    super(ctx, label, [N, C, chunks], { ROWS_PER_CHUNK: rowsPerChunk });
    if (chunks > ctx.limits.maxComputeWorkgroupsPerDimension)
      throw new Error(`${label}: ${chunks} row chunks; raise rowsPerChunk`);
    this.chunks = chunks;
    this.partials = ctx.tensor(`${label} partials`, [chunks, C], 'f32');
  }

  /** x (N, C) += bias (C) on every row, in place. */
  forward(encoder: GPUCommandEncoder, { x, bias }: { x: Tensor; bias: Tensor }): void {
    this.expect('x', x, [this.N, this.C]);
    this.expect('bias', bias, [this.C]);
    expectDistinct(this.label, x, bias);
    this.run(encoder, 'bias_forward', [bias, null, x], this.N * this.C);
  }

  /** dbias (C) += Σ over rows of dout (N, C). */
  backward(encoder: GPUCommandEncoder, { dbias, dout }: { dbias: Tensor; dout: Tensor }): void {
    this.expect('dbias', dbias, [this.C]);
    this.expect('dout', dout, [this.N, this.C]);
    expectDistinct(this.label, dbias, dout);
    const columns = Math.ceil(this.C / WORKGROUP);
    const spec = (entryPoint: string): KernelSpec => ({ family: FAMILY, source, entryPoint, constants: this.constants });
    this.ctx.dispatch(
      encoder,
      spec('bias_backward_partials'),
      [this.params, null, dout, null, this.partials],
      [columns, this.chunks],
      this.label,
    );
    this.ctx.dispatch(
      encoder,
      spec('bias_backward_reduce'),
      [this.params, null, null, dbias, this.partials],
      [columns],
      this.label,
    );
  }
}

/** tanh over n elements (BERT's pooler activation), relative-accurate near 0 and finite at any |x|; forward only. */
export class Tanh extends ElementKernel {
  constructor(
    ctx: GpuContext,
    readonly n: number,
    label?: string,
  ) {
    super(ctx, label ?? `tanh n${n}`, [n, 0, 0]);
    checkDims('tanh', { n });
  }

  /** out (n) = tanh(inp (n)). */
  forward(encoder: GPUCommandEncoder, { out, inp }: ElementForwardArgs): void {
    this.expectSize('out', out, this.n);
    this.expectSize('inp', inp, this.n);
    expectDistinct(this.label, out, inp);
    this.run(encoder, 'tanh_forward', [inp, null, out], this.n);
  }
}

/** Each sequence's first-token ([CLS]) row of (B, T, C) into (B, C): what BERT's pooler reads. */
export class FirstTokenGather extends ElementKernel {
  constructor(
    ctx: GpuContext,
    readonly B: number,
    readonly T: number,
    readonly C: number,
    label?: string,
  ) {
    super(ctx, label ?? `first_token_gather B${B} T${T} C${C}`, [B, C, T]);
    checkDims('first_token_gather', { B, T, C });
  }

  /** out (B, C) = inp (B, T, C)[:, 0, :]. */
  forward(encoder: GPUCommandEncoder, { out, inp }: ElementForwardArgs): void {
    this.expect('out', out, [this.B, this.C]);
    this.expectSize('inp', inp, this.B * this.T * this.C);
    expectDistinct(this.label, out, inp);
    this.run(encoder, 'first_token_gather', [inp, null, out], this.B * this.C);
  }
}

/** Each sequence's mean over its real tokens, (B, T, C) -> (B, C): ModernBERT's classifier_pooling "mean". */
export class MaskedMean extends ElementKernel {
  constructor(
    ctx: GpuContext,
    readonly B: number,
    readonly T: number,
    readonly C: number,
    label?: string,
  ) {
    super(ctx, label ?? `masked_mean B${B} T${T} C${C}`, [B, C, T]);
    checkDims('masked_mean', { B, T, C });
  }

  /** out (B, C) = Σ_t mask · inp[:, t, :] / Σ_t mask; mask (B, T) f32, 1 real token, 0 padding (each row has a 1). */
  forward(encoder: GPUCommandEncoder, { out, inp, mask }: ElementForwardArgs & { mask: Tensor }): void {
    this.expect('out', out, [this.B, this.C]);
    this.expectSize('inp', inp, this.B * this.T * this.C);
    this.expectSize('mask', mask, this.B * this.T);
    expectDistinct(this.label, out, inp, mask);
    this.run(encoder, 'masked_mean_rows', [inp, mask, out], this.B * this.C);
  }
}
