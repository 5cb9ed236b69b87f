// One GpuContext per test file (Node, Dawn on SwiftShader), destroyed after the file's tests.
import { afterAll } from 'vitest';
import type { GpuContext } from '../../src/gpu/context.ts';
import { nodeGpuContext } from '../../src/gpu/webgpu-node.ts';

let context: Promise<GpuContext> | undefined;

export function gpuContext(): Promise<GpuContext> {
  if (!context) {
    context = nodeGpuContext('tests');
    afterAll(async () => (await context)?.destroy());
  }
  return context;
}
