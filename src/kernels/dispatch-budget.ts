// How much work one dispatch may do before a GPU watchdog (Windows' 2 s TDR, macOS's) resets the device: kernels
// whose work grows with the batch split their dispatches under this budget, each piece bit-identical to the whole.
import type { GpuContext } from '../gpu/context.ts';

/**
 * FLOPs one dispatch may do on `ctx`'s adapter: ctx.maxDispatchFlops when set (the portability mode), none on a CPU
 * (no watchdog there, and the fewer dispatches the better), a quarter of the GPU budget on the integrated and mobile
 * GPUs of Intel, Qualcomm and Arm (tens of GFLOP/s), else the GPU budget.
 */
export function dispatchFlopsBudget(ctx: GpuContext): number {
  if (ctx.maxDispatchFlops !== null) return ctx.maxDispatchFlops;
  if (ctx.onCpu) return Infinity;
  return WEAK_GPU_VENDORS.has(ctx.adapter.vendor.toLowerCase()) ? GPU_DISPATCH_FLOPS / 4 : GPU_DISPATCH_FLOPS;
}

/**
 * The per-dispatch budget of a GPU adapter, 2e10 FLOPs: about 0.2 s at 100 GFLOP/s, far inside Windows' 2 s TDR (the
 * bench plans the paper's shapes with it on any machine).
 */
export const GPU_DISPATCH_FLOPS = 2e10;

/** Vendors (GPUAdapterInfo.vendor) whose GPUs are integrated or mobile: a smaller budget there. */
const WEAK_GPU_VENDORS = new Set(['intel', 'qualcomm', 'arm']);
