// Each engine file passes a reader written here from that engine's documented format (not from our writers' code):
// a strict JSON reader (no repeated key), each engine's key, id and value rules, and the weights read back equal to the
// vectors (float32 exact, or Anserini's integer impacts). Sources: docs/deploy.md, one per engine.
import { describe, expect, it } from 'vitest';
import { exportVectors, vespaSchema, vespaServices, type ExportFormat } from '../../../src/app/evaluation/export-vectors.ts';
import type { SparseVector } from '../../../src/util/sparse-vector.ts';
import { generatedSparseSet } from '../../helpers/generated-sparse-set.ts';
import { asNumber, asObject, asString, parseStrictJson, type StrictJson } from '../../helpers/strict-json.ts';

const set = generatedSparseSet();
const records = set.documents.map((d) => ({ id: d.id, text: d.text }));
const vectors = set.documents.map((d) => d.vector);
const write = (format: ExportFormat, options = {}) => exportVectors(format, records, vectors, set.vocab, options);

/** The float32 weight of each id of vector i. */
const weightsOf = (vector: SparseVector) => new Map([...vector.indices].map((id, j) => [id, vector.values[j]]));

/** A JSON number as a float32 reader takes it. */
const float32 = (value: StrictJson | undefined, what: string) => Math.fround(asNumber(value, what));

/** Lucene FeatureField's bounds (FeatureField.setFeatureValue): finite and at least Float.MIN_NORMAL. */
const featureFieldTakes = (w: number) => Number.isFinite(w) && w >= 2 ** -126;

/** Reads a `_bulk` file: action and source pairs, the source's feature object under `field`, by _id. */
function readBulk(lines: string[], field: string): Map<string, { features: Map<string, StrictJson>; text: string }> {
  expect(lines.length % 2).toBe(0);
  const documents = new Map<string, { features: Map<string, StrictJson>; text: string }>();
  for (let i = 0; i < lines.length; i += 2) {
    const action = asObject(parseStrictJson(lines[i]), `line ${i + 1}`);
    expect([...action.keys()]).toEqual(['index']);
    const meta = asObject(action.get('index'), 'index');
    expect([...meta.keys()]).toEqual(['_id']);
    const id = asString(meta.get('_id'), '_id');
    const bytes = Buffer.byteLength(id, 'utf8');
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(512);
    expect(documents.has(id), `_id ${id} twice`).toBe(false);
    const source = asObject(parseStrictJson(lines[i + 1]), `line ${i + 2}`);
    expect([...source.keys()].sort()).toEqual([field, 'text'].sort());
    documents.set(id, { features: asObject(source.get(field), field), text: asString(source.get('text'), 'text') });
  }
  return documents;
}

describe('Elasticsearch and OpenSearch _bulk files', () => {
  it.each([
    ['es', (t: string) => t.split('.').join('__')],
    ['opensearch', (t: string) => t],
  ] as const)('%s: each feature a vocabulary token by the engine naming, its weight the float32 given', (format, name) => {
    const documents = readBulk(write(format, { field: 'body_splade' }).lines, 'body_splade');
    expect([...documents.keys()]).toEqual(records.map((r) => r.id));
    set.documents.forEach((doc) => {
      const { features, text } = documents.get(doc.id)!;
      expect(text).toBe(doc.text);
      const expected = new Map([...weightsOf(doc.vector)].map(([id, w]) => [name(set.vocab[id]), w]));
      expect(features.size).toBe(expected.size);
      for (const [feature, value] of features) {
        if (format === 'es') expect(feature.includes('.'), feature).toBe(false); // "fields do not support dots in feature names"
        expect(feature.length).toBeGreaterThan(0);
        const w = float32(value, feature);
        expect(featureFieldTakes(w)).toBe(true);
        expect(w, feature).toBe(expected.get(feature));
      }
    });
  });

  it('opensearch-ids: every key a non-negative decimal int Integer.parseInt reads, below the vocabulary size', () => {
    const documents = readBulk(write('opensearch-ids').lines, 'splade');
    set.documents.forEach((doc) => {
      const { features } = documents.get(doc.id)!;
      const expected = weightsOf(doc.vector);
      expect(features.size).toBe(expected.size);
      for (const [key, value] of features) {
        expect(key).toMatch(/^(?:0|[1-9][0-9]*)$/);
        const id = Number(key);
        expect(id).toBeLessThanOrEqual(2 ** 31 - 1);
        expect(id).toBeLessThan(set.vocab.length);
        expect(float32(value, key)).toBe(expected.get(id));
      }
    });
  });
});

