// The browser path: WebGPU kernels run in a module Web Worker in headless Chromium and match the references.
import type { WorkerCheck } from './kernel-worker.ts';

interface WorkerResult {
  ok: boolean;
  error?: string;
  adapter?: string;
  checks?: WorkerCheck[];
}

describe('kernels in a Web Worker', () => {
  it('the page has WebGPU', () => {
    if (!navigator.gpu) throw new Error('navigator.gpu is missing: Chromium needs --enable-unsafe-webgpu');
  });

  it('scores, contrastive loss, head statistics and a whole ModernBERT + SPLADE head match the float64 references', async () => {
    const worker = new Worker(new URL('./kernel-worker.ts', import.meta.url), { type: 'module' });
    const result = await new Promise<WorkerResult>((resolve, reject) => {
      worker.onmessage = (event) => resolve(event.data as WorkerResult);
      worker.onerror = (event) => reject(new Error(`worker failed to load: ${event.message}`));
    });
    worker.terminate();
    if (!result.ok) throw new Error(result.error);
    console.log(`worker adapter: ${result.adapter}`);
    if (!result.checks || result.checks.length !== 4) throw new Error('worker ran no checks');
    for (const check of result.checks) {
      if (!(check.worstError < 1e-4)) throw new Error(`${check.name}: relative error ${check.worstError}`);
    }
  });
});
