// Each engine's stored form of a weight, checked against the engine's own rule written out here (Lucene FeatureField's
// bits, OpenSearch's ByteQuantizer test values, IEEE half precision, Qdrant's per-list uint8), and overlap@10 between
// splade-lab's float ranking and each engine's ranking on its own quantised values, on the generated set (>= 0.99).
import { describe, expect, it } from 'vitest';
import {
  anseriniScoring,
  featureFieldScoring,
  featureFieldValue,
  float16Value,
  float32Scoring,
  openSearchByte,
  openSearchSeismicScoring,
  qdrantUint8Documents,
  qdrantUint8Scoring,
  seismicScoring,
  type EngineScoring,
} from '../../../src/retrieval/engine-quantisation.ts';
import { rankingOverlap } from '../../../src/retrieval/quantised-overlap.ts';
import { Random } from '../../../src/util/random.ts';
import { sparseFromEntries } from '../../../src/util/sparse-vector.ts';
import { generatedSparseSet } from '../../helpers/generated-sparse-set.ts';

/** Float.intBitsToFloat(Float.floatToIntBits(w) >>> 15 << 15), through a DataView. */
function luceneFeatureValue(w: number): number {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, w);
  view.setUint32(0, (view.getUint32(0) >>> 15) * 2 ** 15);
  return view.getFloat32(0);
}

describe('stored forms', () => {
  it('FeatureField keeps 9 significant bits: the float32 truncated to 8 stored mantissa bits, error under 2^-8', () => {
    const random = new Random(3);
    for (let i = 0; i < 2000; i++) {
      const w = Math.fround(3 * random.next() ** 3 + 1e-6);
      const stored = featureFieldValue(w);
      expect(stored).toBe(luceneFeatureValue(w));
      expect(stored).toBeLessThanOrEqual(w);
      expect((w - stored) / w).toBeLessThan(2 ** -8);
    }
    expect(featureFieldValue(1.2345)).toBe(1.234375);
    expect([featureFieldValue(0), featureFieldValue(-1), featureFieldValue(1e-39), featureFieldValue(Infinity)]).toEqual([
      0, 0, 0, 0,
    ]);
  });

  it("OpenSearch's byte quantiser gives its own test's values (ceiling 3: 0 -> 0, 1.5 -> 128, 3 -> 255, clamped)", () => {
    expect([0, 1.5, 3, -1, 4].map((w) => openSearchByte(w, 3))).toEqual([0, 128, 255, 0, 255]);
    expect(openSearchByte(8, 16)).toBe(128);
  });

  it('float16 rounds to nearest, ties to even, and saturates at 65504', () => {
    expect(float16Value(1)).toBe(1);
    expect(float16Value(0.1)).toBe(0.0999755859375);
    expect(float16Value(1 + 2 ** -11)).toBe(1); // a tie: to the even mantissa
    expect(float16Value(1 + 3 * 2 ** -11)).toBe(1 + 2 ** -9);
    expect(float16Value(2 ** -24)).toBe(2 ** -24); // the smallest subnormal
    expect(float16Value(2 ** -25)).toBe(0);
    expect(float16Value(3 * 2 ** -25)).toBe(2 ** -23);
    expect([float16Value(65504), float16Value(1e5)]).toEqual([65504, 65504]);
  });

  it("Qdrant's uint8 index quantises each posting list between its own min and max", () => {
    const docs = [0.5, 1, 3].map((w) => sparseFromEntries([[7, w]]));
    const diff = Math.fround(Math.fround(3 - 0.5) / 255);
    const stored = qdrantUint8Documents([...docs, sparseFromEntries([[9, 0.7]])]).map((v) => v.values[0]);
    expect(stored).toEqual([
      0.5,
      Math.fround(0.5 + Math.fround(51 * diff)),
      Math.fround(0.5 + Math.fround(255 * diff)),
      Math.fround(0.7),
    ]);
  });
});

describe('overlap@10 of each engine with the float ranking, generated set', () => {
  const set = generatedSparseSet();
  const documents = set.documents.map((d) => d.vector);
  const queries = set.queries.map((q) => q.vector);

  const engines: [string, EngineScoring][] = [
    ['Anserini impacts, round(100 w)', anseriniScoring(100)],
    ['Elasticsearch/OpenSearch rank_features, ES sparse_vector (FeatureField, 9 bits)', featureFieldScoring],
    ['OpenSearch sparse_vector SEISMIC bytes, ceilings 3 (ingest) and 16 (search, default)', openSearchSeismicScoring()],
    [
      'OpenSearch sparse_vector SEISMIC bytes, ceilings 3 and 3 (advised for bi-encoders)',
      openSearchSeismicScoring({ search: 3 }),
    ],
    ['Qdrant float32, Vespa tensor<float>', float32Scoring],
    ['Qdrant uint8 index', qdrantUint8Scoring],
    ['Seismic float16', seismicScoring],
  ];

  it.each(engines)('%s: at least 0.99', (_, scoring) => {
    const overlap = rankingOverlap(queries, documents, scoring);
    expect(overlap.queries).toBe(queries.length);
    expect(overlap.mean).toBeGreaterThanOrEqual(0.99);
  });

  it('the quantisations do change the stored weights (the overlaps above measure something)', () => {
    for (const [name, scoring] of engines.filter(([n]) => !n.startsWith('Qdrant float32'))) {
      const stored = scoring.documents(documents);
      const changed = stored.some((v, d) => v.values.some((w, i) => w !== documents[d].values[i]));
      expect(changed, name).toBe(true);
    }
  });

  it('and a coarse quantisation is caught: round(w) and round(10 w) fall under 0.99', () => {
    expect(rankingOverlap(queries, documents, anseriniScoring(1)).mean).toBeLessThan(0.9);
    expect(rankingOverlap(queries, documents, anseriniScoring(10)).mean).toBeLessThan(0.99);
  });
});
