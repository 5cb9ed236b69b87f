// What `inspect` and the page show about a backbone: architecture, size, tying, and GPU head statistics under k.
import type { GpuContext } from '../gpu/context.ts';
import type { HostTensor } from '../io/host-tensor.ts';
import { HeadStats, type HeadStatistics } from '../kernels/head-stats.ts';
import type { ModelConfig } from './config.ts';
import { decoderWeightName, parameterCount } from './layout.ts';

/** Row-norm statistics under one k, named as in the paper's Table 1. */
export interface HeadNormSummary {
  meanRowNorm: number;
  maxRowNorm: number;
  minRowNorm: number;
  stdRowNorm: number;
  p50: number;
  p90: number;
  p99: number;
  anisotropy: number;
}

export interface ModelReport {
  architecture: string;
  params: number;
  vocabSize: number;
  hidden: number;
  layers: number;
  tied: boolean;
  k: number;
  before: HeadNormSummary;
  after: HeadNormSummary;
}

export function summarizeHead(stats: HeadStatistics): HeadNormSummary {
  const s = stats.summary;
  return {
    meanRowNorm: s.mean,
    maxRowNorm: s.max,
    minRowNorm: s.min,
    stdRowNorm: s.std,
    p50: s.p50,
    p90: s.p90,
    p99: s.p99,
    anisotropy: stats.anisotropy,
  };
}

/** The decoder matrix (V, d) of a loaded model: the word embeddings when tied. */
export function decoderMatrix(config: ModelConfig, params: Map<string, HostTensor>): HostTensor {
  const name = decoderWeightName(config);
  const weight = params.get(name);
  if (!weight) throw new Error(`the model has no decoder matrix (${name})`);
  return weight;
}

/** Measures the head on the GPU at k = 1 and at k (the matrix itself is not changed). */
export async function reportModel(
  ctx: GpuContext,
  config: ModelConfig,
  params: Map<string, HostTensor>,
  k: number,
  options: { seed?: number; pairs?: number; bins?: number } = {},
): Promise<ModelReport> {
  if (!(k > 0) || !Number.isFinite(k)) throw new Error(`k must be a positive number, got ${k}`);
  const weight = decoderMatrix(config, params);
  const [V, d] = weight.shape;
  ctx.checkBindingSize(`MLM head matrix [${V}x${d}]`, V * d * 4);
  const gpu = ctx.owned(() => ({
    tensor: ctx.tensor('inspect decoder', [V, d], 'f32', weight.data),
    stats: new HeadStats(ctx, V, d, { seed: options.seed ?? 1, pairs: options.pairs ?? 2000, bins: options.bins }),
  }));
  try {
    const { tensor, stats } = gpu.value;
    const before = summarizeHead(await stats.measure(tensor, 1));
    const after = summarizeHead(await stats.measure(tensor, k));
    return {
      architecture: config.hfArchitecture,
      params: parameterCount(config),
      vocabSize: config.vocabSize,
      hidden: config.hidden,
      layers: config.layers,
      tied: config.tieWordEmbeddings,
      k,
      before,
      after,
    };
  } finally {
    gpu.destroy();
  }
}
