// `publish` as a use case: an inference-free model's document vectors of a corpus, made into the files of a static
// search folder (docs/publish.md): posting shards (SPLADE's and BM25's), a document store in chunks, the query side
// (tokenizer and static weight table), the runtime and a page, and manifest.json over them all, last. Where the corpus
// comes with judged queries, the published search is run on them and compared with exact float retrieval.
import { bm25Query, buildBm25, type Bm25Model } from '../../retrieval/bm25.ts';
import { buildInvertedIndex, type InvertedIndex } from '../../retrieval/inverted-index.ts';
import { IndexSearcher } from '../../retrieval/search.ts';
import { bm25Shards, spladeShards, type ShardFile } from '../../retrieval/static-postings.ts';
import { wordAnalyzer } from '../../retrieval/word-analyzer.ts';
import { evaluateRun } from '../../retrieval/metrics/evaluate-run.ts';
import { SearchEngine, type SystemName } from '../../publish-runtime/engine.ts';
import { WORKER_FILE } from '../../publish-runtime/static-search.ts';
import {
  FORMAT_VERSION,
  MANIFEST_FILE,
  SEARCH_FILE,
  presentBits,
  type ManifestBody,
  searchIndexOf,
  numberedPath,
  MANIFEST_FORMAT,
  type FileEntry,
  type Manifest,
  type PublishedTokenizer,
  type QueryTokenizerSpec,
  type StoredDocument,
} from '../../publish-runtime/manifest.ts';
import { WEIGHT_KINDS, type WeightKind } from '../../publish-runtime/shard-codec.ts';
import { PUBLISHED_WEIGHT_KINDS, PUBLISH_SETTINGS, type PublishSettings } from '../../contract/evaluation/published-search.ts';
import { encodeVocabularyShards } from '../../publish-runtime/vocabulary-shards.ts';

export { WEIGHT_KINDS, type WeightKind } from '../../publish-runtime/shard-codec.ts';
import type { Qrels, Run } from '../../contract/evaluation/run-types.ts';
import type { SparseVector } from '../../util/sparse-vector.ts';
import type { EncodeProgress, ModelSession } from '../model/model-session.ts';
import { checkQueryTokenizer, queryTokenizerSpec } from './publish-query-side.ts';

/** BM25's parameters in the bundle: `splade-lab bm25`'s (Anserini's BEIR defaults). */
const BM25_PARAMS = { k1: 0.9, b: 0.4 };
/** Lucene's English stop words, as src/retrieval/word-analyzer.ts drops them. */
const STOP_WORDS =
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(
    ' ',
  );

export interface PublishRecord {
  id: string;
  /** The text the model encodes (title and text joined, as eval reads a BEIR corpus). */
  text: string;
  /** Shown: the title, a link, and the snippet's source (the text field alone). */
  title: string;
  url: string;
  body: string;
}

export interface JudgedQueries {
  ids: string[];
  texts: string[];
  qrels: Qrels;
}

export interface PublishCorpus {
  name: string;
  /** "sha256:<hex>" of the corpus file. */
  fingerprint: string;
  records: PublishRecord[];
  /** queries.jsonl and qrels of a BEIR folder, to measure what the published search keeps. */
  judged?: JudgedQueries;
}

/** What `splade-lab publish` does unless told otherwise (its option table reads these). */
export const PUBLISH_DEFAULTS = {
  prune: 0,
  cap: PUBLISH_SETTINGS.cap,
  weights: PUBLISH_SETTINGS.weights,
  bm25: PUBLISH_SETTINGS.bm25,
  shardBytes: 1024 * PUBLISH_SETTINGS.shardKb,
  chunkSize: PUBLISH_SETTINGS.chunk,
  snippetCharacters: 240,
} as const satisfies Partial<PublishOptions>;

// the contract's list of weight kinds is the runtime's, both ways
const SAME_WEIGHT_KINDS: [readonly WeightKind[], readonly PublishSettings['weights'][]] = [PUBLISHED_WEIGHT_KINDS, WEIGHT_KINDS];
void SAME_WEIGHT_KINDS;

