// Typed wrapper of shaders/matmul.wgsl and shaders/matmul_vec4.wgsl (each with shaders/matmul_common.wgsl appended):
// a Matmul is built once per shape and records C (+)= op(A)·op(B) (+ bias).
import common from '../../shaders/matmul_common.wgsl?raw';
import scalarSource from '../../shaders/matmul.wgsl?raw';
import vec4Source from '../../shaders/matmul_vec4.wgsl?raw';
import type { GpuContext, KernelSpec } from '../gpu/context.ts';
import { GpuKernelError } from '../gpu/errors.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { dispatchFlopsBudget } from './dispatch-budget.ts';
import { resolveMatmul, type MatmulLayout, type MatmulShape, type ResolvedMatmul } from './host/matmul-shape.ts';

export type { MatmulLayout, MatmulShape } from './host/matmul-shape.ts';

/** registers: 4x4 outputs per invocation straight from storage; tiled: staged in workgroup memory (large nt on GPUs). */
export type MatmulVariant = 'registers' | 'tiled';

export interface MatmulOptions {
  /** Names the kernel instance in labels and errors. */
  label?: string;
  /** Default: defaultMatmulVariant(ctx). */
  variant?: MatmulVariant;
  /** Workgroup size (invocations along N and M); each invocation computes 4x4 outputs. */
  workgroup?: [number, number];
  /** K depth staged per step by the tiled variant. */
  tileK?: number;
  /** The registers variant uses vec4 loads when the shape allows (see canVectorize); false forces scalar loads. */
  vectorize?: boolean;
  /** Most FLOPs one dispatch may do (default: dispatchFlopsBudget(ctx)); past it the product runs in pieces. */
  maxDispatchFlops?: number;
}

/** One dispatch of a split product: its first workgroup row and batch item, and how many of each. */
export interface MatmulPiece {
  wgY0: number;
  wgY: number;
  z0: number;
  z: number;
}

/**
 * Splits a product's grid under a per-dispatch FLOP budget: whole batch items while one fits (several per dispatch),
 * else rows of workgroups of one item (each 4·WG_Y rows of C); and never more than `maxBatchGroups` batch items per
 * dispatch (the device's workgroups per dimension: a batch of 140,000 attention heads runs in three dispatches). Each
 * piece computes its elements exactly as the whole product would, so a split product is bit-identical to the unsplit one.
 */
export function planMatmulPieces(
  shape: { M: number; N: number; K: number; batch: number },
  workgroups: readonly [number, number, number],
  wgY: number,
  budget: number,
  maxBatchGroups = Infinity,
): MatmulPiece[] {
  const [, rows, batch] = workgroups;
  const itemFlops = 2 * shape.M * shape.N * shape.K;
  const rowFlops = 2 * BLOCK * wgY * shape.N * shape.K;
  let zStep = batch;
  let yStep = rows;
  if (itemFlops * batch > budget) {
    zStep = Math.max(1, Math.floor(budget / itemFlops));
    if (itemFlops > budget) yStep = Math.max(1, Math.floor(budget / rowFlops));
  }
  zStep = Math.min(zStep, maxBatchGroups);
  const pieces: MatmulPiece[] = [];
  for (let z0 = 0; z0 < batch; z0 += zStep) {
    for (let wgY0 = 0; wgY0 < rows; wgY0 += yStep)
      pieces.push({ wgY0, wgY: Math.min(yStep, rows - wgY0), z0, z: Math.min(zStep, batch - z0) });
  }
  return pieces;
}

const BLOCK = 4;
/** The two families' sources: each file with the shared part appended (its own line numbers stay those of its file). */
const SCALAR_SOURCE = `${scalarSource}\n${common}`;
const VEC4_SOURCE = `${vec4Source}\n${common}`;
const DEFAULT_WORKGROUP: Record<MatmulVariant, [number, number]> = { registers: [8, 8], tiled: [16, 16] };
const DEFAULT_TILE_K = 8;

/** Products this large in the nt layout ran faster tiled on a real GPU (below: registers won in every layout). */
const NT_TILED_FROM_FLOPS = 2 ** 30;

/**
 * Registers, as measured: SwiftShader ran the shared-memory tiled kernel ~10x slower, and on an NVIDIA H200 (the device
 * check of docs/gpu.md) registers won every layout and shape but the large nt products (BERT-base's 2048x2304x768 nt:
 * tiled 11.5 TFLOP/s against 6.3), which therefore stay tiled on GPUs.
 */
export function defaultMatmulVariant(
  ctx: GpuContext,
  shape?: { M: number; N: number; K: number; layout: MatmulLayout },
): MatmulVariant {
  if (ctx.onCpu || !shape) return 'registers';
  return shape.layout === 'nt' && shape.M * shape.N * shape.K >= NT_TILED_FROM_FLOPS ? 'tiled' : 'registers';
}

/** vec4 loads need K, the batch strides of A and B, and each operand's contiguous dim (B's N in nn/tn, A's M in tn)
 *  to be multiples of 4. */
