// BM25 on a corpus small enough to check by hand, against the formula written out directly.
import { describe, expect, it } from 'vitest';
import { bm25Query, buildBm25 } from '../../../src/retrieval/bm25.ts';
import { IndexSearcher } from '../../../src/retrieval/search.ts';
import { idAnalyzer, wordAnalyzer } from '../../../src/retrieval/word-analyzer.ts';

const corpus = ['The cat sat.', 'A cat, a CAT and a dog!', 'Dogs bark', 'Nothing here'];

const split = (text: string) => text.split(' ');

/** BM25 written out from its definition, independently of the index (Lucene idf, k1 and b as given). */
function directBm25(docs: string[][], query: string[], k1: number, b: number): number[] {
  const N = docs.length;
  const avgdl = docs.reduce((s, d) => s + d.length, 0) / N;
  return docs.map((doc) => {
    let score = 0;
    for (const term of query) {
      const tf = doc.filter((t) => t === term).length;
      if (tf === 0) continue;
      const df = docs.filter((d) => d.includes(term)).length;
      const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
      score += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * doc.length) / avgdl));
    }
    return score;
  });
}

describe('BM25', () => {
  it('a worked example: corpus ["a b", "a c c", "d"], query "c", k1 = 0.9, b = 0.4', () => {
    const model = buildBm25(['a b', 'a c c', 'd'], split);
    const { docs, scores } = new IndexSearcher(model.index).search(bm25Query(model, 'c'), 10);
    // N = 3, df(c) = 1 -> idf = ln(1 + 2.5 / 1.5); doc 1 has tf = 2, length 3, average length 2
    const idf = Math.log(1 + 2.5 / 1.5);
    const expected = (idf * 2 * 1.9) / (2 + 0.9 * (1 - 0.4 + (0.4 * 3) / 2));
    expect(Array.from(docs)).toEqual([1]);
    expect(scores[0]).toBeCloseTo(expected, 6);
  });

  it.each([
    { k1: 0.9, b: 0.4, query: 'cat dog' },
    { k1: 1.2, b: 0.75, query: 'cat cat bark nothing' },
    { k1: 0.5, b: 0, query: 'dog unknownword' },
  ])('index scores equal the direct formula (k1=$k1, b=$b, "$query")', ({ k1, b, query }) => {
    const analyzer = wordAnalyzer();
    const model = buildBm25(corpus, analyzer, { k1, b });
    const expected = directBm25(corpus.map(analyzer), analyzer(query), k1, b);
    const { docs, scores } = new IndexSearcher(model.index).search(bm25Query(model, query), corpus.length);
    const got = new Array(corpus.length).fill(0);
    docs.forEach((d, r) => (got[d] = scores[r]));
    expected.forEach((score, d) => expect(got[d]).toBeCloseTo(score, 5));
    expect(expected.some((s) => s > 0)).toBe(true);
  });

  it('the word analyzer lower-cases, splits on non-letters and drops stop words', () => {
    expect(wordAnalyzer()('A cat, a CAT and a dog! Ünïcode 42x')).toEqual(['cat', 'cat', 'dog', 'ünïcode', '42x']);
    expect(wordAnalyzer({ stopWords: new Set() })('The end')).toEqual(['the', 'end']);
  });

  it('runs over tokenizer ids through idAnalyzer', () => {
    const toIds = (text: string) => Array.from(text, (c) => c.charCodeAt(0));
    const model = buildBm25(['abc', 'xyz'], idAnalyzer(toIds));
    const { docs } = new IndexSearcher(model.index).search(bm25Query(model, 'zz'), 2);
    expect(Array.from(docs)).toEqual([1]);
    expect(model.terms).toContain(String('z'.charCodeAt(0)));
  });
});
