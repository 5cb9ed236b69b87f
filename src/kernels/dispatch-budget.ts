// How much work one dispatch may do before a GPU watchdog (Windows' 2 s TDR, macOS's) resets the device: kernels
// whose work grows with the batch split their dispatches under this budget, each piece bit-identical to the whole.
import type { GpuContext } from '../gpu/context.ts';

/**
 * FLOPs one dispatch may do on `ctx`'s adapter: ctx.maxDispatchFlops when set (the portability mode), none on a CPU
 * (no watchdog there, and the fewer dispatches the better), else 2e10: about 0.2 s on a weak integrated GPU
 * (100 GFLOP/s), far inside the watchdogs.
 */
export function dispatchFlopsBudget(ctx: GpuContext): number {
  if (ctx.maxDispatchFlops !== null) return ctx.maxDispatchFlops;
  return ctx.adapter.isFallbackAdapter || ctx.adapter.architecture === 'swiftshader' ? Infinity : GPU_DISPATCH_FLOPS;
}

/** The per-dispatch budget of a GPU adapter (the bench plans the paper's shapes with it on any machine). */
export const GPU_DISPATCH_FLOPS = 2e10;
