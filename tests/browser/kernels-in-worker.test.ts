// The browser path: WebGPU kernels run in a module Web Worker in headless Chromium and match the references.
import type { WorkerCheck } from './kernel-worker.ts';

interface WorkerResult {
  ok: boolean;
  error?: string;
  adapter?: string;
  checks?: WorkerCheck[];
  modelError?: number;
}

describe('kernels in a Web Worker', () => {
  it('the page has WebGPU', () => {
    if (!navigator.gpu) throw new Error('navigator.gpu is missing: Chromium needs --enable-unsafe-webgpu');
  });

  it('the kernel-test helper passes scores + contrastive loss, layernorm and head statistics; a whole ModernBERT + SPLADE head matches the float64 model', async () => {
    const worker = new Worker(new URL('./kernel-worker.ts', import.meta.url), { type: 'module' });
    const result = await new Promise<WorkerResult>((resolve, reject) => {
      worker.onmessage = (event) => resolve(event.data as WorkerResult);
      worker.onerror = (event) => reject(new Error(`worker failed to load: ${event.message}`));
    });
    worker.terminate();
    if (!result.ok) throw new Error(result.error);
    console.log(`worker adapter: ${result.adapter}`);
    if (!result.checks || result.checks.length !== 3) throw new Error('worker ran no checks');
    const failures = result.checks.flatMap((check) => check.failures);
    if (failures.length) throw new Error(failures.join('\n'));
    if (!(result.modelError! < 1e-4))
      throw new Error(`ModernBERT encoder + fused SPLADE head: relative error ${result.modelError}`);
  });
});