/** The CLI's options from the page's settings: its other choices are the CLI's defaults. */
export function publishOptionsFrom(
  settings: PublishSettings,
): Pick<PublishOptions, 'cap' | 'weights' | 'bm25' | 'shardBytes' | 'chunkSize'> {
  return {
    cap: settings.cap,
    weights: settings.weights,
    bm25: settings.bm25,
    shardBytes: 1024 * settings.shardKb,
    chunkSize: settings.chunk,
  };
}

export interface PublishOptions {
  k: number;
  documentLength: number;
  prune: number;
  cap: number | null;
  weights: WeightKind;
  bm25: boolean;
  shardBytes: number;
  chunkSize: number;
  snippetCharacters: number;
  title: string;
  /** The model's name as the folder shows it (default the session's: a Hub id, or the path it was opened from). */
  modelName?: string;
}

export interface SiteFile {
  path: string;
  bytes: Uint8Array;
}

/** nDCG@10 of the published search (its stored weights, caps) against exact float retrieval of the same vectors. */
export interface PublishQuality {
  system: SystemName;
  queries: number;
  exact: number;
  published: number;
  /** Largest difference of a score between the two, over each query's top 1000 (0 for lossless weights, no cap). */
  largestScoreDifference: number;
  /** Queries whose top 1000 documents differ. */
  rankingsDiffering: number;
}

export interface PublishedSite {
  files: SiteFile[];
  manifest: Manifest;
  manifestBytes: Uint8Array;
  quality: PublishQuality[];
  tokenizerTexts: number;
}

/** Where the runtime comes from (bundled from src/publish-runtime by the Node adapter). */
export interface PublishRuntime {
  /** splade-search.js: the page's API and element. */
  script: Uint8Array;
  /** splade-search-worker.js: the engine, started as the page's worker. */
  worker: Uint8Array;
}

export class NotInferenceFreeError extends Error {
  override name = 'NotInferenceFreeError';
}

const encoder = new TextEncoder();

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The first `max` characters of the text, white space collapsed, cut at a word boundary, with an ellipsis when cut. */
export function snippetOf(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  let cut = flat.slice(0, max);
  const space = cut.lastIndexOf(' ');
  if (space > max * 0.6) cut = cut.slice(0, space);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1); // never half a surrogate pair
  return `${cut}…`;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** index.html: the element over the folder it sits in, every URL relative, so it works under any sub-path (no icon: no request for /favicon.ico leaves the folder). */
