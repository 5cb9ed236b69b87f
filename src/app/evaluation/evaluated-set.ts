// An evaluated set kept in memory for looking inside it: a typed query's top documents under SPLADE and BM25, each
// score split into the terms both sides share (products sum to the score, in the index's own order), a document's
// sparse vector, and the queries where SPLADE and BM25 differ most with the terms that made the difference.
import type { TextTokenizer } from '../../io/tokenizer/tokenizer.ts';
import type { TextAudit } from '../../contract/model/expansion-audit.ts';
import { auditPair, type PairAudit } from '../../contract/model/pair-audit.ts';
import { bm25Query, type Bm25Model } from '../../retrieval/bm25.ts';
import type { RetrievalDataset } from '../../contract/evaluation/dataset.ts';
import type { InvertedIndex } from '../../retrieval/inverted-index.ts';
import { IndexSearcher } from '../../retrieval/search.ts';
import type { SparseVector } from '../../util/sparse-vector.ts';
import { formatRun } from '../../io/beir/trec.ts';
import type { Run } from '../../contract/evaluation/run-types.ts';
import { exportVectors, type ExportFormat } from './export-vectors.ts';
import type { ExportFile } from '../../contract/experiments/runs.ts';
import { summarizeSparse } from '../model/sparse-summary.ts';
import { isSpecialPiece } from '../model/piece-kinds.ts';
import {
  checkIndexEstimateRequest,
  type IndexEstimate,
  type IndexEstimateRequest,
} from '../../contract/evaluation/index-stats.ts';
import { EVAL_DEFAULTS } from '../../contract/limits.ts';
import { measureIndex } from '../../retrieval/index-measures.ts';
import {
  DocumentView,
  QueryDifference,
  SearchHit,
  SearchResult,
  TermContribution,
} from '../../contract/evaluation/search-results.ts';

const SNIPPET = 280;

const SHOWN_TERMS = 12;

/** The document's weight in dimension j (postings are in document order: binary search), or 0. */
function postingWeight(index: InvertedIndex, j: number, doc: number): number {
  if (j >= index.dimension) return 0;
  let lo = index.offsets[j];
  let hi = index.offsets[j + 1];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (index.docs[mid] < doc) lo = mid + 1;
    else hi = mid;
  }
  return lo < index.offsets[j + 1] && index.docs[lo] === doc ? index.weights[lo] : 0;
}

/** The shared dimensions of a query and a document, in the order the searcher sums them; sorted by product. */
function contributions(
  query: SparseVector,
  index: InvertedIndex,
  doc: number,
  name: (id: number) => string,
  own: Set<number> | null,
): TermContribution[] {
  const parts: Omit<TermContribution, 'share'>[] = [];
  let score = 0;
  for (let i = 0; i < query.indices.length; i++) {
    const j = query.indices[i];
    const document = postingWeight(index, j, doc);
    if (document === 0) continue;
    const product = query.values[i] * document;
    score += product;
    parts.push({ term: name(j), query: query.values[i], document, product, expansion: own !== null && !own.has(j) });
  }
  return parts.map((p) => ({ ...p, share: score > 0 ? p.product / score : 0 })).sort((a, b) => b.product - a.product);
}

export interface EvaluatedSetParts {
  dataset: RetrievalDataset;
  tokenizer: TextTokenizer;
  vocab: readonly string[];
  spladeIndex: InvertedIndex;
  docVectors: readonly SparseVector[];
  queryVectors: readonly SparseVector[];
  bm25: Bm25Model;
  /** Encodes a typed query exactly as the set's queries were (same k, length and pruning). */
  encodeQuery: (text: string) => Promise<SparseVector>;
  /** The model is inference-free: encodeQuery looks its tokens up in a static table. */
  staticQueries: boolean;
  /** Which input token caused each term of a document's vector, encoded as the set's documents were. */
  auditDocument: (text: string) => Promise<TextAudit>;
  /** The same of a query's vector, encoded as the set's queries were (a static table's: its own tokens). */
  auditQuery: (text: string) => Promise<TextAudit>;
  /** Per-query nDCG@10 of each system (trec_eval's per-query rows). */
  spladeNdcg: Map<string, number>;
  bm25Ndcg: Map<string, number>;
  /** SPLADE's ranking of every query, for a TREC run file. */
  run: Run;
  /** How the vectors were encoded (`publish` reuses them under the same settings). */
  encoding: { k: number; documentLength: number; prune: number };
}

