// The published search itself, in a Web Worker or on the page (or in Node): reads manifest.json, fetches the query
// side once and each posting shard a query needs, scores term at a time exactly as splade-lab's IndexSearcher does
// (query terms in increasing order, one float64 accumulator per document, ties to the smaller document number), and
// says why each hit matched. Imports nothing outside this folder.
import {
  chunkOf,
  FORMAT_VERSION,
  SEARCH_FILE,
  MANIFEST_FORMAT,
  shardOfId,
  shardFirsts,
  numberedPath,
  type SearchIndex,
  type PublishedTokenizer,
  vocabularyShardPath,
  continuingShardPath,
  singleShardPath,
  type StoredDocument,
} from './manifest.ts';
import {
  continuingShardsOf,
  createQueryTokenizer,
  singleShardsOf,
  vocabularyShardsOf,
  type QueryTokenizer,
} from './query-tokenizer.ts';
import { decodeVocabularyShard, ShardedVocabulary } from './vocabulary-shards.ts';
import { readShard, termHash, type Shard, type TermPostings } from './shard-codec.ts';
import { analyzeWords } from './word-analyzer.ts';

/** Reads a file of the folder by its path relative to the folder. */
export type FetchBytes = (path: string) => Promise<Uint8Array>;

export type SystemName = 'splade' | 'bm25';

/** One shared term of a hit: the query's weight, the document's, their product; an expansion is a document term not among its own tokens. */
export interface WhyTerm {
  term: string;
  query: number;
  document: number;
  product: number;
  expansion: boolean;
}

export interface Hit {
  rank: number;
  /** The document's number (its line in the corpus, from 0). */
  doc: number;
  score: number;
  /** Filled for the first `details` hits. */
  id?: string;
  title?: string;
  url?: string;
  snippet?: string;
  why?: WhyTerm[];
}

export interface QueryTerm {
  term: string;
  weight: number;
  /** Documents holding it (as published: after any cap). */
  postings: number;
}

export interface SearchResult {
  system: SystemName;
  query: string;
  terms: QueryTerm[];
  hits: Hit[];
  /** Documents that share at least one term with the query. */
  matched: number;
  timeMs: number;
  /** Files fetched for this search (those fetched by an earlier one are not counted again). */
  fetched: { files: number; bytes: number };
}

export interface SearchOptions {
  /** Hits returned (default 10). */
  k?: number;
  system?: SystemName;
  /** Hits given their document, snippet and "why it matched" (default all k, at most 100). */
  details?: number;
}

interface ScoredTerm {
  key: number | string;
  order: number;
  term: string;
  weight: number;
  list: TermPostings | undefined;
}

/** The k best (document, score) pairs, best first: score descending, then document ascending (as src/retrieval/top-k.ts). */
function topK(touched: Uint32Array, count: number, scores: Float64Array, k: number): { docs: number[]; scores: number[] } {
  const heapDocs = new Uint32Array(k);
  const heapScores = new Float64Array(k);
  let size = 0;
  const after = (sa: number, da: number, sb: number, db: number) => sa < sb || (sa === sb && da > db);
  const worse = (i: number, j: number) => after(heapScores[i], heapDocs[i], heapScores[j], heapDocs[j]);
  const swap = (i: number, j: number) => {
    [heapDocs[i], heapDocs[j]] = [heapDocs[j], heapDocs[i]];
    [heapScores[i], heapScores[j]] = [heapScores[j], heapScores[i]];
  };
  for (let t = 0; t < count; t++) {
    const d = touched[t];
    const s = scores[d];
    if (size < k) {
      heapDocs[size] = d;
      heapScores[size] = s;
      for (let i = size++; i > 0 && worse(i, (i - 1) >> 1); i = (i - 1) >> 1) swap(i, (i - 1) >> 1);
    } else if (after(heapScores[0], heapDocs[0], s, d)) {
      heapDocs[0] = d;
      heapScores[0] = s;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        let w = i;
        if (l < size && worse(l, w)) w = l;
        if (l + 1 < size && worse(l + 1, w)) w = l + 1;
        if (w === i) break;
        swap(i, w);
        i = w;
      }
    }
  }
  const order = Array.from({ length: size }, (_, i) => i).sort(
    (a, b) => heapScores[b] - heapScores[a] || heapDocs[a] - heapDocs[b],
  );
  return { docs: order.map((i) => heapDocs[i]), scores: order.map((i) => heapScores[i]) };
}

