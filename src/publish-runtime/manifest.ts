// What a published search folder holds, as manifest.json describes it (written last, so that a folder with a manifest
// is whole), and the files' places. Shared by the publisher and the runtime; imports nothing outside this folder.
import type { WeightKind } from './shard-codec.ts';

export const MANIFEST_FILE = 'manifest.json';
/** What the runtime reads: the manifest without its sizes and file list (a cold query fetches it whole). */
export const SEARCH_FILE = 'search.json';
export const MANIFEST_FORMAT = 'splade-lab-static-search';
/** Bumped whenever a reader of an older folder would read this one wrongly. */
export const FORMAT_VERSION = 3;

/** One file of the folder, as the manifest lists it. */
export interface FileEntry {
  path: string;
  bytes: number;
  sha256: string;
}

/** A shard of posting lists: SPLADE's hold the token ids from `first` up to the next shard's first; BM25's the terms hashing to their number. */
export interface ShardEntry {
  path: string;
  first: number;
  terms: number;
  postings: number;
  bytes: number;
}

interface Postings {
  /** How weights are stored (uint8 with a per-term scale, float16, float32). */
  weights: WeightKind;
  /** Each posting list kept only its top `cap` documents (null: every document). */
  cap: number | null;
  terms: number;
  postings: number;
  shards: ShardEntry[];
}

export interface SpladeManifest extends Postings {
  /** The vocabulary size V (token ids 0..V-1). */
  dimension: number;
  /**
   * query/tokenizer.json: the query tokenizer's settings and its vocabulary's shard files (PublishedTokenizer); each
   * vocabulary line holds a piece, its id and its static query weight where a document holds the token.
   */
  tokenizer: string;
}

export interface Bm25Manifest extends Postings {
  k1: number;
  b: number;
  /** Words the analyzer drops. */
  stopWords: string[];
}

export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  version: number;
  title: string;
  createdBy: string;
  model: { name: string; k: number; inferenceFree: true; documentLength: number; prune: number };
  corpus: { name: string; documents: number; fingerprint: string };
  documents: { chunkSize: number; chunks: string[]; snippetCharacters: number };
  splade: SpladeManifest;
  bm25: Bm25Manifest | null;
  /** Bytes per part of the folder (runtime, query side, postings, documents, pages). */
  sizes: Record<string, number>;
  /** Every file of the folder but manifest.json. */
  files: FileEntry[];
}

/** The manifest before its sizes and file list are added. */
export type ManifestBody = Omit<Manifest, 'sizes' | 'files'>;

/**
 * search.json: what the runtime reads of the manifest (a cold query fetches it whole, so it stays small however many
 * files the folder has): no sizes, no file list, and shards and chunks as counts, SPLADE's with each shard's first
 * token id as its step from the one before; their paths follow from their numbers (numberedPath).
 */
export interface SearchIndex extends Omit<ManifestBody, 'documents' | 'splade' | 'bm25'> {
  documents: { chunkSize: number; chunks: number; snippetCharacters: number };
  splade: Omit<SpladeManifest, 'shards'> & { shards: number; firstSteps: number[] };
  bm25: (Omit<Bm25Manifest, 'shards'> & { shards: number }) | null;
}

/** The path of file `n` of a numbered folder: `docs/0007.json`, `splade/0012.bin`. */
export function numberedPath(folder: string, n: number, extension: string): string {
  return `${folder}/${String(n).padStart(4, '0')}.${extension}`;
}

/** search.json of a manifest. */
export function searchIndexOf(body: ManifestBody): SearchIndex {
  const shards = body.splade.shards;
  const firstSteps = shards.map((s, i) => s.first - (i ? shards[i - 1].first : 0));
  return {
    ...body,
    documents: { ...body.documents, chunks: body.documents.chunks.length },
    splade: { ...body.splade, shards: shards.length, firstSteps },
    bm25: body.bm25 ? { ...body.bm25, shards: body.bm25.shards.length } : null,
  };
}

/** The first token id of each SPLADE shard, from search.json's steps. */
export function shardFirsts(steps: readonly number[]): number[] {
  let first = 0;
  return steps.map((step) => (first += step));
}