export function indexPage(title: string, documents: number, model: string): string {
  const t = escapeHtml(title);
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <link rel="icon" href="data:," />
    <title>${t}</title>
    <style>
      body { font-family: system-ui, sans-serif; line-height: 1.45; max-width: 48rem; margin: 2rem auto; padding: 0 1rem; }
    </style>
    <script type="module" src="./splade-search.js"></script>
  </head>
  <body>
    <main>
      <h1>${t}</h1>
      <p>${documents} documents, searched in your browser with ${escapeHtml(model)}: learned sparse retrieval with no server.</p>
      <splade-search label="Search ${t}"></splade-search>
    </main>
  </body>
</html>
`;
}

function documentChunks(records: readonly PublishRecord[], options: PublishOptions): SiteFile[] {
  const files: SiteFile[] = [];
  for (let start = 0, c = 0; start < records.length; start += options.chunkSize, c++) {
    const stored: StoredDocument[] = records
      .slice(start, start + options.chunkSize)
      .map((r) => [r.id, r.title, r.url, snippetOf(r.body, options.snippetCharacters)]);
    files.push({ path: numberedPath('docs', c, 'json'), bytes: encoder.encode(JSON.stringify(stored)) });
  }
  return files;
}

/** The unknown token's id and query weight, or null when the vocabulary has no such piece. */
function unkOf(vocab: readonly (string | null)[], unk: string, table: Float32Array): { id: number; weight: number } | null {
  const id = vocab.indexOf(unk);
  return id < 0 ? null : { id, weight: table[id] };
}

/** Queries of `judged` through exact float retrieval and through the published files, compared. */
async function measure(
  system: SystemName,
  judged: JudgedQueries,
  docIds: readonly string[],
  exactIndex: InvertedIndex,
  queryVectors: readonly SparseVector[],
  read: (path: string) => Promise<Uint8Array>,
): Promise<PublishQuality> {
  const engine = await SearchEngine.open(read);
  const searcher = new IndexSearcher(exactIndex);
  const exact: Run = new Map();
  const published: Run = new Map();
  let largest = 0;
  let differing = 0;
  for (let q = 0; q < judged.ids.length; q++) {
    const a = searcher.search(queryVectors[q], 1000);
    const b = await engine.search(judged.texts[q], { k: 1000, system, details: 0 });
    exact.set(judged.ids[q], new Map(Array.from(a.docs, (d, r) => [docIds[d], a.scores[r]])));
    published.set(judged.ids[q], new Map(b.hits.map((h) => [docIds[h.doc], h.score])));
    if (a.docs.length !== b.hits.length || b.hits.some((h, r) => h.doc !== a.docs[r])) differing++;
    b.hits.forEach((h, r) => r < a.scores.length && (largest = Math.max(largest, Math.abs(h.score - a.scores[r]))));
  }
  const ndcg = (run: Run) => evaluateRun(judged.qrels, run).summary.get('ndcg_cut_10') ?? 0;
  return {
    system,
    queries: judged.ids.length,
    exact: ndcg(exact),
    published: ndcg(published),
    largestScoreDifference: largest,
    rankingsDiffering: differing,
  };
}

/** What the folder is made of: the corpus's document vectors and the query side, however they were made. */
export interface SiteInput {
  modelName: string;
  k: number;
  /** Tokens the model read per document. */
  documentLength: number;
  prune: number;
  corpusName: string;
  fingerprint: string;
  records: PublishRecord[];
  vectors: readonly SparseVector[]; // (documents,) in corpus order
  /** Whether token `id` is one of document `doc`'s own tokens (else a posting of it is an expansion). */
  isOwn(doc: number, id: number): boolean;
  queryWeights: Float32Array; // (V,) the static query table
  tokenizer: QueryTokenizerSpec;
}

export interface BuiltSite {
  files: SiteFile[];
  manifest: Manifest;
  manifestBytes: Uint8Array;
  /** The exact float index of the vectors (before any cap), and BM25's, for measuring what the folder keeps. */
  index: InvertedIndex;
  bm25: Bm25Model | null;
}

/** Makes every file of the folder from vectors already encoded (nothing is written here). */
export async function buildSite(input: SiteInput, runtime: PublishRuntime, options: PublishOptions): Promise<BuiltSite> {
  const texts = input.records.map((r) => r.text);
  const dimension = input.queryWeights.length;
  const index = buildInvertedIndex(input.vectors, dimension);
  if (index.dimension > dimension)
    throw new Error(`document vectors reach token id ${index.dimension - 1}, past the query table's ${dimension} ids`);
  const shardOptions = { weights: options.weights, cap: options.cap, shardBytes: options.shardBytes };
  const splade = spladeShards(index, input.isOwn, { ...shardOptions, folder: 'splade' });
  // a token no document holds adds nothing to any score: its weight stays out of the vocabulary's lines
  const table = Float32Array.from(input.queryWeights, (w, id) => (splade.kept[id] ? w : 0));
  const { vocab, ...settings } = input.tokenizer;
  const shardText = encodeVocabularyShards(vocab, table, settings.continuingSubwordPrefix);
  const folder = 'query/vocabulary/';
  const vocabularyFile = (text: string | null, name: string) =>
    text === null ? null : { path: `${folder}${name}.txt`, bytes: encoder.encode(text) };
  const vocabularyShards = shardText.shards.map((text, key) => vocabularyFile(text, String(key)));
  const continuingShards = shardText.continuing.map((text, key) => vocabularyFile(text, `continuing/${key}`));
  const singleShards = shardText.singleShards.map((text, key) => vocabularyFile(text, `single/${key}`));
  const singles = vocabularyFile(shardText.singles, 'single');
  const published: PublishedTokenizer = {
    ...settings,
    vocabulary: {
      size: vocab.length,
      unk: unkOf(vocab, settings.unkToken, table),
      folder,
      present: presentBits(vocabularyShards.map((file) => file !== null)),
      continuingPresent: presentBits(continuingShards.map((file) => file !== null)),
      singlePresent: presentBits(singleShards.map((file) => file !== null)),
      singles: singles !== null,
    },
  };
  const bm25Model = options.bm25 ? buildBm25(texts, wordAnalyzer(), BM25_PARAMS) : null;
  const bm25 = bm25Model ? bm25Shards(bm25Model.index, bm25Model.terms, { ...shardOptions, folder: 'bm25' }) : null;

  const tokenizerFile = { path: 'query/tokenizer.json', bytes: encoder.encode(JSON.stringify(published)) };
  const vocabularyFiles = [...vocabularyShards, ...continuingShards, ...singleShards, singles].filter((file) => file !== null);
  const chunks = documentChunks(input.records, options);
  const shardFiles = (shards: ShardFile[]) => shards.map((s) => ({ path: s.entry.path, bytes: s.bytes }));
  const parts: Record<string, SiteFile[]> = {
    runtime: [
      { path: 'splade-search.js', bytes: runtime.script },
      { path: WORKER_FILE, bytes: runtime.worker },
    ],
    page: [{ path: 'index.html', bytes: encoder.encode(indexPage(options.title, texts.length, input.modelName)) }],
    querySide: [tokenizerFile, ...vocabularyFiles],
    spladePostings: shardFiles(splade.shards),
    bm25Postings: bm25 ? shardFiles(bm25.shards) : [],
    documents: chunks,
  };
  const body: ManifestBody = {
    format: MANIFEST_FORMAT,
    version: FORMAT_VERSION,
    title: options.title,
    createdBy: 'splade-lab publish',
    model: { name: input.modelName, k: input.k, inferenceFree: true, documentLength: input.documentLength, prune: input.prune },
    corpus: { name: input.corpusName, documents: texts.length, fingerprint: input.fingerprint },
    documents: { chunkSize: options.chunkSize, chunks: chunks.map((c) => c.path), snippetCharacters: options.snippetCharacters },
    splade: {
      weights: options.weights,
      cap: options.cap,
      terms: splade.terms,
      postings: splade.postings,
      shards: splade.shards.map((s) => s.entry),
      dimension,
      tokenizer: tokenizerFile.path,
    },
    bm25: bm25
      ? {
          weights: options.weights,
          cap: options.cap,
          terms: bm25.terms,
          postings: bm25.postings,
          shards: bm25.shards.map((s) => s.entry),
          ...BM25_PARAMS,
          stopWords: STOP_WORDS,
        }
      : null,
  };
  // the runtime reads search.json (a cold query fetches it whole); manifest.json adds the sizes and every file's hash
  parts.search = [{ path: SEARCH_FILE, bytes: encoder.encode(JSON.stringify(searchIndexOf(body))) }];
  const files = Object.values(parts).flat();
  const entries: FileEntry[] = await Promise.all(
    files.map(async (f) => ({ path: f.path, bytes: f.bytes.length, sha256: await sha256(f.bytes) })),
  );
  const sizes: Record<string, number> = Object.create(null) as Record<string, number>;
  for (const [part, list] of Object.entries(parts)) sizes[part] = list.reduce((n, f) => n + f.bytes.length, 0);
  sizes.total = files.reduce((n, f) => n + f.bytes.length, 0);
  const manifest: Manifest = { ...body, sizes, files: entries };
  const manifestBytes = encoder.encode(JSON.stringify(manifest, null, 1) + '\n');
  return { files, manifest, manifestBytes, index, bm25: bm25Model };
}

