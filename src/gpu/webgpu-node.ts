// WebGPU in Node through Dawn (npm `webgpu`), on SwiftShader when no Vulkan GPU driver is configured.
import { existsSync } from 'node:fs';
import { create, globals } from 'webgpu';
import { acquireGpuContext } from './acquire.ts';
import type { GpuContext } from './context.ts';

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
  gpu = create([]) as GPU;
  return gpu;
}

/**
 * A GpuContext in Node. SPLADE_LAB_DUMP_WGSL=1 turns on its WGSL dump (each new pipeline's code on stderr);
 * SPLADE_LAB_PORTABLE=1 asks for WebGPU's default limits and the smallest per-dispatch work budget (the portability
 * test mode: `npm run test:portable`).
 */
export function nodeGpuContext(label?: string): Promise<GpuContext> {
  return acquireGpuContext(nodeGpu(), label, {
    dumpWgsl: process.env.SPLADE_LAB_DUMP_WGSL === '1',
    portable: process.env.SPLADE_LAB_PORTABLE === '1',
  });
}