/** A document as its chunk stores it: [id, title, url, snippet] ("" where absent). */
export type StoredDocument = [id: string, title: string, url: string, snippet: string];

/** The added tokens a query tokenizer matches before normalising (BERT's [CLS], [MASK], ...). */
export interface AddedTokenSpec {
  content: string;
  id: number;
  singleWord: boolean;
  lstrip: boolean;
  rstrip: boolean;
  normalized: boolean;
}

/** query/tokenizer.json: a WordPiece tokenizer as @huggingface/tokenizers runs BERT's (BertNormalizer, BertPreTokenizer). */
export interface QueryTokenizerSpec {
  type: 'wordpiece';
  normalizer: { cleanText: boolean; handleChineseChars: boolean; lowercase: boolean; stripAccents: boolean | null } | null;
  unkToken: string;
  continuingSubwordPrefix: string;
  maxInputCharsPerWord: number;
  addedTokens: AddedTokenSpec[];
  /** Tokens kept per query (the query tokenizer's model_max_length); null: all. */
  maxTokens: number | null;
  /** Token of every id (null for an id no token has). */
  vocab: (string | null)[];
}

/** A tokenizer's settings, its vocabulary apart. */
export type TokenizerSettings = Omit<QueryTokenizerSpec, 'vocab'>;

/** query/tokenizer.json as published: the settings, and where the vocabulary's shards are (null: an empty shard). */
export interface PublishedTokenizer extends TokenizerSettings {
  vocabulary: {
    /** Token ids 0..size-1. */
    size: number;
    /** The unknown token's id and query weight (a word no piece matches becomes it, whatever shard it starts in). */
    unk: { id: number; weight: number } | null;
    /** The folder of the vocabulary's files: `<key>.txt`, `continuing/<key>.txt`, `single/<key>.txt`, `single.txt`. */
    folder: string;
    /** The shards of starting pieces that have a file, as hexadecimal bits (shard key k: bit k % 4 of digit k / 4). */
    present: string;
    /** The continuing shards that have a file, the same way. */
    continuingPresent: string;
    /** The shards of non-ASCII one-code-point pieces that have a file, the same way. */
    singlePresent: string;
    /** Whether there are ASCII pieces of one code point (single.txt). */
    singles: boolean;
  };
}

/** Hexadecimal bits of the keys that have a file (key k: bit k % 4 of digit k / 4). */
export function presentBits(has: readonly boolean[]): string {
  const digits: number[] = [];
  has.forEach((present, key) => (digits[key >> 2] = (digits[key >> 2] ?? 0) | (present ? 1 << (key & 3) : 0)));
  return digits.map((digit) => digit.toString(16)).join('');
}

function hasBit(present: string, key: number): boolean {
  return (parseInt(present[key >> 2] ?? '0', 16) & (1 << (key & 3))) !== 0;
}

/** The path of a vocabulary shard (null when the tokenizer has no piece in it). */
export function vocabularyShardPath(vocabulary: PublishedTokenizer['vocabulary'], key: number): string | null {
  return hasBit(vocabulary.present, key) ? `${vocabulary.folder}${key}.txt` : null;
}

/** The path of a single shard (null when the tokenizer has no piece in it). */
export function singleShardPath(vocabulary: PublishedTokenizer['vocabulary'], key: number): string | null {
  return hasBit(vocabulary.singlePresent, key) ? `${vocabulary.folder}single/${key}.txt` : null;
}

/** The path of a continuing shard (null when the tokenizer has no piece in it). */
export function continuingShardPath(vocabulary: PublishedTokenizer['vocabulary'], key: number): string | null {
  return hasBit(vocabulary.continuingPresent, key) ? `${vocabulary.folder}continuing/${key}.txt` : null;
}

/** The document numbers of a chunk: [chunk x size, (chunk + 1) x size). */
export function chunkOf(doc: number, chunkSize: number): number {
  return Math.floor(doc / chunkSize);
}

/** The SPLADE shard holding token id `id`: the last whose first id is at most id (`firsts` ascending). */
export function shardOfId(firsts: readonly number[], id: number): number {
  let lo = 0;
  let hi = firsts.length - 1;
  if (hi < 0 || id < firsts[0]) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (firsts[mid] <= id) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
