// Whether the adapter a peer finds through navigator.gpu (the one splade-lab uses in the same place) is a CPU.
import { adapterOnCpu } from '../../src/gpu/context.ts';

export async function navigatorAdapterOnCpu(): Promise<boolean> {
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) throw new Error('navigator.gpu has no adapter');
  const info = adapter.info as GPUAdapterInfo & { isFallbackAdapter?: boolean };
  const fallback = info.isFallbackAdapter ?? (adapter as { isFallbackAdapter?: boolean }).isFallbackAdapter;
  return adapterOnCpu({ isFallbackAdapter: Boolean(fallback), architecture: info.architecture });
}
