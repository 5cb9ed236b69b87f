// Acquiring WebGPU: an adapter and a device with the adapter's real limits (not WebGPU's defaults), or a
// NoWebGpuError that says what to enable; the adapter's description and limits are reported for the page and bench.
import { GpuContext, type ReleaseDevice } from './context.ts';
import { type AdapterReport } from '../contract/model/gpu-report.ts';
import { NoWebGpuError } from './errors.ts';

/** The limits the adapter report lists. */
const REPORTED_LIMITS = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupsPerDimension',
  'maxStorageBuffersPerShaderStage',
] as const;

/** The per-dispatch work budget of the portability mode: a few thousand FLOPs, so that every split happens. */
const PORTABLE_DISPATCH_FLOPS = 4096;

/** A device with the adapter's real limits (WebGPU's defaults when portable) and the adapter's report. */
export interface AcquiredDevice {
  readonly device: GPUDevice;
  readonly report: AdapterReport;
}

/** Requests an adapter and a device with the adapter's real limits. `gpu` is navigator.gpu or Node's `webgpu`. */
export async function acquireGpuContext(
  gpu: GPU | undefined,
  label = 'splade-lab',
  options: { dumpWgsl?: boolean; portable?: boolean } = {},
): Promise<GpuContext> {
  const { device, report } = await acquireGpuDevice(gpu, label, options);
  return contextOnDevice({ device, report }, options);
}

/** A GpuContext over an acquired device; `release` set: destroy() hands the device back live instead of destroying it. */
export function contextOnDevice(
  { device, report }: AcquiredDevice,
  options: { dumpWgsl?: boolean; portable?: boolean },
  release: ReleaseDevice | null = null,
): GpuContext {
  const context = new GpuContext(device, report, release);
  context.dumpWgsl = options.dumpWgsl ?? false;
  // portable: the smallest per-dispatch work budget too, so that every splittable kernel runs split
  if (options.portable) context.maxDispatchFlops = PORTABLE_DISPATCH_FLOPS;
  return context;
}

/** Requests an adapter and a device (no context yet), or a NoWebGpuError that says what to enable. */
export async function acquireGpuDevice(
  gpu: GPU | undefined,
  label: string,
  options: { portable?: boolean },
): Promise<AcquiredDevice> {
  if (!gpu) {
    throw new NoWebGpuError(
      'WebGPU is not available here. Use a recent Chrome, Edge or Safari 26+ (Firefox: enable dom.webgpu.enabled); ' +
        'on Linux Chrome may need chrome://flags/#enable-unsafe-webgpu and #enable-vulkan.',
    );
  }
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) {
    throw new NoWebGpuError(
      'WebGPU is present but no GPU adapter was granted (blocklisted driver or GPU disabled). ' +
        'Update the graphics driver or enable hardware acceleration in the browser settings.',
    );
  }
  // portable: WebGPU's default limits (what any device grants), as the strictest test of the kernels here
  const requiredLimits: Record<string, number> = Object.create(null);
  for (const name of options.portable ? [] : limitNames(adapter.limits)) {
    requiredLimits[name] = (adapter.limits as unknown as Record<string, number>)[name];
  }
  const requiredFeatures: GPUFeatureName[] = [];
  if (adapter.features.has('timestamp-query')) requiredFeatures.push('timestamp-query');
  const device = await adapter.requestDevice({ label, requiredLimits, requiredFeatures });
  const info = adapter.info;
  const limits: Record<string, number> = Object.create(null);
  for (const name of REPORTED_LIMITS) limits[name] = device.limits[name];
  const report: AdapterReport = {
    vendor: info.vendor,
    architecture: info.architecture,
    device: info.device,
    description: info.description,
    isFallbackAdapter: Boolean(
      (info as { isFallbackAdapter?: boolean }).isFallbackAdapter ??
      (adapter as { isFallbackAdapter?: boolean }).isFallbackAdapter,
    ),
    features: [...device.features].map(String).sort(),
    limits,
  };
  return { device, report };
}

/** Limit names of a GPUSupportedLimits, whose properties may live on the prototype. */
function limitNames(limits: GPUSupportedLimits): string[] {
  const names = new Set<string>();
  for (let proto: object | null = limits; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name !== 'constructor' && typeof (limits as unknown as Record<string, unknown>)[name] === 'number') names.add(name);
    }
  }
  return [...names];
}