function canVectorize(shape: ResolvedMatmul): boolean {
  const { M, N, K, strides, transposeA, transposeB } = shape;
  const aligned = (...values: number[]) => values.every((v) => v % 4 === 0);
  return aligned(K, strides.a, strides.b) && (transposeA ? aligned(M) : true) && (transposeB ? true : aligned(N));
}

/**
 * Refuses, when the kernel is built (not at the next sync), a workgroup or a tile the device cannot run: its size per
 * axis and in all, and the tiled variant's workgroup memory, (4·WG_Y + 4·WG_X) x TILE_K floats.
 */
export function checkWorkgroupFits(
  ctx: Pick<GpuContext, 'limits'>,
  label: string,
  variant: MatmulVariant,
  wgX: number,
  wgY: number,
  tileK: number,
): void {
  const limits = ctx.limits;
  const problems: string[] = [];
  if (!Number.isInteger(wgX) || !Number.isInteger(wgY) || wgX < 1 || wgY < 1)
    problems.push(`workgroup ${wgX}x${wgY} is not two positive integers`);
  if (wgX > limits.maxComputeWorkgroupSizeX)
    problems.push(`WG_X ${wgX} is over maxComputeWorkgroupSizeX ${limits.maxComputeWorkgroupSizeX}`);
  if (wgY > limits.maxComputeWorkgroupSizeY)
    problems.push(`WG_Y ${wgY} is over maxComputeWorkgroupSizeY ${limits.maxComputeWorkgroupSizeY}`);
  if (wgX * wgY > limits.maxComputeInvocationsPerWorkgroup) {
    problems.push(
      `workgroup ${wgX}x${wgY} is over maxComputeInvocationsPerWorkgroup ${limits.maxComputeInvocationsPerWorkgroup}`,
    );
  }
  if (variant === 'tiled') {
    if (!Number.isInteger(tileK) || tileK < 1) problems.push(`TILE_K ${tileK} is not a positive integer`);
    const bytes = 4 * tileK * BLOCK * (wgX + wgY);
    if (bytes > limits.maxComputeWorkgroupStorageSize) {
      problems.push(
        `tiles of TILE_K ${tileK} need ${bytes} bytes of workgroup memory, over maxComputeWorkgroupStorageSize ${limits.maxComputeWorkgroupStorageSize}`,
      );
    }
  }
  if (problems.length) throw new Error(`${label}: ${problems.join('; ')}`);
}

/** Operands of one product: out (+)= op(a)·op(b) (+ bias). */
export interface MatmulArgs {
  a: Tensor; // (batch, M, K), or (batch, K, M) for tn
  b: Tensor; // (batch, K, N), or (batch, N, K) for nt
  out: Tensor; // (batch, M, N): overwritten, or added into when built with accumulate
  /** (N); given exactly when built with bias */
  bias?: Tensor;
}

export class Matmul {
  readonly label: string;
  readonly shape: ResolvedMatmul;
  readonly variant: MatmulVariant;
  /** The WGSL entry point used: matmul_registers, matmul_vec4 or matmul_tiled, with _bias when adding a bias. */
  readonly entryPoint: string;
  /** Workgroups per dispatch (x over N, y over M, z over the batch). */
  readonly workgroups: [number, number, number];
  private readonly spec: KernelSpec;
  /** The dispatches of one product (one unless the work budget splits it), each with its own params uniform. */
  private readonly pieces: (MatmulPiece & { params: GPUBuffer })[];
  private readonly description: string;

