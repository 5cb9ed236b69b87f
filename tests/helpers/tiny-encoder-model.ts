// The encoder tests' inputs: a tiny model with weights large enough (initStd 0.3) for a mistake to show, and a batch
// of sequences padded to one length.
import type { Architecture, ModelConfig } from '../../src/contract/model/model-config.ts';
import { parseModelConfig } from '../../src/model/config.ts';
import type { EncoderInput } from '../../src/model/reference/encoder.ts';
import { makeTinyCheckpoint, type TinyModelOptions } from '../../src/model/tiny-model.ts';
import { loadParameters, toFloat64Params } from '../../src/model/weights.ts';
import { Random } from '../../src/util/random.ts';

/** Two layers of 16 hidden units and two heads, its parameters as loaded (`host`) and in float64 (`params`). */
export function tinyEncoderModel(
  architecture: Architecture,
  options: Pick<TinyModelOptions, 'seed' | 'vocabSize'> & Partial<TinyModelOptions>,
) {
  const checkpoint = makeTinyCheckpoint(architecture, {
    hidden: 16,
    layers: 2,
    heads: 2,
    intermediate: 24,
    initStd: 0.3,
    ...options,
  });
  const config = parseModelConfig(checkpoint.config);
  const host = loadParameters(config, checkpoint.tensors);
  return { config, host, params: toFloat64Params(host) };
}

/**
 * One sequence per entry of `lengths` (default B = 2, T = 7: the second has 4 real tokens, then pad ids), seeded ids
 * that avoid the pad id; with `tokenTypes`, type 1 from position 3 on where the family has token types (0 elsewhere).
 */
export function encoderBatch(
  config: ModelConfig,
  seed: number,
  { T = 7, lengths = [7, 4], tokenTypes = false }: { T?: number; lengths?: number[]; tokenTypes?: boolean } = {},
): EncoderInput {
  const random = new Random(seed);
  const B = lengths.length;
  const ids = new Int32Array(B * T);
  const mask = new Uint8Array(B * T);
  const types = new Int32Array(B * T);
  for (let b = 0; b < B; b++)
    for (let t = 0; t < T; t++) {
      const real = t < lengths[b];
      mask[b * T + t] = real ? 1 : 0;
      ids[b * T + t] = real ? 3 + random.int(config.vocabSize - 4) : config.padTokenId;
      if (real && ids[b * T + t] === config.padTokenId) ids[b * T + t] = 2;
      if (config.typeVocabSize > 1) types[b * T + t] = t >= 3 ? 1 : 0;
    }
  if (!tokenTypes) return { ids, mask, B, T };
  return { ids, mask, B, T, tokenTypes: config.typeVocabSize > 0 ? types : undefined };
}