/** The folder's files by path, manifest.json included, as a FetchBytes reads them. */
export function siteReader(site: Pick<BuiltSite, 'files' | 'manifestBytes'>): (path: string) => Promise<Uint8Array> {
  const byPath = new Map(site.files.map((f) => [f.path, f.bytes]));
  byPath.set(MANIFEST_FILE, site.manifestBytes);
  return async (path) => {
    const bytes = byPath.get(path);
    if (!bytes) throw new Error(`${path} is not in the published folder`);
    return bytes;
  };
}

/** nDCG@10 of the built folder on judged queries, SPLADE's (given its query vectors) and BM25's, against exact float retrieval. */
export async function measureSite(
  site: BuiltSite,
  judged: JudgedQueries,
  docIds: readonly string[],
  spladeQueries: readonly SparseVector[],
): Promise<PublishQuality[]> {
  const read = siteReader(site);
  const quality = [await measure('splade', judged, docIds, site.index, spladeQueries, read)];
  if (site.bm25) {
    const bm25 = site.bm25;
    const queries = judged.texts.map((text) => bm25Query(bm25, text));
    quality.push(await measure('bm25', judged, docIds, bm25.index, queries, read));
  }
  return quality;
}

/** Whether ascending `ids` holds `id` (a binary search). */
function sortedHas(ids: Uint32Array, id: number): boolean {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid] < id) lo = mid + 1;
    else hi = mid;
  }
  return lo < ids.length && ids[lo] === id;
}

