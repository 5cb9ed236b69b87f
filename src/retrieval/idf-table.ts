// The static query weights of inference-free SPLADE: one inverse document frequency per vocabulary token, counted over
// a corpus tokenized by the model's tokenizer, and written as OpenSearch's idf.json (token -> weight).

/**
 * The formula, BM25's (Lucene's) idf with its +1 inside the log so that no weight is negative:
 * idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5)), N documents, df(t) the documents holding token t at least once.
 */
export const IDF_FORMULA = 'idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))';

export function idfOf(documents: number, df: number): number {
  return Math.log(1 + (documents - df + 0.5) / (df + 0.5));
}

/** Document frequencies of every id over tokenized documents (an id counted once per document). */
export function documentFrequencyOf(
  documents: Iterable<ArrayLike<number>>,
  vocabSize: number,
): { df: Float64Array; documents: number } {
  const df = new Float64Array(vocabSize);
  const seenIn = new Int32Array(vocabSize).fill(-1);
  let count = 0;
  for (const ids of documents) {
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (id < 0 || id >= vocabSize) throw new RangeError(`token id ${id} is outside the vocabulary of ${vocabSize}`);
      if (seenIn[id] === count) continue;
      seenIn[id] = count;
      df[id]++;
    }
    count++;
  }
  return { df, documents: count };
}

/** Every id's weight (Float64, vocabulary size): idf of its document frequency; ids in no document get df = 0. */
export function idfWeights(df: Float64Array, documents: number): Float64Array {
  return df.map((count) => idfOf(documents, count));
}

/**
 * OpenSearch's idf.json: the weight of every vocabulary token by its text, special tokens left out (a query's special
 * tokens carry no weight); keys in id order.
 */
export function idfJson(
  weights: Float64Array,
  tokenOf: (id: number) => string | undefined,
  specialIds: ReadonlySet<number>,
): Record<string, number> {
  const table: Record<string, number> = {};
  weights.forEach((weight, id) => {
    const token = tokenOf(id);
    if (token !== undefined && !specialIds.has(id)) table[token] = weight;
  });
  return table;
}
