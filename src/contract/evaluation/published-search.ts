// What the page's "Publish as a static search" hands back: the folder as a zip and what it costs a visitor.

/** What a visitor's browser transfers per search with nothing cached, over a set's queries. */
export interface ColdQueryTransfer {
  /** Queries measured. */
  queries: number;
  /** Bytes per cold query, the runtime's included (uncompressed: a server's gzip makes them smaller). */
  p50: number;
  p90: number;
  /** The runtime's part of each: the page, splade-search.js and its engine. */
  runtime: number;
  /** Files per cold query, the runtime's three included. */
  filesP50: number;
  filesP90: number;
}

/** nDCG@10 of the published search (its quantised weights) against exact float retrieval of the same vectors. */
export interface PublishedQuality {
  system: 'splade' | 'bm25';
  queries: number;
  exact: number;
  published: number;
  /** Largest difference of a score between the two over each query's top 1000. */
  largestScoreDifference: number;
  /** Queries whose top 1000 documents differ. */
  rankingsDiffering: number;
}

export interface PublishedSearch {
  /** The zip's file name without ".zip", and its one folder's name. */
  name: string;
  zip: Uint8Array;
  /** Files in the folder, manifest.json included. */
  files: number;
  /** Bytes by part, as manifest.json gives them (total, postings, query side, documents, runtime, page). */
  sizes: Record<string, number>;
  /** Per cold search over the set's queries (null for a set without queries). */
  transfer: ColdQueryTransfer | null;
  quality: PublishedQuality[];
  /** How the postings store SPLADE's weights: uint8, float16 or float32. */
  weights: string;
  k: number;
  documentLength: number;
}

/** How the posting lists store SPLADE's weights: uint8 with a per-term scale, IEEE half, or float32 (lossless). */
export const PUBLISHED_WEIGHT_KINDS = ['uint8', 'float16', 'float32'] as const;

/** What a publisher chooses (the CLI's --weights, --cap, --no-bm25, --shard-kb and --chunk; the page's form). */
export interface PublishSettings {
  weights: (typeof PUBLISHED_WEIGHT_KINDS)[number];
  /** Each posting list's N largest weights only (null: every document). */
  cap: number | null;
  /** BM25's own postings in the folder too, for the element's switch. */
  bm25: boolean;
  /** A posting shard is closed once it passes this many KiB. */
  shardKb: number;
  /** Documents per document-store chunk. */
  chunk: number;
}

/** The defaults, written once: the CLI's option table and the page's form read them. */
export const PUBLISH_SETTINGS: PublishSettings = { weights: 'uint8', cap: null, bm25: true, shardKb: 1, chunk: 2 };

/** Largest shard and chunk the page's form accepts (a shard of 64 MiB or a chunk of 100,000 documents defeats fetching per query). */
export const PUBLISH_LIMITS = { shardKb: 65_536, chunk: 100_000 } as const;

/** What is wrong with `settings`, in words a form can show beside its field (null: nothing). */
export function publishSettingsProblem(settings: PublishSettings): string | null {
  const whole = (value: number, min: number, max: number) => Number.isInteger(value) && value >= min && value <= max;
  if (!(PUBLISHED_WEIGHT_KINDS as readonly string[]).includes(settings.weights))
    return `weights must be one of ${PUBLISHED_WEIGHT_KINDS.join(', ')}, not "${settings.weights}"`;
  if (settings.cap !== null) {
    if (settings.cap === 0)
      return 'a cap of 0 would keep no document in any posting list: give 1 or more, or leave it empty to keep every document';
    if (!whole(settings.cap, 1, Number.MAX_SAFE_INTEGER))
      return `the cap must be a whole number of at least 1 (or empty: every document), not ${settings.cap}`;
  }
  if (!whole(settings.shardKb, 1, PUBLISH_LIMITS.shardKb))
    return `the shard size must be a whole number of KiB from 1 to ${PUBLISH_LIMITS.shardKb}, not ${settings.shardKb}`;
  if (!whole(settings.chunk, 1, PUBLISH_LIMITS.chunk))
    return `documents per chunk must be a whole number from 1 to ${PUBLISH_LIMITS.chunk}, not ${settings.chunk}`;
  return null;
}