export class EvaluatedSet {
  private readonly queryIdByText = new Map<string, string>();
  private readonly docNumber = new Map<string, number>();

  constructor(private readonly parts: EvaluatedSetParts) {
    parts.dataset.queryIds.forEach((id, i) => this.queryIdByText.set(parts.dataset.queryTexts[i].trim(), id));
    parts.dataset.corpusIds.forEach((id, d) => this.docNumber.set(id, d));
  }

  get name(): string {
    return this.parts.dataset.name;
  }

  /** The document vectors for a search engine (Anserini, Qdrant, rank_features JSONL), or SPLADE's TREC run. */
  exportFile(what: ExportFormat | 'trec'): ExportFile {
    const stem = this.name.replace(/[^\w.-]+/g, '_');
    if (what === 'trec')
      return {
        name: `${stem}.splade.trec`,
        type: 'text/plain',
        bytes: new TextEncoder().encode(formatRun(this.parts.run, 'splade-lab')),
      };
    const { dataset, docVectors, vocab } = this.parts;
    const records = dataset.corpusIds.map((id, d) => ({ id, text: dataset.corpusTexts[d] }));
    const { lines } = exportVectors(what, records, docVectors, vocab);
    return { name: `${stem}.${what}.jsonl`, type: 'application/jsonl', bytes: new TextEncoder().encode(lines.join('\n') + '\n') };
  }

  /** The set and its kept vectors, as `publish` reads a corpus it need not encode again. */
  vectorsForPublishing(): Pick<EvaluatedSetParts, 'dataset' | 'docVectors' | 'queryVectors' | 'encoding'> {
    const { dataset, docVectors, queryVectors, encoding } = this.parts;
    return { dataset, docVectors, queryVectors, encoding };
  }

  /** The index and latency estimate of the kept vectors, as `index-stats` measures it, without encoding again. */
  indexEstimate(request: IndexEstimateRequest, onPoint?: (done: number, total: number) => void): IndexEstimate {
    const asked = checkIndexEstimateRequest(request);
    const { dataset, vocab, queryVectors, docVectors } = this.parts;
    const vectors = { queries: queryVectors, documents: docVectors };
    const measures = measureIndex(vectors, dataset, asked, { vocab, topK: EVAL_DEFAULTS.topK, onPoint });
    const { specialIds } = this.parts.tokenizer;
    const longest = measures.postingLengths.longest.map((l) => ({ ...l, special: isSpecialPiece(l.term, l.id, specialIds) }));
    return { set: this.name, request: asked, ...measures, postingLengths: { ...measures.postingLengths, longest } };
  }

  /** Every document's text, in the set's order (title and text joined, as encoded). */
  documentTexts(): readonly string[] {
    return this.parts.dataset.corpusTexts;
  }

  /** The set's judged queries (id and text), for the search box's suggestions. */
  queries(): { id: string; text: string }[] {
    const { queryIds, queryTexts } = this.parts.dataset;
    return queryIds.map((id, i) => ({ id, text: queryTexts[i] }));
  }

  /** The top `k` documents of a typed query under SPLADE and BM25, each score decomposed into shared terms. */
  async search(text: string, k = 10): Promise<SearchResult> {
    const { spladeIndex, bm25 } = this.parts;
    const queryId = this.queryIdByText.get(text.trim()) ?? null;
    const start = performance.now();
    const q = await this.parts.encodeQuery(text);
    const encodeMs = performance.now() - start;
    const own = new Set(this.parts.tokenizer.encode(text, { addSpecialTokens: false }).ids);
    const bq = bm25Query(bm25, text);
    const name = (j: number) => this.parts.vocab[j] ?? `[id ${j}]`;
    const terms = Array.from(q.indices, (j, i) => ({ term: name(j), weight: q.values[i] })).sort((a, b) => b.weight - a.weight);
    return {
      query: text,
      queryId,
      queryVector: { terms, staticTable: this.parts.staticQueries, encodeMs },
      splade: this.hits(q, spladeIndex, k, queryId, (j) => this.parts.vocab[j] ?? `[id ${j}]`, own),
      bm25: this.hits(bq, bm25.index, k, queryId, (j) => bm25.terms[j], null),
    };
  }

  /** A document's text and its SPLADE vector (top terms, expansions marked). */
  document(docId: string, topTerms = 40): DocumentView {
    const d = this.docNumber.get(docId);
    if (d === undefined) throw new Error(`${this.name} has no document "${docId}"`);
    const text = this.parts.dataset.corpusTexts[d];
    return { docId, text, vector: summarizeSparse(text, this.parts.docVectors[d], this.parts.tokenizer, topTerms) };
  }

