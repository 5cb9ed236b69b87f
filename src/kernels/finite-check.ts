// Typed wrapper of shaders/finite_check.wgsl: sticky GPU flags naming the tensors (or scalars) that went Inf or NaN,
// recorded into a step's command encoder and read back in one small copy.
import source from '../../shaders/finite_check.wgsl?raw';
import { grid1d, type GpuContext, type KernelSpec } from '../gpu/context.ts';
import type { Tensor } from '../gpu/tensor.ts';

const WORKGROUP = 256;
/** Elements each invocation checks (at most): few invocations, since one check is a plain read of every word. */
const ELEMENTS_PER_INVOCATION = 64;
const SPEC: KernelSpec = { family: 'finite_check', source, entryPoint: 'finite_check', constants: { WORKGROUP } };
/** Flag word 0 before any non-finite value was seen. */
export const NO_STEP = 0xffffffff;

/** One watched tensor: a whole tensor under one name, or a few named scalars (one flag each). */
export interface FinitePart {
  /** Names the whole tensor in a report (unused when `elements` is given). */
  name: string;
  tensor: Tensor;
  /** Names of the tensor's first elements, each flagged on its own (e.g. the loss parts). */
  elements?: string[];
}

export interface HealthReport {
  /** No watched value was Inf or NaN at any recorded step since the last reset. */
  finite: boolean;
  /** Names of the parts that were, in the order they were given. */
  parts: string[];
  /** The first step that found one (the `step` passed to record), or null. */
  firstStep: number | null;
}

interface Check {
  tensor: Tensor;
  n: number;
  uniform: GPUBuffer;
}

/**
 * Watches a fixed set of tensors, allocated once: `record` adds one small dispatch per part to the caller's encoder,
 * and the flags stay set (sticky) until `reset`, so a report every N steps still sees a step in between that went
 * wrong. Bit-pattern tests (exponent all ones), so no compiler assumption about NaN can hide one.
 */
export class FiniteMonitor {
  /** (1 + words) u32: word 0 the first flagged step (NO_STEP: none), then one bit per name of `names`. */
  readonly flags: Tensor<'u32'>;
  /** The name of each flag bit, in order. */
  readonly names: string[];
  private readonly stepUniform: GPUBuffer;
  private readonly checks: Check[];

  constructor(
    private readonly ctx: GpuContext,
    parts: readonly FinitePart[],
    label = 'finite check',
  ) {
    if (parts.length === 0) throw new Error(`${label}: nothing to watch`);
    this.names = [];
    this.checks = parts.map((part) => {
      const perElement = part.elements !== undefined;
      const n = perElement ? part.elements!.length : part.tensor.size;
      if (part.tensor.dtype !== 'f32') throw new Error(`${label}: ${part.tensor} is not f32`);
      if (perElement && (n === 0 || n > part.tensor.size)) {
        throw new Error(`${label}: ${n} element names for ${part.tensor}, which holds ${part.tensor.size}`);
      }
      const bit = this.names.length;
      this.names.push(...(perElement ? part.elements! : [part.name]));
      const uniform = ctx.uniform(`${label} ${part.name}`, 4);
      ctx.writeUniform(uniform, [n, bit, Number(perElement), 0]);
      return { tensor: part.tensor, n, uniform };
    });
    this.stepUniform = ctx.uniform(`${label} step`, 1);
    this.flags = ctx.tensor(`${label} flags`, [1 + Math.ceil(this.names.length / 32)], 'u32');
    this.resetNow();
  }

  /** Records every check into `encoder`, a value found non-finite counting as found at `step`. */
  record(encoder: GPUCommandEncoder, step: number): void {
    if (!(Number.isInteger(step) && step >= 0 && step < NO_STEP))
      throw new Error(`finite check: step ${step} is not a u32 below ${NO_STEP}`);
    this.ctx.writeUniform(this.stepUniform, [step]);
    const limit = this.ctx.limits.maxComputeWorkgroupsPerDimension;
    for (const check of this.checks) {
      const bindings = [check.uniform, this.stepUniform, check.tensor, this.flags];
      this.ctx.dispatch(
        encoder,
        SPEC,
        bindings,
        grid1d(Math.ceil(check.n / ELEMENTS_PER_INVOCATION), WORKGROUP, limit),
        `${check.tensor}`,
      );
    }
  }

  /** Clears every flag (queued before the next submitted encoder). */
  resetNow(): void {
    const words = new Uint32Array(this.flags.size);
    words[0] = NO_STEP;
    this.ctx.upload(this.flags, words);
  }

  /** Reads the flags back (one copy of a few words) and names what went non-finite. */
  async read(): Promise<HealthReport> {
    return decodeFlags(await this.ctx.read(this.flags), this.names);
  }
}

/** The report of a flag buffer (word 0 the first step, then one bit per name). */
export function decodeFlags(flags: ArrayLike<number>, names: readonly string[]): HealthReport {
  const parts = names.filter((_, bit) => ((flags[1 + (bit >> 5)] >>> (bit & 31)) & 1) === 1);
  const first = flags[0] >>> 0;
  return { finite: parts.length === 0 && first === NO_STEP, parts, firstStep: first === NO_STEP ? null : first };
}
