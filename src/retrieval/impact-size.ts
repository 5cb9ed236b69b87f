// Index size estimates of posting lists under the two models IMPACT_SIZE_MODELS states: Anserini's round(scale * w)
// impacts, and rank_features' Lucene FeatureField (9 significant bits in a 16-bit term frequency), each posting a VInt
// document gap plus its impact or frequency.
import { IMPACT_SIZE_MODELS, type ImpactIndexSize } from '../contract/evaluation/index-stats.ts';
import { featureFieldFrequency } from './engine-quantisation.ts';
import { anseriniImpact, type Vocabulary } from './exports.ts';
import type { SparseVector } from '../util/sparse-vector.ts';

/** Bytes of Lucene's DataOutput.writeVInt(n): 7 bits a byte; a negative int takes 5, as Lucene writes it. */
export function vintBytes(n: number): number {
  let rest = n >>> 0;
  let bytes = 1;
  while (rest >= 0x80) {
    rest >>>= 7;
    bytes++;
  }
  return bytes;
}

/** For each id, the first id with the same token string: Anserini indexes tokens, so such ids share one list. */
function tokenKeys(vocab: Vocabulary): Uint32Array {
  const first = new Map<string, number>();
  return Uint32Array.from(vocab, (token, id) => {
    if (!first.has(token)) first.set(token, id);
    return first.get(token)!;
  });
}

/**
 * Postings and bytes of `documents` stored by a rule (token -> the sum of `store(w)` over its ids): each posting costs
 * VInt(gap to the list's previous document; the first, its document number) plus `impactBytes(stored)`, and a stored
 * value whose `impactBytes` is null is no posting. Flat arrays over the vocabulary, so that dense vectors of a large
 * vocabulary stay fast.
 */
function storedSize(
  documents: readonly SparseVector[],
  vocab: Vocabulary,
  store: (weight: number) => number,
  impactBytes: (stored: number) => number | null,
): { postings: number; bytes: number } {
  const keys = tokenKeys(vocab); // (V,)
  const lastDoc = new Float64Array(vocab.length); // (V,) by key
  const impacts = new Float64Array(vocab.length); // (V,) by key, this document's summed impacts
  const seenIn = new Float64Array(vocab.length).fill(-1); // (V,) by key, the last document that touched it
  const touched: number[] = [];
  let postings = 0;
  let bytes = 0;
  documents.forEach((vector, d) => {
    touched.length = 0;
    for (let i = 0; i < vector.indices.length; i++) {
      const id = vector.indices[i];
      if (id >= keys.length) throw new Error(`document ${d}: vocabulary has no token for id ${id} (size ${vocab.length})`);
      const key = keys[id];
      if (seenIn[key] !== d) {
        seenIn[key] = d;
        impacts[key] = 0;
        touched.push(key);
      }
      impacts[key] += store(vector.values[i]);
    }
    for (const key of touched) {
      const cost = impactBytes(impacts[key]);
      if (cost === null) continue;
      bytes += vintBytes(d - lastDoc[key]) + cost;
      lastDoc[key] = d;
      postings++;
    }
  });
  return { postings, bytes };
}

/** The index as Anserini's impact format holds it (`encode --format anserini`'s quantisation). */
export function anseriniIndexSize(documents: readonly SparseVector[], vocab: Vocabulary, scale: number): ImpactIndexSize {
  const impactBytes = (impact: number) => (impact === 0 ? null : vintBytes(impact));
  return {
    model: IMPACT_SIZE_MODELS.anserini,
    scale,
    ...storedSize(documents, vocab, (w) => anseriniImpact(w, scale), impactBytes),
  };
}

/**
 * The index as rank_features holds it (Elasticsearch and OpenSearch, `encode --format es|opensearch`): each token's
 * weight a Lucene FeatureField, its term frequency Float.floatToIntBits(w) >>> 15 written as a VInt; a weight
 * FeatureField refuses (below 2^-126) is no posting.
 */
export function rankFeaturesIndexSize(documents: readonly SparseVector[], vocab: Vocabulary): ImpactIndexSize {
  const frequencyBytes = (weight: number) => {
    const frequency = featureFieldFrequency(weight);
    return frequency === 0 ? null : vintBytes(frequency);
  };
  return { model: IMPACT_SIZE_MODELS.byte, scale: 1, ...storedSize(documents, vocab, (w) => w, frequencyBytes) };
}
