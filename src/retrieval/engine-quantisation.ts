// Sparse vectors as each engine stores and scores them, so that what its quantisation does to a ranking can be measured
// against splade-lab's float dot product: one pure function per stored form, read from the engine's source, and one
// scoring (documents as stored, queries as the engine takes them) per engine configuration.
import { FEATURE_FIELD_MIN } from './lucene-features.ts';
import { anseriniImpact } from './exports.ts';
import type { SparseVector } from '../util/sparse-vector.ts';

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/**
 * Lucene FeatureField's stored weight (Elasticsearch and OpenSearch `rank_features`, Elasticsearch `sparse_vector`):
 * the term frequency is Float.floatToIntBits(w) >>> 15, a 16-bit number keeping 9 significant bits, read back as
 * Float.intBitsToFloat(freq << 15): the float32 truncated toward zero (relative error below 2^-8). 0 for a weight
 * FeatureField refuses (below Float.MIN_NORMAL, or not finite).
 */
export function featureFieldValue(weight: number): number {
  const frequency = featureFieldFrequency(weight);
  if (frequency === 0) return 0;
  u32[0] = frequency << 15;
  return f32[0];
}

/** FeatureField's term frequency for a weight, Float.floatToIntBits(w) >>> 15; 0 for a weight it refuses. */
export function featureFieldFrequency(weight: number): number {
  f32[0] = weight;
  if (!(f32[0] >= FEATURE_FIELD_MIN) || !Number.isFinite(f32[0])) return 0;
  return u32[0] >>> 15;
}

/**
 * OpenSearch neural-search's ByteQuantizer.quantizeFloatToByte(value, ceiling) (sparse_vector's SEISMIC path): the
 * weight clamped to [0, ceiling], scaled to 0..255 and rounded, in float32 arithmetic; the unsigned byte.
 */
export function openSearchByte(weight: number, ceiling: number): number {
  const clamped = Math.fround(Math.max(0, Math.min(Math.fround(ceiling), Math.fround(weight))));
  return Math.round(Math.fround(Math.fround(clamped * 255) / Math.fround(ceiling)));
}

/** Round half to even, for a non-negative x. */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 === 1 ? r - 1 : r;
}

/**
 * The float16 the weight becomes in Seismic's Python SeismicIndex (values stored as half::f16, converted by
 * vectorium's from_f32_saturating): round to nearest, ties to even, saturating at ±65504.
 */
export function float16Value(weight: number): number {
  const x = Math.fround(weight);
  const a = Math.abs(x);
  if (!Number.isFinite(a) || a >= 65504) return Math.sign(x) * 65504;
  if (a === 0) return 0;
  let exponent = Math.floor(Math.log2(a));
  if (2 ** exponent > a) exponent--;
  else if (2 ** (exponent + 1) <= a) exponent++;
  const step = 2 ** (Math.max(exponent, -14) - 10); // subnormal halves share the step 2^-24
  return Math.sign(x) * Math.min(65504, roundHalfEven(a / step) * step);
}

/** The vector with each weight mapped by `f`, entries that become 0 left out. */
export function mapWeights(vector: SparseVector, f: (weight: number, id: number) => number): SparseVector {
  const indices: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < vector.indices.length; i++) {
    const value = f(vector.values[i], vector.indices[i]);
    if (value === 0) continue;
    indices.push(vector.indices[i]);
    values.push(value);
  }
  return { indices: Uint32Array.from(indices), values: Float32Array.from(values) };
}

/**
 * Qdrant's `uint8` sparse index (qdrant/qdrant, lib/sparse/src/common/types.rs QuantizedU8; the parameters taken per
 * posting list in CompressedPostingBuilder::build): each dimension keeps min and diff = (max - min) / 255 of its
 * document weights, a weight is stored as round((w - min) / diff) clamped to 0..255 and read back as min + q * diff,
 * in float32 (one weight alone, diff 0, reads back as itself).
 */
export function qdrantUint8Documents(documents: readonly SparseVector[]): SparseVector[] {
  const range = new Map<number, { min: number; max: number }>();
  for (const vector of documents)
    for (let i = 0; i < vector.indices.length; i++) {
      const id = vector.indices[i];
      const w = vector.values[i];
      const r = range.get(id);
      if (!r) range.set(id, { min: w, max: w });
      else {
        r.min = Math.min(r.min, w);
        r.max = Math.max(r.max, w);
      }
    }
  return documents.map((vector) =>
    mapWeights(vector, (w, id) => {
      const { min, max } = range.get(id)!;
      const diff = Math.fround(Math.fround(max - min) / 255);
      if (diff === 0) return min;
      const q = Math.min(255, Math.max(0, Math.round(Math.fround(Math.fround(w - min) / diff))));
      return Math.fround(min + Math.fround(q * diff));
    }),
  );
}

/** How an engine scores: its documents as stored, a query as it takes it; the score is their dot product. */
export interface EngineScoring {
  documents(documents: readonly SparseVector[]): SparseVector[];
  query(query: SparseVector): SparseVector;
}

const each =
  (f: (weight: number) => number) =>
  (documents: readonly SparseVector[]): SparseVector[] =>
    documents.map((d) => mapWeights(d, f));

/** Anserini impacts: documents and queries both round(scale * w) (a query term repeated that many times). */
export function anseriniScoring(scale = 100): EngineScoring {
  const impact = (w: number) => anseriniImpact(w, scale);
  return { documents: each(impact), query: (q) => mapWeights(q, impact) };
}

/** Lucene FeatureField (rank_features, Elasticsearch sparse_vector): documents at 9 significant bits, query weights as float32 boosts. */
export const featureFieldScoring: EngineScoring = {
  documents: each(featureFieldValue),
  query: (q) => mapWeights(q, Math.fround),
};

/**
 * OpenSearch 3.3 sparse_vector on its SEISMIC path (segments of `approximate_threshold` documents or more): a document
 * weight goes through FeatureField, then ByteQuantizer with quantization_ceiling_ingest (default 3); a query weight
 * through ByteQuantizer with quantization_ceiling_search (default 16; OpenSearch advises 3 for bi-encoder queries).
 * Segments below the threshold are plain rank_features (featureFieldScoring).
 */
export function openSearchSeismicScoring(ceilings: { ingest?: number; search?: number } = {}): EngineScoring {
  const ingest = ceilings.ingest ?? 3;
  const search = ceilings.search ?? 16;
  return {
    documents: each((w) => openSearchByte(featureFieldValue(w), ingest)),
    query: (q) => mapWeights(q, (w) => openSearchByte(w, search)),
  };
}

/** float32 as given (Qdrant's default float32 index, Vespa tensor<float>). */
export const float32Scoring: EngineScoring = { documents: each(Math.fround), query: (q) => mapWeights(q, Math.fround) };

/** Qdrant's uint8 sparse index: documents quantised per posting list, queries float32. */
export const qdrantUint8Scoring: EngineScoring = {
  documents: qdrantUint8Documents,
  query: (q) => mapWeights(q, Math.fround),
};

/** Seismic's Python SeismicIndex: documents as float16, queries float32. */
export const seismicScoring: EngineScoring = { documents: each(float16Value), query: (q) => mapWeights(q, Math.fround) };
