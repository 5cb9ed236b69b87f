// BM25 on the sparse-index machinery: documents become vectors of BM25 term weights, queries vectors of term counts.
import { buildInvertedIndex, type InvertedIndex } from './inverted-index.ts';
import { sparseFromEntries, type SparseVector } from '../util/sparse-vector.ts';
import type { Analyzer } from './word-analyzer.ts';

export interface Bm25Params {
  k1: number;
  b: number;
}

/** Anserini's BEIR defaults. */
const defaultBm25Params: Bm25Params = { k1: 0.9, b: 0.4 };

export interface Bm25Model {
  params: Bm25Params;
  analyzer: Analyzer;
  /** Term -> dimension id of the index. */
  termIds: Map<string, number>;
  /** Dimension id -> term. */
  terms: string[];
  documentFrequency: Uint32Array; // (V,)
  averageDocumentLength: number;
  index: InvertedIndex;
}

/** Lucene's BM25 idf, always positive: ln(1 + (N - df + 0.5) / (df + 0.5)). */
function bm25Idf(numDocs: number, documentFrequency: number): number {
  return Math.log(1 + (numDocs - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/** One term's contribution for a document: idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / averageLength)). */
function bm25TermWeight(tf: number, idf: number, docLength: number, averageLength: number, { k1, b }: Bm25Params): number {
  return (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * docLength) / averageLength));
}

function countTerms(terms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

/** Analyses every document once, then stores each (term, document) BM25 weight in an inverted index. */
export function buildBm25(
  documents: readonly string[],
  analyzer: Analyzer,
  params: Bm25Params = defaultBm25Params,
  onProgress?: (done: number, total: number) => void,
): Bm25Model {
  const termIds = new Map<string, number>();
  const terms: string[] = [];
  const docCounts: Map<number, number>[] = [];
  const docLengths = new Float64Array(documents.length);
  const df: number[] = [];
  documents.forEach((text, d) => {
    const words = analyzer(text);
    docLengths[d] = words.length;
    const counts = new Map<number, number>();
    for (const [term, tf] of countTerms(words)) {
      let id = termIds.get(term);
      if (id === undefined) {
        termIds.set(term, (id = terms.length));
        terms.push(term);
        df.push(0);
      }
      df[id]++;
      counts.set(id, tf);
    }
    docCounts.push(counts);
    onProgress?.(d + 1, documents.length);
  });
  const totalLength = docLengths.reduce((s, n) => s + n, 0);
  const averageDocumentLength = documents.length ? totalLength / documents.length : 0;
  const idf = df.map((n) => bm25Idf(documents.length, n));
  const vectors: SparseVector[] = docCounts.map((counts, d) =>
    sparseFromEntries(
      [...counts].map(([id, tf]) => [id, bm25TermWeight(tf, idf[id], docLengths[d], averageDocumentLength, params)] as const),
    ),
  );
  const index = buildInvertedIndex(vectors, terms.length);
  return { params, analyzer, termIds, terms, documentFrequency: Uint32Array.from(df), averageDocumentLength, index };
}

/** A query as term counts over the model's dimensions; terms never seen in the corpus are dropped. */
export function bm25Query(model: Bm25Model, text: string): SparseVector {
  const entries: [number, number][] = [];
  for (const [term, count] of countTerms(model.analyzer(text))) {
    const id = model.termIds.get(term);
    if (id !== undefined) entries.push([id, count]);
  }
  return sparseFromEntries(entries);
}
