// SciFact (CC BY-NC 2.0, read from the data folder): how much of the float ranking each search engine keeps once it has
// quantised the weights (overlap@10, engine-quantisation.ts), on real text. The vectors are BM25 impacts of
// bert-base-uncased's WordPiece tokens (k1 0.9, b 0.4, scaled to SPLADE's range: the largest weight 3), queries one
// weight per distinct token: learned vectors would need a model run over 5,183 documents, which the CPU tier cannot pay.
import { describe, expect, it } from 'vitest';
import { loadBeir } from '../../src/io/beir/beir.ts';
import { createFolderSource } from '../../src/io/file-source-node.ts';
import { loadTokenizer } from '../../src/io/tokenizer/tokenizer-load.ts';
import {
  anseriniScoring,
  featureFieldScoring,
  float32Scoring,
  openSearchSeismicScoring,
  qdrantUint8Scoring,
  seismicScoring,
  type EngineScoring,
} from '../../src/retrieval/engine-quantisation.ts';
import { rankingOverlap } from '../../src/retrieval/quantised-overlap.ts';
import { sparseFromEntries, type SparseVector } from '../../src/util/sparse-vector.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { dataPath } from './data-folder.ts';

const K1 = 0.9;
const B = 0.4;
/** SPLADE's weights reach about 3: the impacts are scaled so that the largest is this. */
const LARGEST = 3;

async function impactVectors(): Promise<{ documents: SparseVector[]; queries: SparseVector[] }> {
  const tokenizer = await loadTokenizer(createFolderSource(fixturePath('tokenizers/bert-base-uncased')));
  const set = await loadBeir(createFolderSource(dataPath('scifact')), 'test');
  const ids = (text: string) => tokenizer.encode(text, { addSpecialTokens: false }).ids;
  const docs = set.corpusTexts.map(ids);
  const df = new Map<number, number>();
  for (const doc of docs) for (const id of new Set(doc)) df.set(id, (df.get(id) ?? 0) + 1);
  const avgLength = docs.reduce((n, d) => n + d.length, 0) / docs.length;
  const N = docs.length;
  const raw = docs.map((doc) => {
    const tf = new Map<number, number>();
    for (const id of doc) tf.set(id, (tf.get(id) ?? 0) + 1);
    return [...tf].map(([id, f]): [number, number] => {
      const idf = Math.log(1 + (N - df.get(id)! + 0.5) / (df.get(id)! + 0.5));
      return [id, (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * doc.length) / avgLength))];
    });
  });
  const largest = raw.reduce((max, entries) => entries.reduce((m, [, w]) => Math.max(m, w), max), 0);
  const documents = raw.map((entries) => sparseFromEntries(entries.map(([id, w]) => [id, (LARGEST * w) / largest])));
  const queries = set.queryTexts.map((text) => sparseFromEntries([...new Set(ids(text))].map((id) => [id, 1])));
  return { documents, queries };
}

describe('quantised overlap@10 per engine on SciFact (BM25 impacts of its real text)', () => {
  const engines: [string, EngineScoring, number][] = [
    ['Anserini impacts, round(100 w)', anseriniScoring(100), 0.99],
    ['Elasticsearch/OpenSearch rank_features, ES sparse_vector (FeatureField, 9 bits)', featureFieldScoring, 0.99],
    ['OpenSearch sparse_vector SEISMIC bytes, ceilings 3 and 16 (defaults)', openSearchSeismicScoring(), 0.99],
    ['OpenSearch sparse_vector SEISMIC bytes, ceilings 3 and 3', openSearchSeismicScoring({ search: 3 }), 0.99],
    ['Qdrant float32, Vespa tensor<float>', float32Scoring, 0.99],
    ['Qdrant uint8 index', qdrantUint8Scoring, 0.99],
    ['Seismic float16', seismicScoring, 0.99],
  ];
  let vectors: Promise<{ documents: SparseVector[]; queries: SparseVector[] }> | undefined;

  it.each(engines)('%s', async (name, scoring, floor) => {
    const { documents, queries } = await (vectors ??= impactVectors());
    const overlap = rankingOverlap(queries, documents, scoring);
    process.stderr.write(
      `[scifact overlap@10] ${name}: mean ${overlap.mean.toFixed(4)}, lowest ${overlap.min.toFixed(2)} over ${overlap.queries} queries\n`,
    );
    expect(overlap.queries).toBe(300);
    expect(overlap.mean).toBeGreaterThanOrEqual(floor);
  });
});
