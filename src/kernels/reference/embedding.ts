// Float64 reference of the embedding family (src/kernels/embedding.ts): table lookups and their scatter-add backward.

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
