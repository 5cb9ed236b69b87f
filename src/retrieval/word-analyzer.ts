// Turns text into BM25 terms: lower-cased runs of letters and digits, optionally without English stop words.

/** Any function from text to terms can feed BM25: words, or a tokenizer's pieces. */
export type Analyzer = (text: string) => string[];

/** Lucene's default English stop words (the list Anserini's analyzer removes). */
const englishStopWords: ReadonlySet<string> = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(
    ' ',
  ),
);

/** Words are maximal runs of Unicode letters, marks and digits, lower-cased after NFKC normalisation. */
export function wordAnalyzer(options: { stopWords?: ReadonlySet<string> } = {}): Analyzer {
  const stopWords = options.stopWords ?? englishStopWords;
  return (text) =>
    (
      text
        .normalize('NFKC')
        .toLowerCase()
        .match(/[\p{L}\p{M}\p{N}]+/gu) ?? []
    ).filter((w) => !stopWords.has(w));
}

/** Adapts a tokenizer that returns vocabulary ids (e.g. without special tokens) into an Analyzer over id strings. */
export function idAnalyzer(encode: (text: string) => ArrayLike<number>): Analyzer {
  return (text) => Array.from(encode(text), String);
}
