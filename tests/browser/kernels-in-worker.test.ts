// The browser path: WebGPU kernels run in a module Web Worker in headless Chromium and match the references.
import type { WorkerCheck } from './kernel-worker.ts';
import { expect } from './expect.ts';

interface WorkerResult {
  ok: boolean;
  error?: string;
  adapter?: string;
  checks?: WorkerCheck[];
  modelError?: number;
}

describe('kernels in a Web Worker', () => {
  it('the page has WebGPU', () => {
    expect(navigator.gpu, 'navigator.gpu is missing: Chromium needs --enable-unsafe-webgpu').toBeTruthy();
  });

  it('the kernel-test helper passes scores + contrastive loss, layernorm and head statistics; a whole ModernBERT + SPLADE head matches the float64 model', async () => {
    const worker = new Worker(new URL('./kernel-worker.ts', import.meta.url), { type: 'module' });
    const result = await new Promise<WorkerResult>((resolve, reject) => {
      worker.onmessage = (event) => resolve(event.data as WorkerResult);
      worker.onerror = (event) => reject(new Error(`worker failed to load: ${event.message}`));
    });
    worker.terminate();
    expect(result.ok, result.error).toBe(true);
    console.log(`worker adapter: ${result.adapter}`);
    expect(result.checks, 'worker ran no checks').toHaveLength(3);
    const failures = result.checks!.flatMap((check) => check.failures);
    expect(failures, failures.join('\n')).toHaveLength(0);
    expect(result.modelError, `ModernBERT encoder + fused SPLADE head: relative error ${result.modelError}`).toBeLessThan(1e-4);
  });
});
