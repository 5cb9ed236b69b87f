// The static query weights of inference-free SPLADE: one inverse document frequency per vocabulary token, counted over
// a corpus tokenized by the model's tokenizer (a token the corpus never holds weighs 0), and written as OpenSearch's
// idf.json (token -> weight).

/**
 * The formula, BM25's (Lucene's) idf with its +1 inside the log so that no weight is negative:
 * idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5)), N documents, df(t) the documents holding token t at least once.
 */
export const IDF_FORMULA = 'idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))';

/**
 * What a token in no document weighs: 0, as OpenSearch's get_idf.py leaves such tokens out of idf.json and
 * sentence-transformers' SparseStaticEmbedding.from_json reads a missing token as 0 (the formula would give it
 * ln(2N + 2), the largest weight of all, so that any query word the corpus lacks would outweigh every word it holds).
 */
export const UNSEEN_TOKEN_WEIGHT = 0;

/** Documents below which an IDF table is noisy (a warning, never a refusal). */
export const IDF_MIN_DOCUMENTS = 1000;

/** The warning for an IDF table over fewer than IDF_MIN_DOCUMENTS documents (`option` names the corpus), or undefined. */
export function smallIdfWarning(documents: number, option = '--idf-from'): string | undefined {
  return documents < IDF_MIN_DOCUMENTS
    ? `IDF over ${documents} document${documents === 1 ? '' : 's'} is noisy; pass ${option} <corpus> with at least ` +
        `${IDF_MIN_DOCUMENTS.toLocaleString('en-US')} documents`
    : undefined;
}

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

/** Every id's weight (Float64, vocabulary size): idf of its document frequency; ids in no document weigh 0. */
export function idfWeights(df: Float64Array, documents: number): Float64Array {
  return df.map((count) => (count > 0 ? idfOf(documents, count) : UNSEEN_TOKEN_WEIGHT));
}

/**
 * OpenSearch's idf.json: the weight of every vocabulary token by its text, special tokens left out (a query's special
 * tokens carry no weight); keys in id order. Tokens in no document are written as 0 rather than left out, so that
 * every reader takes them as 0 (ml-commons' SparseTokenizerModel would read a missing token as 1.0).
 */
export function idfJson(
  weights: Float64Array,
  tokenOf: (id: number) => string | undefined,
  specialIds: ReadonlySet<number>,
): Record<string, number> {
  const table: Record<string, number> = Object.create(null);
  weights.forEach((weight, id) => {
    const token = tokenOf(id);
    if (token !== undefined && !specialIds.has(id)) table[token] = weight;
  });
  return table;
}
