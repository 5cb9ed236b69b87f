// What `inspect` and the page report about a backbone: architecture, size, tying, and the head's row-norm
// statistics at k = 1 and under k, measured by the GPU kernels through the model session.
import type { GpuContext } from '../../gpu/context.ts';
import type { HostTensor } from '../../io/host-tensor.ts';
import type { HeadStatistics } from '../../contract/model/head-statistics.ts';
import { headRowNorms } from '../../kernels/host/head-norms.ts';
import { HeadMeter } from '../../model/head-meter.ts';
import { headOf, headProvenance } from './model-session.ts';
import type { OpenedWeights } from './open-model.ts';

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
  /** Width of the head's rows (W_head is vocabSize x embeddingSize): the hidden size but for ALBERT. */
  embeddingSize: number;
  layers: number;
  tied: boolean;
  k: number;
  before: HeadNormSummary;
  after: HeadNormSummary;
  /** How queries and documents are encoded, as the folder's sentence-transformers modules say. */
  encoding: string;
  /** What the loader did or found (renamed keys, unused checkpoint tensors). */
  notes: string[];
}

function summarizeHead(stats: HeadStatistics): HeadNormSummary {
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

/** The model's report with its head measured at k = 1 and at k (no tokenizer needed; the weights stay as loaded). */
export async function inspectModel(
  ctx: GpuContext,
  model: OpenedWeights,
  k: number,
  options: { seed?: number } = {},
): Promise<ModelReport> {
  const meter = HeadMeter.upload(ctx, headOf(model), { seed: options.seed, provenance: headProvenance(model) });
  try {
    const pair = await meter.measure(k);
    const { config, estimate, notes } = model;
    return {
      architecture: config.hfArchitecture,
      params: estimate.parameters,
      vocabSize: config.vocabSize,
      hidden: config.hidden,
      embeddingSize: config.embeddingSize,
      layers: config.layers,
      tied: config.tieWordEmbeddings,
      k,
      before: summarizeHead(pair.before),
      after: summarizeHead(pair.after),
      encoding: model.encoding,
      notes,
    };
  } finally {
    meter.destroy();
  }
}

/** L2 norm of every row of a head (V, d), on the host in float64 (a run records what it started from). */
export function hostRowNorms(head: HostTensor): Float64Array {
  const [V, d] = head.shape;
  return headRowNorms(head.data, V, d);
}