  constructor(
    private readonly ctx: GpuContext,
    shape: MatmulShape,
    options: MatmulOptions = {},
  ) {
    this.shape = resolveMatmul(shape);
    const { M, N, K, layout, batch, strides } = this.shape;
    this.label = options.label ?? `matmul ${layout} ${M}x${N}x${K}`;
    this.variant = options.variant ?? defaultMatmulVariant(ctx, this.shape);
    const [wgX, wgY] = options.workgroup ?? DEFAULT_WORKGROUP[this.variant];
    this.description =
      `${layout} M=${M} N=${N} K=${K}` +
      (batch !== 1 ? ` batch=${batch}` : '') +
      (this.shape.bias ? ' +bias' : '') +
      (this.shape.accumulate ? ' +=' : '');
    // Every index the kernel forms is below an operand's extent, so this also keeps them within u32.
    for (const [name, extent] of Object.entries(this.shape.extents))
      this.ctx.checkBindingSize(`${this.label}: ${name}`, extent * 4);
    this.workgroups = [Math.ceil(N / (BLOCK * wgX)), Math.ceil(M / (BLOCK * wgY)), batch];
    const maxGroups = ctx.limits.maxComputeWorkgroupsPerDimension;
    this.workgroups.forEach((count, axis) => {
      if (count > maxGroups && axis < 2) {
        throw new GpuKernelError(
          this.label,
          this.description,
          `needs ${count} workgroups along ${'xyz'[axis]} (${['N', 'M', 'batch'][axis]}), over maxComputeWorkgroupsPerDimension ` +
            `${maxGroups}; split the product into smaller ones`,
        );
      }
    });
    const tileK = options.tileK ?? DEFAULT_TILE_K;
    checkWorkgroupFits(ctx, this.label, this.variant, wgX, wgY, tileK);
    const constants: Record<string, number> = {
      TRANSPOSE_A: Number(this.shape.transposeA),
      TRANSPOSE_B: Number(this.shape.transposeB),
      ACCUMULATE: Number(this.shape.accumulate),
      WG_X: wgX,
      WG_Y: wgY,
    };
    if (this.variant === 'tiled') constants.TILE_K = tileK;
    const kind = this.variant === 'registers' && options.vectorize !== false && canVectorize(this.shape) ? 'vec4' : this.variant;
    this.entryPoint = `matmul_${kind}${this.shape.bias ? '_bias' : ''}`;
    // the vec4 variant is its own module: A and B bound as vec4 arrays there, as f32 arrays in the other
    this.spec =
      kind === 'vec4'
        ? { family: 'matmul_vec4', source: VEC4_SOURCE, entryPoint: this.entryPoint, constants }
        : { family: 'matmul', source: SCALAR_SOURCE, entryPoint: this.entryPoint, constants };
    // Params: m, n, k, first workgroup row, stride_a, stride_b, stride_c, first batch item (u32 words); written once.
    const budget = options.maxDispatchFlops ?? dispatchFlopsBudget(ctx);
    this.pieces = planMatmulPieces(this.shape, this.workgroups, wgY, budget, maxGroups).map((piece, i) => {
      const params = ctx.uniform(`${this.label} params${i ? ` piece ${i}` : ''}`, 8);
      ctx.writeUniform(params, [M, N, K, piece.wgY0, strides.a, strides.b, strides.c, piece.z0]);
      return { ...piece, params };
    });
    ctx.pipeline(this.spec);
  }

  /** Dispatches per call (1 unless the work budget splits the product). */
  get dispatches(): number {
    return this.pieces.length;
  }

  /** Useful floating-point operations per call (2·M·N·K per batch item). */
  get flops(): number {
    const { M, N, K, batch } = this.shape;
    return 2 * M * N * K * batch;
  }

  /**
   * Records out (+)= op(a)·op(b) (+ bias) into `encoder`. a: (batch, M, K) or (batch, K, M) for tn; b: (batch, K, N) or
   * (batch, N, K) for nt; out: (batch, M, N); bias: (N). A broadcast operand (stride 0) is one matrix; leading dims may be
   * merged or split freely as long as the last dim and the element count match. An operand with custom (non-dense)
   * strides may have any shape holding at least its extent.
   */
  record(encoder: GPUCommandEncoder, { a, b, out, bias }: MatmulArgs): void {
    const { matrices, extents } = this.shape;
    this.checkOperand('a', a, matrices.a, extents.a, this.shape.strides.a);
    this.checkOperand('b', b, matrices.b, extents.b, this.shape.strides.b);
    this.checkOperand('out', out, matrices.c, extents.c, this.shape.strides.c);
    if (this.shape.bias) {
      if (!bias) throw new Error(`${this.label} (${this.description}): built with a bias but none was given`);
      this.checkOperand('bias', bias, [1, this.shape.N], this.shape.N, this.shape.N);
    } else if (bias) {
      throw new Error(`${this.label} (${this.description}): got bias ${bias} but was built without one (set bias: true)`);
    }
    for (const [name, operand] of [
      ['a', a],
      ['b', b],
      ['bias', bias],
    ] as const) {
      if (operand && operand.buffer === out.buffer) {
        throw new Error(`${this.label}: out ${out} is also operand ${name}; write the product to a separate tensor`);
      }
    }
    const shapes = `${this.description}: a ${a}, b ${b}, out ${out}` + (bias ? `, bias ${bias}` : '');
    for (const piece of this.pieces) {
      const bindings = bias ? [piece.params, a, b, out, bias] : [piece.params, a, b, out];
      this.ctx.dispatch(encoder, this.spec, bindings, [this.workgroups[0], piece.wgY, piece.z], shapes);
    }
  }

  private checkOperand(name: string, tensor: Tensor, [rows, cols]: [number, number], extent: number, stride: number): void {
    const dense = stride === 0 || stride === rows * cols;
    const last = tensor.shape.length ? tensor.shape[tensor.shape.length - 1] : 1;
    // Dense operands must look like the matrix; with custom strides the tensor is a flat span of at least the extent.
    const fits =
      tensor.dtype === 'f32' && (dense ? (extent === 0 || last === cols) && tensor.size === extent : tensor.size >= extent);
    if (fits) return;
    const { batch } = this.shape;
    const expected =
      name === 'bias' ? `[${cols}]` : batch > 1 && stride !== 0 ? `[${batch}x${rows}x${cols}]` : `[${rows}x${cols}]`;
    throw new Error(
      `${this.label} (${this.description}): operand ${name} is ${tensor}, expected f32 ` +
        (dense
          ? `${expected} (or any shape ending in ${cols} with ${extent} elements)`
          : `with at least ${extent} elements (strided)`),
    );
  }
}