describe('Anserini JsonVectorCollection', () => {
  it('reads as Anserini does: a pseudo-document repeating each token asInt() times, split on white space', () => {
    const lines = write('anserini').lines;
    expect(lines).toHaveLength(records.length);
    lines.forEach((line, i) => {
      const json = asObject(parseStrictJson(line), `line ${i + 1}`);
      expect(asString(json.get('id'), 'id')).toBe(records[i].id);
      expect(asString(json.get('contents'), 'contents')).toBe(records[i].text);
      const vector = asObject(json.get('vector'), 'vector');
      const words: string[] = [];
      for (const [token, value] of vector) {
        const count = asNumber(value, token);
        expect(Number.isInteger(count) && count >= 1, `${token}: ${count}`).toBe(true);
        for (let c = 0; c < count; c++) words.push(token);
      }
      const counts = new Map<string, number>();
      for (const word of words.join(' ').split(/\s+/).filter(Boolean)) counts.set(word, (counts.get(word) ?? 0) + 1);
      const expected = new Map<string, number>();
      for (const [id, w] of weightsOf(vectors[i])) {
        const impact = Math.round(100 * w);
        if (impact) expected.set(set.vocab[id], (expected.get(set.vocab[id]) ?? 0) + impact);
      }
      expect(counts).toEqual(expected);
    });
  });
});

