// Opens a SPLADE model for the GPU commands (eval, encode): load, optional rescaling by k, upload, text encoder.
import type { GpuContext } from '../gpu/context.ts';
import { nodeGpuContext } from '../gpu/node-gpu.ts';
import { GpuModel } from '../model/gpu-model.ts';
import { loadModel, type LoadedModel } from '../model/load-model.ts';
import { rescaleHostParams } from '../model/rescale.ts';
import { SpladeTextEncoder } from '../model/splade-encoder.ts';
import { resolveModelSource } from './model-source.ts';

export interface GpuSession {
  ctx: GpuContext;
  loaded: LoadedModel;
  encoder: SpladeTextEncoder;
  close(): void;
}

export async function openGpuSession(modelArgument: string, options: { k?: number; batchSize?: number } = {}): Promise<GpuSession> {
  const source = await resolveModelSource(modelArgument);
  const ctx = await nodeGpuContext('cli');
  try {
    const loaded = await loadModel(source, { limits: ctx.limits });
    const k = options.k ?? 1;
    const params = k === 1 ? loaded.params : rescaleHostParams(loaded.config, loaded.params, k);
    const model = GpuModel.upload(ctx, loaded.config, params);
    const encoder = new SpladeTextEncoder(ctx, model, loaded.tokenizer, options.batchSize ?? 8);
    return { ctx, loaded, encoder, close: () => ctx.destroy() };
  } catch (error) {
    ctx.destroy();
    throw error;
  }
}
