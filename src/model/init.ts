// Seeded parameter initialisation in the internal layout: normal weights and biases, norm scales around 1,
// optionally a decoder matrix with a chosen mean row norm. Used by the tiny-checkpoint generator and tests.
import type { HostTensor } from '../io/host-tensor.ts';
import { Random } from '../util/random.ts';
import type { ModelConfig } from '../contract/model/model-config.ts';
import { P, decoderWeightName, parameterLayout } from './layout.ts';

export interface InitOptions {
  seed: number;
  /** Standard deviation of weights, biases and of the norm scales' deviation from 1. */
  std: number;
  /** Mean L2 norm of the decoder matrix's rows (the word embeddings when tied). */
  headNormScale?: number;
}

export function initParameters(config: ModelConfig, options: InitOptions): Map<string, HostTensor> {
  const random = new Random(options.seed);
  const params = new Map<string, HostTensor>();
  for (const spec of parameterLayout(config)) {
    const values = random.normals(
      spec.shape.reduce((a, b) => a * b, 1),
      options.std,
    );
    if (spec.kind === 'norm-scale') for (let i = 0; i < values.length; i++) values[i] += 1;
    params.set(spec.name, { shape: [...spec.shape], data: Float32Array.from(values) });
  }
  if (options.headNormScale !== undefined) {
    scaleMeanRowNorm(params.get(decoderWeightName(config))!.data, config.embeddingSize, options.headNormScale);
  }
  if (config.positions === 'roberta') {
    // nn.Embedding(padding_idx) starts that row at zero; RoBERTa gives pads the pad position.
    const d = config.embeddingSize;
    params.get(P.positionEmbeddings)!.data.fill(0, config.padTokenId * d, (config.padTokenId + 1) * d);
  }
  return params;
}

/** Rescales the whole matrix (rows of width d) so that its mean row L2 norm is `target`, keeping the spread. */
function scaleMeanRowNorm(data: Float32Array, d: number, target: number): void {
  const rows = data.length / d;
  let total = 0;
  for (let r = 0; r < rows; r++) {
    let sq = 0;
    for (let c = 0; c < d; c++) sq += data[r * d + c] ** 2;
    total += Math.sqrt(sq);
  }
  const factor = target / (total / rows);
  for (let i = 0; i < data.length; i++) data[i] *= factor;
}