describe('Qdrant points', () => {
  it('each point: a uint64 or UUID id, a named sparse vector of unique uint32 indices and float values, a payload', () => {
    const lines = write('qdrant').lines;
    const seen = new Set<string>();
    lines.forEach((line, i) => {
      const point = asObject(parseStrictJson(line), `line ${i + 1}`);
      expect([...point.keys()]).toEqual(['id', 'vector', 'payload']);
      const id = point.get('id');
      if (typeof id === 'string')
        expect(id).toMatch(/^(?:urn:uuid:)?[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i);
      else expect(asNumber(id, 'id')).toSatisfy((n: number) => Number.isSafeInteger(n) && n >= 0);
      const key = JSON.stringify(id);
      expect(seen.has(key), `point id ${key} twice`).toBe(false);
      seen.add(key);
      const named = asObject(asObject(point.get('vector'), 'vector').get('splade'), 'vector.splade');
      expect([...named.keys()]).toEqual(['indices', 'values']);
      const indices = named.get('indices') as StrictJson[];
      const values = named.get('values') as StrictJson[];
      expect(indices).toHaveLength(values.length);
      const ids = indices.map((v) => asNumber(v, 'index'));
      for (const n of ids) expect(Number.isInteger(n) && n >= 0 && n < 2 ** 32).toBe(true);
      expect(new Set(ids).size).toBe(ids.length);
      const expected = weightsOf(vectors[i]);
      expect(new Map(ids.map((n, j) => [n, float32(values[j], 'value')]))).toEqual(expected);
      const payload = asObject(point.get('payload'), 'payload');
      expect(asString(payload.get('doc_id'), 'doc_id')).toBe(records[i].id);
    });
  });
});

/** Vespa's com.yahoo.text.Text.isTextCharacter, written out from vespajlib. */
function vespaTextCharacter(c: number): boolean {
  if (c < 0x20) return c === 9 || c === 10 || c === 13;
  if (c >= 0xd800 && c <= 0xdbff) return false;
  if (c >= 0xfdd0 && c <= 0xfddf) return false;
  if (c >= 0x10000 && (c & 0xffff) >= 0xfffe) return false;
  return true;
}

describe('Vespa feed, schema and services.xml', () => {
  const feed = write('vespa', { vespa: { namespace: 'ns1', doctype: 'passage' } }).lines;
  const schema = vespaSchema({ doctype: 'passage', field: 'splade' });

  it('every put id is id:<namespace>:<document type>::<id> of text characters, the type the schema declares', () => {
    const schemaName = /^schema (\w+) \{/m.exec(schema)![1];
    expect(/^ {4}document (\w+) \{/m.exec(schema)![1]).toBe(schemaName);
    feed.forEach((line, i) => {
      const operation = asObject(parseStrictJson(line), `line ${i + 1}`);
      expect([...operation.keys()]).toEqual(['put', 'fields']);
      const put = asString(operation.get('put'), 'put');
      const match = /^id:([^:]+):([A-Za-z_][A-Za-z0-9_]*):([^:]*):(.+)$/s.exec(put);
      expect(match, put).not.toBeNull();
      const [, namespace, doctype, keyValues, user] = match!;
      expect([namespace, doctype, keyValues, user]).toEqual(['ns1', schemaName, '', records[i].id]);
      for (const char of put) expect(vespaTextCharacter(char.codePointAt(0)!)).toBe(true);
    });
  });

  it("every field is one of the schema's, the tensor<float>(token{}) written as its cells object", () => {
    const declared = new Map([...schema.matchAll(/field (\w+) type (\S+) \{/g)].map((m) => [m[1], m[2]]));
    expect(declared.get('splade')).toBe('tensor<float>(token{})');
    expect(schema).toMatch(/expression: sum\(query\(q\) \* attribute\(splade\)\)/);
    expect(schema).toMatch(/query\(q\) tensor<float>\(token\{\}\)/);
    feed.forEach((line, i) => {
      const fields = asObject(asObject(parseStrictJson(line), 'operation').get('fields'), 'fields');
      for (const name of fields.keys()) expect(declared.has(name), name).toBe(true);
      expect(asString(fields.get('doc_id'), 'doc_id')).toBe(records[i].id);
      const tensor = asObject(fields.get('splade'), 'splade');
      expect([...tensor.keys()]).toEqual(['cells']);
      const cells = asObject(tensor.get('cells'), 'cells');
      const expected = new Map([...weightsOf(vectors[i])].map(([id, w]) => [set.vocab[id], w]));
      expect(new Map([...cells].map(([label, v]) => [label, float32(v, label)]))).toEqual(expected);
    });
  });

  it('services.xml: balanced tags, a splade-embedder on models/model-logits.onnx and tokenizer.json, the feed type', () => {
    const xml = vespaServices({ doctype: 'passage', field: 'splade' });
    const stack: string[] = [];
    for (const [, close, name, selfClosing] of xml
      .replace(/<!--[\s\S]*?-->|<\?[\s\S]*?\?>/g, '')
      .matchAll(/<(\/?)([\w-]+)[^>]*?(\/?)>/g)) {
      if (close) expect(stack.pop()).toBe(name);
      else if (!selfClosing) stack.push(name);
    }
    expect(stack).toEqual([]);
    expect(xml).toMatch(/<component id="splade" type="splade-embedder">/);
    expect(xml).toMatch(/<transformer-model path="models\/model-logits\.onnx" \/>/);
    expect(xml).toMatch(/<tokenizer-model path="models\/tokenizer\.json" \/>/);
    expect(xml).toMatch(/<document type="passage" mode="index" \/>/);
  });
});

describe('Seismic JSONL', () => {
  it('each line the JsonSparseVector SeismicIndex.build reads: an id, content, and a token -> f32 map', () => {
    const lines = write('seismic').lines;
    const tokens = new Set<string>();
    lines.forEach((line, i) => {
      const json = asObject(parseStrictJson(line), `line ${i + 1}`);
      expect([...json.keys()]).toEqual(['id', 'content', 'vector']);
      expect(asString(json.get('id'), 'id')).toBe(records[i].id); // DocIdType: a string or a usize
      expect(asString(json.get('content'), 'content')).toBe(records[i].text);
      const vector = asObject(json.get('vector'), 'vector');
      const expected = new Map([...weightsOf(vectors[i])].map(([id, w]) => [set.vocab[id], w]));
      expect(new Map([...vector].map(([token, v]) => [token, float32(v, token)]))).toEqual(expected);
      for (const token of vector.keys()) tokens.add(token);
    });
    expect(tokens.size).toBeLessThan(2 ** 16); // the default SeismicIndex's u16 component ids
  });
});
