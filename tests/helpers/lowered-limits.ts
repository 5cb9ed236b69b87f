// A view of a test's GpuContext whose reported limits are lowered (the device is unchanged), so that a kernel's path
// past a limit (a 1-D grid folded into y past maxComputeWorkgroupsPerDimension) runs at a small, fast size.
import type { GpuContext } from '../../src/gpu/context.ts';

export function withLoweredLimits(ctx: GpuContext, lowered: Partial<Record<keyof GPUSupportedLimits, number>>): GpuContext {
  const limits: Record<string, number> = {};
  for (const key in ctx.limits) limits[key] = ctx.limits[key as keyof GPUSupportedLimits] as number;
  for (const [key, value] of Object.entries(lowered)) {
    if (value > limits[key]) throw new Error(`withLoweredLimits: ${key} ${value} is above the device's ${limits[key]}`);
    limits[key] = value;
  }
  return Object.create(ctx, { limits: { get: () => limits as unknown as GPUSupportedLimits } }) as GpuContext;
}
