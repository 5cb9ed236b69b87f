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