/** Vectors encoded before (an evaluation's), with the same model, k, document length and pruning as the options. */
export interface EncodedCorpus {
  /** One per corpus record, in its order. */
  documents: readonly SparseVector[];
  /** One per judged query, in its order (encoded again when absent). */
  queries?: readonly SparseVector[];
}

/**
 * The folder of `corpus` under `session`'s inference-free model: its documents encoded (or `reuse`d), shards,
 * chunks and the query side built, and, for judged queries, the published search measured against exact retrieval.
 */
export async function publishSite(
  session: ModelSession,
  corpus: PublishCorpus,
  runtime: PublishRuntime,
  options: PublishOptions,
  progress: EncodeProgress & { onStage?: (stage: string) => void } = {},
  reuse?: EncodedCorpus,
): Promise<PublishedSite> {
  const { model } = session;
  if (!session.inferenceFree || !model.queryWeights)
    throw new NotInferenceFreeError(
      `${model.name} is not inference-free (its queries need the model itself, not a table lookup): a static search of it needs the heavy mode, --heavy, which is not built yet`,
    );
  const texts = corpus.records.map((r) => r.text);
  const spec = queryTokenizerSpec(model.tokenizer, model.staticQueryTokens, model.name);
  const openings = corpus.records.slice(0, 2000).flatMap((r) => [r.title, r.body.slice(0, 300)]);
  const tokenizerTexts = checkQueryTokenizer(spec, (text) => session.staticQueryIds(text), [
    ...(corpus.judged?.texts ?? []),
    ...openings,
  ]);
  const request = { k: options.k, maxLength: options.documentLength, topK: options.prune };
  if (reuse && reuse.documents.length !== texts.length)
    throw new Error(`${reuse.documents.length} stored document vectors for a corpus of ${texts.length} documents`);
  const vectors = reuse?.documents ?? (await session.encode(texts, request, progress));
  progress.onStage?.('index');
  const length = session.fittedLength(options.documentLength);
  // each document's own token ids, sorted: a binary search per posting is several times faster than a Set per document
  const own = texts.map((text) => Uint32Array.from(new Set(model.tokenizer.encode(text, { maxLength: length }).ids)).sort());
  const site = await buildSite(
    {
      modelName: options.modelName ?? model.name,
      k: options.k,
      documentLength: length,
      prune: options.prune,
      corpusName: corpus.name,
      fingerprint: corpus.fingerprint,
      records: corpus.records,
      vectors,
      isOwn: (doc, id) => sortedHas(own[doc], id),
      queryWeights: model.queryWeights,
      tokenizer: spec,
    },
    runtime,
    options,
  );
  let quality: PublishQuality[] = [];
  if (corpus.judged) {
    progress.onStage?.('measure');
    const queries = reuse?.queries ?? (await session.encodeQueries(corpus.judged.texts, request));
    quality = await measureSite(
      site,
      corpus.judged,
      corpus.records.map((r) => r.id),
      queries,
    );
  }
  return { files: site.files, manifest: site.manifest, manifestBytes: site.manifestBytes, quality, tokenizerTexts };
}
