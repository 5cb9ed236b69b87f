// WebGPU in Node through Dawn (npm `webgpu`), on SwiftShader when no Vulkan GPU driver is configured.
import { existsSync } from 'node:fs';
import { create, globals } from 'webgpu';
import { acquireGpuContext, acquireGpuDevice, contextOnDevice, type AcquiredDevice } from './acquire.ts';
import type { GpuContext } from './context.ts';
import { throttleDawnPolling } from './dawn-node-polling.ts';

const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

let gpu: GPU | undefined;

/** The Node GPU entry point (Dawn, on SwiftShader unless SPLADE_LAB_GPU=system), created once per process. */
export function nodeGpu(): GPU {
  if (gpu) return gpu;
  if (!process.env.VK_ICD_FILENAMES && !process.env.VK_DRIVER_FILES && process.env.SPLADE_LAB_GPU !== 'system') {
    if (existsSync(SWIFTSHADER_ICD)) process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
  }
  process.env.XDG_RUNTIME_DIR ??= '/tmp';
  Object.assign(globalThis, globals);
  throttleDawnPolling();
  gpu = create([]) as GPU;
  return gpu;
}

/**
 * Devices whose context was destroyed, live, by mode (portable or not): the next context of that mode takes one
 * instead of requesting a device, and finds every pipeline already compiled (a sweep's second k, a resumed run, the
 * next test file: compiling is most of a short run's time on SwiftShader). One context holds a device at a time.
 */
const idleDevices = new Map<boolean, AcquiredDevice[]>();

/**
 * A GpuContext in Node. SPLADE_LAB_DUMP_WGSL=1 turns on its WGSL dump (each new pipeline's code on stderr, so such a
 * context always gets a device of its own); SPLADE_LAB_PORTABLE=1 asks for WebGPU's default limits and the smallest
 * per-dispatch work budget (the portability test mode: `npm run test:portable`).
 */
export async function nodeGpuContext(label = 'splade-lab'): Promise<GpuContext> {
  const options = { dumpWgsl: process.env.SPLADE_LAB_DUMP_WGSL === '1', portable: process.env.SPLADE_LAB_PORTABLE === '1' };
  if (options.dumpWgsl) return acquireGpuContext(nodeGpu(), label, options);
  const idle = idleDevices.get(options.portable) ?? [];
  idleDevices.set(options.portable, idle);
  let acquired = idle.pop();
  if (!acquired) {
    const fresh = await acquireGpuDevice(nodeGpu(), label, options);
    // a device lost while idle is never lent again
    void fresh.device.lost.then(() => {
      const at = idle.indexOf(fresh);
      if (at >= 0) idle.splice(at, 1);
    });
    acquired = fresh;
  }
  const lent = acquired;
  return contextOnDevice(lent, options, () => idle.push(lent));
}
