// Each model family's position ids (B, T) for the learned position table, for the GPU encoder and its float64
// reference alike; the lookups themselves are the embedding kernel family's (src/kernels/reference/embedding.ts).
import type { ModelConfig } from '../contract/model/model-config.ts';

/**
 * Position ids (B, T) for the learned position table:
 * - BERT, DistilBERT: 0, 1, ..., T-1 for every sequence.
 * - RoBERTa / XLM-R: tokens that are not the pad id count up from pad+1; pad tokens get the pad id
 *   (transformers create_position_ids_from_input_ids: cumsum(ids != pad) * (ids != pad) + pad).
 */
export function positionIds(config: ModelConfig, ids: Int32Array, B: number, T: number): Int32Array {
  const out = new Int32Array(B * T);
  for (let b = 0; b < B; b++) {
    let count = 0;
    for (let t = 0; t < T; t++) {
      const n = b * T + t;
      if (config.positions === 'roberta') {
        const real = ids[n] !== config.padTokenId;
        if (real) count++;
        out[n] = real ? count + config.padTokenId : config.padTokenId;
      } else {
        out[n] = t;
      }
      if (out[n] >= config.maxPositions) {
        throw new RangeError(
          `sequence ${b}: position id ${out[n]} at token ${t} exceeds max_position_embeddings ${config.maxPositions}; truncate to fewer tokens`,
        );
      }
    }
  }
  return out;
}
