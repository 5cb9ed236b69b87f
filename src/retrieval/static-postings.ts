// Posting lists cut into the shards a published search fetches (src/publish-runtime/shard-codec.ts's layout): SPLADE's
// by token id range, so that a query fetches one shard per run of nearby ids, BM25's by a hash of the word (the runtime
// holds no word list). Each list may keep only its top `cap` documents; weights are stored as asked (uint8 per term,
// float16, or float32, which is lossless).
import { numberedPath, type ShardEntry } from '../publish-runtime/manifest.ts';
import { encodeShard, termHash, type TermPostings, type WeightKind } from '../publish-runtime/shard-codec.ts';
import type { InvertedIndex } from './inverted-index.ts';

export interface ShardFile {
  entry: ShardEntry;
  bytes: Uint8Array;
}

export interface ShardOptions {
  weights: WeightKind;
  /** Documents kept per posting list, its largest weights (null: all). */
  cap: number | null;
  /** A shard is closed once its postings pass about this many bytes (a long list is a shard of its own). */
  shardBytes: number;
  /** The folder the shard files go in ("splade", "bm25"). */
  folder: string;
}

export interface Shards {
  shards: ShardFile[];
  terms: number;
  postings: number;
  /** Terms (ids or words' dimension ids) that kept at least one posting. */
  kept: Uint8Array; // (V,) 1 where the term has postings
}

const WEIGHT_BYTES: Record<WeightKind, number> = { uint8: 1, float16: 2, float32: 4 };

/**
 * Term j's postings from the index, only its `cap` largest weights when capped (ties: the smaller document), documents
 * ascending. Uncapped (or no longer than the cap), the lists are views of the index's own arrays, not copies (copying
 * each list through Array.from was half the time of SciFact's posting shards: 35 million postings, docs/publish.md).
 */
export function termPostings(index: InvertedIndex, j: number, cap: number | null): { docs: Uint32Array; weights: Float32Array } {
  const start = index.offsets[j];
  const end = index.offsets[j + 1];
  if (cap === null || end - start <= cap)
    return { docs: index.docs.subarray(start, end), weights: index.weights.subarray(start, end) };
  const at: number[] = [];
  for (let p = start; p < end; p++) at.push(p);
  at.sort((a, b) => index.weights[b] - index.weights[a] || index.docs[a] - index.docs[b]);
  const top = at.slice(0, cap).sort((a, b) => index.docs[a] - index.docs[b]);
  const docs = new Uint32Array(top.length);
  const weights = new Float32Array(top.length);
  for (let i = 0; i < top.length; i++) {
    docs[i] = index.docs[top[i]];
    weights[i] = index.weights[top[i]];
  }
  return { docs, weights };
}

function estimate(count: number, kind: WeightKind): number {
  return 6 + count * (1.5 + WEIGHT_BYTES[kind] + 1 / 8);
}

function shardFile(
  folder: string,
  number: number,
  first: number,
  terms: TermPostings[],
  options: ShardOptions,
  own: boolean,
): ShardFile {
  const bytes = encodeShard(terms, options.weights, own);
  const path = numberedPath(folder, number, 'bin');
  const postings = terms.reduce((n, t) => n + t.docs.length, 0);
  return { entry: { path, first, terms: terms.length, postings, bytes: bytes.length }, bytes };
}

/**
 * SPLADE's shards: ids ascending, a new shard whenever the current one passes options.shardBytes. `isOwn(doc, id)`
 * says whether token `id` is among document `doc`'s own tokens (else the posting is an expansion).
 */
export function spladeShards(index: InvertedIndex, isOwn: (doc: number, id: number) => boolean, options: ShardOptions): Shards {
  const shards: ShardFile[] = [];
  const kept = new Uint8Array(index.dimension);
  let current: TermPostings[] = [];
  let first = 0;
  let size = 0;
  let terms = 0;
  let postings = 0;
  const close = () => {
    if (current.length) shards.push(shardFile(options.folder, shards.length, first, current, options, true));
    current = [];
    size = 0;
  };
  for (let j = 0; j < index.dimension; j++) {
    if (index.offsets[j] === index.offsets[j + 1]) continue;
    const { docs, weights } = termPostings(index, j, options.cap);
    if (current.length === 0) first = shards.length === 0 ? 0 : j;
    const own = new Uint8Array(docs.length);
    for (let i = 0; i < docs.length; i++) own[i] = isOwn(docs[i], j) ? 1 : 0;
    current.push({ key: j, docs, weights, own });
    kept[j] = 1;
    terms++;
    postings += docs.length;
    size += estimate(docs.length, options.weights);
    if (size >= options.shardBytes) close();
  }
  close();
  return { shards, terms, postings, kept };
}

/** BM25's shards: each word in shard termHash(word) mod n, n sized so that a shard holds about options.shardBytes. */
export function bm25Shards(index: InvertedIndex, terms: readonly string[], options: ShardOptions): Shards {
  let total = 0;
  for (let j = 0; j < index.dimension; j++) total += estimate(index.offsets[j + 1] - index.offsets[j], options.weights);
  const count = Math.max(1, Math.ceil(total / options.shardBytes));
  const buckets: TermPostings[][] = Array.from({ length: count }, () => []);
  const kept = new Uint8Array(index.dimension);
  let postings = 0;
  for (let j = 0; j < index.dimension; j++) {
    if (index.offsets[j] === index.offsets[j + 1]) continue;
    const { docs, weights } = termPostings(index, j, options.cap);
    buckets[termHash(terms[j]) % count].push({ key: terms[j], order: j, docs, weights });
    kept[j] = 1;
    postings += docs.length;
  }
  const shards = buckets.map((bucket, b) => shardFile(options.folder, b, b, bucket, options, false));
  return { shards, terms: kept.reduce((n, k) => n + k, 0), postings, kept };
}
