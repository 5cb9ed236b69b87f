// Float64 embedding lookups (word, position, token type) with scatter-add backward, and each family's position ids.
import type { ModelConfig } from '../config.ts';

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

/** out (N, d) (+)= table[ids[n]] (rows of table (rows, d)); with accumulate false the rows are written. */
export function embeddingForward(
  out: Float64Array,
  ids: Int32Array,
  table: Float64Array,
  N: number,
  d: number,
  accumulate: boolean,
): void {
  const rows = table.length / d;
  for (let n = 0; n < N; n++) {
    const id = ids[n];
    if (!(id >= 0 && id < rows)) throw new RangeError(`id ${id} at flat position ${n} is outside the table of ${rows} rows`);
    for (let c = 0; c < d; c++) out[n * d + c] = (accumulate ? out[n * d + c] : 0) + table[id * d + c];
  }
}

/**
 * Scatter-add: dtable[ids[n]] += dout[n]. Like torch's nn.Embedding(padding_idx=...), rows looked up with the
 * padding index receive no gradient from the lookup (pass -1 for tables without a padding index).
 */
export function embeddingBackward(
  dtable: Float64Array,
  dout: Float64Array,
  ids: Int32Array,
  N: number,
  d: number,
  paddingIdx: number,
): void {
  for (let n = 0; n < N; n++) {
    const id = ids[n];
    if (id === paddingIdx) continue;
    for (let c = 0; c < d; c++) dtable[id * d + c] += dout[n * d + c];
  }
}