function position(docs: Uint32Array, doc: number): number {
  let lo = 0;
  let hi = docs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (docs[mid] === doc) return mid;
    if (docs[mid] < doc) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

export class SearchEngine {
  private readonly files = new Map<string, Promise<Uint8Array>>();
  private readonly shards = new Map<string, Promise<Shard>>();
  private readonly chunks = new Map<number, Promise<StoredDocument[]>>();
  /** The vocabulary shards added so far (or being added), by path. */
  private readonly vocabularyShards = new Map<string, Promise<void>>();
  private querySide: Promise<{
    spec: PublishedTokenizer;
    tokenizer: QueryTokenizer;
    vocabulary: ShardedVocabulary;
  }> | null = null;
  private readonly scores: Float64Array; // (numDocs,)
  private readonly stamps: Uint32Array; // (numDocs,) which search last touched each accumulator
  private readonly touched: Uint32Array; // (numDocs,)
  private stamp = 0;
  private fetchedFiles = 0;
  private fetchedBytes = 0;
  /** The first token id of each SPLADE shard. */
  private readonly shardFirsts: number[];

  private constructor(
    readonly manifest: SearchIndex,
    private readonly fetchBytes: FetchBytes,
  ) {
    this.shardFirsts = shardFirsts(manifest.splade.firstSteps);
    const n = manifest.corpus.documents;
    this.scores = new Float64Array(n);
    this.stamps = new Uint32Array(n);
    this.touched = new Uint32Array(n);
  }

  /** Reads search.json through `fetchBytes` and checks that this runtime reads its format. */
  static async open(fetchBytes: FetchBytes): Promise<SearchEngine> {
    const bytes = await fetchBytes(SEARCH_FILE);
    let manifest: SearchIndex;
    try {
      manifest = JSON.parse(new TextDecoder().decode(bytes)) as SearchIndex;
    } catch (error) {
      throw new Error(`${SEARCH_FILE} is not JSON (${(error as Error).message})`, { cause: error });
    }
    if (manifest?.format !== MANIFEST_FORMAT) throw new Error(`${SEARCH_FILE} does not describe a splade-lab static search`);
    if (manifest.version !== FORMAT_VERSION)
      throw new Error(
        `${SEARCH_FILE} is format version ${manifest.version}; this splade-search.js reads version ${FORMAT_VERSION}: publish the folder again`,
      );
    const engine = new SearchEngine(manifest, fetchBytes);
    engine.fetchedFiles = 1;
    engine.fetchedBytes = bytes.length;
    return engine;
  }

  private file(path: string): Promise<Uint8Array> {
    let pending = this.files.get(path);
    if (!pending) {
      pending = this.fetchBytes(path).then((bytes) => {
        this.fetchedFiles++;
        this.fetchedBytes += bytes.length;
        return bytes;
      });
      this.files.set(path, pending);
      pending.catch(() => this.files.delete(path)); // a failed fetch is tried again by the next search
    }
    return pending;
  }

  private shard(path: string): Promise<Shard> {
    let pending = this.shards.get(path);
    if (!pending) {
      pending = this.file(path).then((bytes) => readShard(bytes, path));
      this.shards.set(path, pending);
      pending.catch(() => this.shards.delete(path));
    }
    return pending;
  }

  /**
   * The query side a text needs: the tokenizer's settings and ASCII one-code-point pieces (once), and the shards its
   * words start in, continue in and have other code points of (each once); the tokenizer reads only what is fetched.
   */
  private async loadQuerySide(text: string): Promise<{ tokenizer: QueryTokenizer; vocabulary: ShardedVocabulary }> {
    if (!this.querySide) {
      this.querySide = this.file(this.manifest.splade.tokenizer).then(async (bytes) => {
        const spec = JSON.parse(new TextDecoder().decode(bytes)) as PublishedTokenizer;
        const vocabulary = new ShardedVocabulary();
        const { singles, unk, folder } = spec.vocabulary;
        if (unk) vocabulary.add({ pieces: [spec.unkToken], ids: [unk.id], weights: new Map([[unk.id, unk.weight]]) });
        if (singles) await this.addVocabularyShard(vocabulary, `${folder}single.txt`);
        return { spec, vocabulary, tokenizer: createQueryTokenizer(spec, vocabulary) };
      });
      this.querySide.catch(() => {
        // tried afresh by the next search: a new vocabulary, every shard added to it again
        this.querySide = null;
        this.vocabularyShards.clear();
      });
    }
    const side = await this.querySide;
    const { vocabulary } = side.spec;
    const prefix = side.spec.continuingSubwordPrefix;
    await Promise.all(
      [
        ...vocabularyShardsOf(side.spec, text).map((key) => [vocabularyShardPath(vocabulary, key), ''] as const),
        ...continuingShardsOf(side.spec, text).map((key) => [continuingShardPath(vocabulary, key), prefix] as const),
        ...singleShardsOf(side.spec, text).map((key) => [singleShardPath(vocabulary, key), ''] as const),
      ].flatMap(([path, piecePrefix]) => (path ? [this.addVocabularyShard(side.vocabulary, path, piecePrefix)] : [])),
    );
    return side;
  }

  /**
   * Fetches, decodes and adds a vocabulary shard, once: a warm query whose shards are all in waits for nothing, and
   * one whose shard another query is fetching waits for that (a failed fetch is tried again by the next search).
   */
  private addVocabularyShard(vocabulary: ShardedVocabulary, path: string, prefix = ''): Promise<void> {
    let pending = this.vocabularyShards.get(path);
    if (!pending) {
      pending = this.file(path).then((bytes) =>
        vocabulary.add(decodeVocabularyShard(new TextDecoder().decode(bytes), path, prefix)),
      );
      this.vocabularyShards.set(path, pending);
      pending.catch(() => this.vocabularyShards.delete(path));
    }
    return pending;
  }

  /** The query's terms with their weights, in the order their products are summed, and their posting lists. */
  private async queryTerms(text: string, system: SystemName): Promise<ScoredTerm[]> {
    if (system === 'bm25') {
      const bm25 = this.manifest.bm25;
      if (!bm25) throw new Error('this folder was published without BM25');
      const counts = new Map<string, number>();
      for (const word of analyzeWords(text, new Set(bm25.stopWords))) counts.set(word, (counts.get(word) ?? 0) + 1);
      const terms = await Promise.all(
        [...counts].map(async ([word, count]) => {
          const shard = await this.shard(numberedPath('bm25', termHash(word) % bm25.shards, 'bin'));
          const list = shard.postings(word);
          return { key: word, order: list?.order ?? -1, term: word, weight: count, list };
        }),
      );
      return terms.filter((t) => t.list).sort((a, b) => a.order - b.order);
    }
    const { tokenizer, vocabulary } = await this.loadQuerySide(text);
    const ids = [...new Set(tokenizer.ids(text))].filter((id) => id >= 0 && vocabulary.weight(id) !== 0);
    ids.sort((a, b) => a - b);
    return Promise.all(
      ids.map(async (id) => {
        const at = shardOfId(this.shardFirsts, id);
        const list = at < 0 ? undefined : (await this.shard(numberedPath('splade', at, 'bin'))).postings(id);
        return { key: id, order: id, term: tokenizer.token(id), weight: vocabulary.weight(id), list };
      }),
    );
  }

  private chunk(index: number): Promise<StoredDocument[]> {
    let pending = this.chunks.get(index);
    if (!pending) {
      const path = numberedPath('docs', index, 'json');
      pending = this.file(path).then((bytes) => JSON.parse(new TextDecoder().decode(bytes)) as StoredDocument[]);
      this.chunks.set(index, pending);
      pending.catch(() => this.chunks.delete(index));
    }
    return pending;
  }

  async search(text: string, options: SearchOptions = {}): Promise<SearchResult> {
    const start = performance.now();
    const [files0, bytes0] = [this.fetchedFiles, this.fetchedBytes];
    const system = options.system ?? 'splade';
    const k = Math.max(1, Math.floor(options.k ?? 10));
    const details = Math.min(k, Math.max(0, Math.floor(options.details ?? Math.min(k, 100))));
    const terms = await this.queryTerms(text, system);
    if (++this.stamp === 0xffffffff) {
      this.stamps.fill(0);
      this.stamp = 1;
    }
    let count = 0;
    for (const { weight, list } of terms) {
      if (!list) continue;
      const { docs, weights } = list;
      for (let p = 0; p < docs.length; p++) {
        const d = docs[p];
        if (this.stamps[d] !== this.stamp) {
          this.stamps[d] = this.stamp;
          this.scores[d] = 0;
          this.touched[count++] = d;
        }
        this.scores[d] += weight * weights[p];
      }
    }
    const best = topK(this.touched, count, this.scores, k);
    const hits: Hit[] = best.docs.map((doc, r) => ({ rank: r + 1, doc, score: best.scores[r] }));
    const chunkSize = this.manifest.documents.chunkSize;
    const shown = hits.slice(0, details);
    const chunks = await Promise.all(
      [...new Set(shown.map((h) => chunkOf(h.doc, chunkSize)))].map((c) => this.chunk(c).then((docs) => [c, docs] as const)),
    );
    const stored = new Map(chunks);
    for (const hit of shown) {
      const [id, title, url, snippet] = stored.get(chunkOf(hit.doc, chunkSize))![hit.doc % chunkSize];
      Object.assign(hit, { id, title, url, snippet, why: this.why(hit.doc, terms) });
    }
    return {
      system,
      query: text,
      terms: terms.map((t) => ({ term: t.term, weight: t.weight, postings: t.list?.docs.length ?? 0 })),
      hits,
      matched: count,
      timeMs: performance.now() - start,
      fetched: { files: this.fetchedFiles - files0, bytes: this.fetchedBytes - bytes0 },
    };
  }

  /** The terms a document shares with the query, largest product first. */
  private why(doc: number, terms: readonly ScoredTerm[]): WhyTerm[] {
    const shared: WhyTerm[] = [];
    for (const { term, weight, list } of terms) {
      if (!list) continue;
      const p = position(list.docs, doc);
      if (p < 0) continue;
      const w = list.weights[p];
      shared.push({ term, query: weight, document: w, product: weight * w, expansion: list.own ? list.own[p] === 0 : false });
    }
    return shared.sort((a, b) => b.product - a.product);
  }
}

/** A FetchBytes over HTTP(S) relative to the folder's URL `base`; a failed response names the file and status. */
export function httpFetchBytes(base: string): FetchBytes {
  return async (path) => {
    const url = new URL(path, base);
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url.href}: ${response.status} ${response.statusText}`);
    return new Uint8Array(await response.arrayBuffer());
  };
}

/** The shard a BM25 term lives in (exported for the publisher's tests). */
export function bm25ShardOf(term: string, shards: number): number {
  return termHash(term) % shards;
}
