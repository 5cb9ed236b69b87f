// BM25's terms in the published search: src/retrieval/word-analyzer.ts's analyzer, written again here because this
// folder imports nothing outside itself (tests/node/evaluation/publish-tokenizer.test.ts checks that both agree).

/** Maximal runs of Unicode letters, marks and digits, lower-cased after NFKC normalisation, without `stopWords`. */
export function analyzeWords(text: string, stopWords: ReadonlySet<string>): string[] {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{M}\p{N}]+/gu) ?? []
  ).filter((w) => !stopWords.has(w));
}