  /** Which input token caused each term of a query and of a document, as the set encoded them, and their shared terms. */
  async auditPair(query: string, docId: string): Promise<PairAudit> {
    const d = this.docNumber.get(docId);
    if (d === undefined) throw new Error(`${this.name} has no document "${docId}"`);
    const queryAudit = await this.parts.auditQuery(query);
    return auditPair(queryAudit, await this.parts.auditDocument(this.parts.dataset.corpusTexts[d]));
  }

  /** The `n` queries where SPLADE beats BM25 most, and the `n` where BM25 beats SPLADE most (nDCG@10). */
  differences(n = 5): { spladeBetter: QueryDifference[]; bm25Better: QueryDifference[] } {
    const { dataset, spladeNdcg, bm25Ndcg } = this.parts;
    const gaps = dataset.queryIds
      .map((id, q) => ({ id, q, gap: (spladeNdcg.get(id) ?? 0) - (bm25Ndcg.get(id) ?? 0) }))
      .filter((g) => g.gap !== 0);
    const explain = (g: (typeof gaps)[number], better: 'splade' | 'bm25') => this.difference(g.id, g.q, better);
    return {
      spladeBetter: gaps
        .filter((g) => g.gap > 0)
        .sort((a, b) => b.gap - a.gap)
        .slice(0, n)
        .map((g) => explain(g, 'splade')),
      bm25Better: gaps
        .filter((g) => g.gap < 0)
        .sort((a, b) => a.gap - b.gap)
        .slice(0, n)
        .map((g) => explain(g, 'bm25')),
    };
  }

  private difference(queryId: string, q: number, better: 'splade' | 'bm25'): QueryDifference {
    const { dataset, spladeIndex, bm25, queryVectors, spladeNdcg, bm25Ndcg } = this.parts;
    const text = dataset.queryTexts[q];
    const bq = bm25Query(bm25, text);
    const judged = [...(dataset.qrels.get(queryId) ?? [])]
      .filter(([, grade]) => grade > 0)
      .map(([id]) => this.docNumber.get(id))
      .filter((d): d is number => d !== undefined);
    const rankOf = (ranking: Uint32Array, doc: number) => {
      const at = ranking.indexOf(doc);
      return at < 0 ? null : at + 1;
    };
    const spladeRanking = new IndexSearcher(spladeIndex).search(queryVectors[q], 1000).docs;
    const bm25Ranking = new IndexSearcher(bm25.index).search(bq, 1000).docs;
    const winner = better === 'splade' ? spladeRanking : bm25Ranking;
    const doc =
      judged.map((d) => ({ d, rank: rankOf(winner, d) ?? Infinity })).sort((a, b) => a.rank - b.rank)[0]?.d ?? judged[0];
    const own = new Set(this.parts.tokenizer.encode(text, { addSpecialTokens: false }).ids);
    return {
      queryId,
      query: text,
      spladeNdcg10: spladeNdcg.get(queryId) ?? 0,
      bm25Ndcg10: bm25Ndcg.get(queryId) ?? 0,
      docId: dataset.corpusIds[doc],
      spladeRank: rankOf(spladeRanking, doc),
      bm25Rank: rankOf(bm25Ranking, doc),
      spladeTerms: contributions(queryVectors[q], spladeIndex, doc, (j) => this.parts.vocab[j] ?? `[id ${j}]`, own).slice(
        0,
        SHOWN_TERMS,
      ),
      bm25Terms: contributions(bq, bm25.index, doc, (j) => bm25.terms[j], null).slice(0, SHOWN_TERMS),
    };
  }

  private hits(
    query: SparseVector,
    index: InvertedIndex,
    k: number,
    queryId: string | null,
    name: (id: number) => string,
    own: Set<number> | null,
  ): SearchHit[] {
    const { dataset } = this.parts;
    const judged = queryId === null ? null : dataset.qrels.get(queryId);
    const ranking = new IndexSearcher(index).search(query, k);
    return Array.from(ranking.docs, (d, r) => {
      const docId = dataset.corpusIds[d];
      const text = dataset.corpusTexts[d];
      return {
        rank: r + 1,
        docId,
        text: text.length > SNIPPET ? `${text.slice(0, SNIPPET)}…` : text,
        score: ranking.scores[r],
        relevant: judged ? (judged.get(docId) ?? 0) > 0 : null,
        terms: contributions(query, index, d, name, own),
      };
    });
  }
}
