// The paper's correction: W_head <- W_head / k before training (the shared matrix when the head is tied).
import type { GpuContext } from '../gpu/context.ts';
import type { HostTensor } from '../io/host-tensor.ts';
import { HeadStats } from '../kernels/head-stats.ts';
import type { ModelConfig } from './config.ts';
import type { GpuModel } from './gpu-model.ts';
import { decoderWeightName } from './layout.ts';

function checkK(k: number): void {
  if (!(k > 0) || !Number.isFinite(k)) throw new Error(`k must be a positive number, got ${k}`);
}

/** A copy of `params` whose decoder matrix is divided by k (tied: the word embeddings, so tying survives). */
export function rescaleHostParams(config: ModelConfig, params: Map<string, HostTensor>, k: number): Map<string, HostTensor> {
  checkK(k);
  const name = decoderWeightName(config);
  const weight = params.get(name);
  if (!weight) throw new Error(`rescale: the model has no decoder matrix (${name})`);
  const out = new Map(params);
  out.set(name, { shape: [...weight.shape], data: weight.data.map((x) => x / k) });
  return out;
}

/** Divides the decoder matrix of a model already on the GPU by k, in place (one kernel, no host copy). */
export async function rescaleGpuModel(ctx: GpuContext, model: GpuModel, k: number): Promise<void> {
  checkK(k);
  const [V, d] = model.decoderWeight.shape;
  const kernel = new HeadStats(ctx, V, d, { pairs: 1 });
  await ctx.run(`rescale head by ${k}`, (encoder) => kernel.rescale(encoder, model.decoderWeight, k));
}
