// Sparse vectors in the formats search engines ingest: Anserini JsonVectorCollection, Qdrant, Elasticsearch/OpenSearch rank_features.
import type { SparseVector } from '../util/sparse-vector.ts';

/** id -> token string, e.g. a tokenizer's vocabulary. */
export type Vocabulary = readonly string[];

function tokenOf(vocab: Vocabulary, id: number): string {
  const token = vocab[id];
  if (token === undefined) throw new Error(`vocabulary has no token for id ${id} (size ${vocab.length})`);
  return token;
}

/** Anserini's impact of a weight: round(scale * w); an entry whose impact is 0 is left out. */
export function anseriniImpact(weight: number, scale = 100): number {
  return Math.round(scale * weight);
}

/**
 * Anserini's impact weights: token -> round(scale * w), dropping weights that quantise to 0.
 * Two ids with the same token string (possible in some vocabularies) add up.
 */
function quantisedTokenWeights(vector: SparseVector, vocab: Vocabulary, scale = 100): Record<string, number> {
  const weights: Record<string, number> = {};
  for (let i = 0; i < vector.indices.length; i++) {
    const q = anseriniImpact(vector.values[i], scale);
    if (q === 0) continue;
    const token = tokenOf(vocab, vector.indices[i]);
    weights[token] = (weights[token] ?? 0) + q;
  }
  return weights;
}

/** One line of an Anserini JsonVectorCollection: {"id", "contents", "vector": {token: int}}. */
export function anseriniDocumentLine(
  id: string,
  vector: SparseVector,
  vocab: Vocabulary,
  options: { scale?: number; contents?: string } = {},
): string {
  return JSON.stringify({ id, contents: options.contents ?? '', vector: quantisedTokenWeights(vector, vocab, options.scale) });
}

/** An Anserini impact query (TSV "qid<TAB>tokens"): each token repeated round(scale * w) times, as naver/splade writes them. */
export function anseriniQueryLine(id: string, vector: SparseVector, vocab: Vocabulary, scale = 100): string {
  const words: string[] = [];
  for (const [token, count] of Object.entries(quantisedTokenWeights(vector, vocab, scale))) {
    if (/\s/.test(token)) throw new Error(`query ${id}: token "${token}" contains white space and cannot be written as a word`);
    for (let c = 0; c < count; c++) words.push(token);
  }
  return `${id}\t${words.join(' ')}`;
}

/** Qdrant's sparse vector: {"indices": [...], "values": [...]}. */
export function qdrantSparseVector(vector: SparseVector): { indices: number[]; values: number[] } {
  return { indices: Array.from(vector.indices), values: Array.from(vector.values) };
}

export interface RankFeatures {
  features: Record<string, number>;
  /** Entries left out because rank_features only accepts positive weights. */
  droppedNonPositive: number;
  /** Entries left out because their token contains a dot, which rank_features refuses (unless `dotReplacement` is given). */
  droppedDotted: number;
}

/**
 * An Elasticsearch/OpenSearch `rank_features` object {token: weight}. Those engines reject feature
 * names with dots and non-positive values, so such entries are renamed (with `dotReplacement`) or counted as dropped.
 */
export function rankFeatures(vector: SparseVector, vocab: Vocabulary, options: { dotReplacement?: string } = {}): RankFeatures {
  const result: RankFeatures = { features: {}, droppedNonPositive: 0, droppedDotted: 0 };
  for (let i = 0; i < vector.indices.length; i++) {
    const weight = vector.values[i];
    if (!(weight > 0)) {
      result.droppedNonPositive++;
      continue;
    }
    let token = tokenOf(vocab, vector.indices[i]);
    if (token.includes('.')) {
      if (options.dotReplacement === undefined) {
        result.droppedDotted++;
        continue;
      }
      token = token.replaceAll('.', options.dotReplacement);
    }
    result.features[token] = (result.features[token] ?? 0) + weight;
  }
  return result;
}
