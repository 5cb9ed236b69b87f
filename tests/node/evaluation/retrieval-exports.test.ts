// Export formats: Anserini JsonVectorCollection and impact queries, the engine writers' names, ids and refusals
// (collisions, weights and tokens an engine cannot hold, sizes past an engine's default build), TREC runs; efficiency
// figures. The engines' own reading of whole files is in engine-readers.test.ts.
import { describe, expect, it } from 'vitest';
import { exportVectors, EXPORT_FORMATS } from '../../../src/app/evaluation/export-vectors.ts';
import { formatRun, parseRun } from '../../../src/io/beir/trec.ts';
import { averageFlops, efficiencyReport } from '../../../src/retrieval/efficiency.ts';
import { anseriniDocumentLine, anseriniQueryLine } from '../../../src/retrieval/exports.ts';
import { float32Text } from '../../../src/retrieval/weights-json.ts';
import type { Run } from '../../../src/contract/evaluation/run-types.ts';
import { sparseFromEntries, type SparseVector } from '../../../src/util/sparse-vector.ts';
import { asNumber, asObject, parseStrictJson, type StrictJson } from '../../helpers/strict-json.ts';
import { sparseOf } from '../../helpers/sparse-of.ts';

const vocab = ['[PAD]', 'cat', 'dog', 'a.b', '##s', 'tiny'];

const vector = sparseOf([1, 1.234], [2, 0.5], [3, 2], [4, 0.026], [5, 0.004]);

const one = (id: string, v: SparseVector) => ({ records: [{ id, text: 'x' }], vectors: [v] });

/** The name -> weight map of the one vector of a one-record file in `format` (read with the strict reader). */
function namedWeights(format: (typeof EXPORT_FORMATS)[number], lines: string[]): Map<string, number> {
  const json = (i: number) => asObject(parseStrictJson(lines[i]), `line ${i + 1}`);
  const read = (object: StrictJson | undefined) =>
    new Map([...asObject(object, 'vector')].map(([name, w]) => [name, asNumber(w, name)] as const));
  switch (format) {
    case 'anserini':
      return read(json(0).get('vector'));
    case 'seismic':
      return read(json(0).get('vector'));
    case 'es':
    case 'opensearch':
    case 'opensearch-ids':
      return read(json(1).get('splade'));
    case 'vespa':
      return read(asObject(asObject(json(0).get('fields'), 'fields').get('splade'), 'tensor').get('cells'));
    case 'qdrant': {
      const sparse = asObject(asObject(json(0).get('vector'), 'vector').get('splade'), 'splade');
      const indices = (sparse.get('indices') as StrictJson[]).map((v) => asNumber(v, 'index'));
      const values = (sparse.get('values') as StrictJson[]).map((v) => asNumber(v, 'value'));
      return new Map(indices.map((id, j) => [String(id), values[j]]));
    }
  }
}

describe('exports', () => {
  it('Anserini document line: id, contents, token -> round(100 w), dropping weights that quantise to 0', () => {
    const parsed = JSON.parse(anseriniDocumentLine('d7', vector, vocab));
    expect(parsed).toEqual({ id: 'd7', contents: '', vector: { cat: 123, dog: 50, 'a.b': 200, '##s': 3 } });
    expect(JSON.parse(anseriniDocumentLine('d7', vector, vocab, { scale: 10, contents: 'x' }))).toEqual({
      id: 'd7',
      contents: 'x',
      vector: { cat: 12, dog: 5, 'a.b': 20 },
    });
  });

  it('Anserini query line repeats each token by its quantised weight', () => {
    const line = anseriniQueryLine('q1', sparseOf([1, 0.02], [2, 0.011]), vocab);
    const [id, words] = line.split('\t');
    expect(id).toBe('q1');
    expect(words.split(' ').sort()).toEqual(['cat', 'cat', 'dog']);
  });

  // Issue 42 item 1: per-token sums in a plain object found Object.prototype's members ("function toString() {...}86").
  it.each(EXPORT_FORMATS)('%s: a vocabulary of every Object.prototype name writes each as an ordinary token', (format) => {
    const names = [...new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__'])];
    const protoVocab = ['[PAD]', ...names];
    const weights = names.map((_, i) => 0.25 + i / 8);
    const v = sparseFromEntries(weights.map((w, i) => [i + 1, w] as const));
    const { records, vectors } = one('7', v);
    const { lines, warnings } = exportVectors(format, records, vectors, protoVocab);
    expect(warnings).toEqual([]);
    const byId = format === 'qdrant' || format === 'opensearch-ids';
    const expected = new Map(
      names.map((name, i) => [
        byId ? String(i + 1) : name,
        format === 'anserini' ? Math.round(100 * weights[i]) : Math.fround(weights[i]),
      ]),
    );
    expect(namedWeights(format, lines)).toEqual(expected);
  });

  it('es names "." as "__" (Elasticsearch\'s inference naming), opensearch keeps tokens, opensearch-ids writes ids', () => {
    const v = sparseOf([1, 1], [3, 2]);
    const { records, vectors } = one('d', v);
    expect(namedWeights('es', exportVectors('es', records, vectors, vocab).lines)).toEqual(
      new Map([
        ['cat', 1],
        ['a__b', 2],
      ]),
    );
    expect(namedWeights('opensearch', exportVectors('opensearch', records, vectors, vocab).lines)).toEqual(
      new Map([
        ['cat', 1],
        ['a.b', 2],
      ]),
    );
    expect(namedWeights('opensearch-ids', exportVectors('opensearch-ids', records, vectors, vocab).lines)).toEqual(
      new Map([
        ['1', 1],
        ['3', 2],
      ]),
    );
  });

  it('es refuses a file where "x.y" and a real "x__y" would be one feature, naming both; either alone is written', () => {
    const clash = ['[PAD]', 'x.y', 'x__y'];
    const both = [sparseOf([1, 1]), sparseOf([2, 1])];
    const records = [
      { id: 'a', text: '' },
      { id: 'b', text: '' },
    ];
    expect(() => exportVectors('es', records, both, clash)).toThrow(/"x__y" from ids 1 \("x\.y"\), 2 \("x__y"\).*opensearch-ids/);
    expect(exportVectors('es', records.slice(0, 1), both.slice(0, 1), clash).lines).toHaveLength(2);
    expect(exportVectors('opensearch', records, both, clash).lines).toHaveLength(4);
  });

  it.each(['opensearch', 'vespa', 'seismic'] as const)(
    '%s refuses two ids spelling one token; anserini adds them, said',
    (format) => {
      const twice = ['[PAD]', 'x', 'x'];
      const { records, vectors } = one('d', sparseOf([1, 0.5], [2, 0.25]));
      expect(() => exportVectors(format, records, vectors, twice)).toThrow(/"x" from ids 1 \("x"\), 2 \("x"\)/);
      const anserini = exportVectors('anserini', records, vectors, twice);
      expect(namedWeights('anserini', anserini.lines)).toEqual(new Map([['x', 75]]));
      expect(anserini.warnings.join()).toMatch(/share one posting list/);
    },
  );

  it('leaves out what an engine cannot hold and says so: FeatureField below 2^-126, Anserini tokens with white space', () => {
    const odd = ['[PAD]', 'cat', 'two words'];
    const { records, vectors } = one('d', sparseOf([1, 1e-39], [2, 1]));
    const es = exportVectors('es', records, vectors, odd);
    expect(namedWeights('es', es.lines)).toEqual(new Map([['two words', 1]]));
    expect([es.dropped, es.warnings.join()]).toEqual([1, expect.stringMatching(/2\^-126/)]);
    const anserini = exportVectors('anserini', one('d', sparseOf([1, 1], [2, 1])).records, [sparseOf([1, 1], [2, 1])], odd);
    expect(namedWeights('anserini', anserini.lines)).toEqual(new Map([['cat', 100]]));
    expect([anserini.dropped, anserini.warnings.join()]).toEqual([1, expect.stringMatching(/white space \("two words"\)/)]);
  });

  it('seismic: past 65,535 distinct tokens the default SeismicIndex stops, so SeismicIndexLV is named', () => {
    const big = Array.from({ length: 70_000 }, (_, i) => `t${i}`);
    const many = sparseFromEntries(Array.from({ length: 65_536 }, (_, i) => [i, 1] as const));
    expect(exportVectors('seismic', [{ id: 'd', text: '' }], [many], big).warnings.join()).toMatch(
      /65536 distinct tokens.*SeismicIndexLV/,
    );
    const few = exportVectors('seismic', [{ id: 'd', text: '' }], [sparseOf([1, 1])], big).warnings.join();
    expect(few).toMatch(/70000 tokens.*uses 1, which fits.*SeismicIndexLV/);
  });

  it('opensearch-ids warns that SEISMIC folds ids modulo 32768 for a vocabulary larger than that', () => {
    const big = Array.from({ length: 50_368 }, (_, i) => `t${i}`);
    const { records, vectors } = one('d', sparseOf([40_000, 1]));
    expect(exportVectors('opensearch-ids', records, vectors, big).warnings.join()).toMatch(/modulo 32768/);
  });

  it('vespa refuses a byte-level BPE vocabulary (its embedder decodes "Ġthe" to " the") and ids it cannot hold', () => {
    const bpe = ['<s>', ...Array.from({ length: 20 }, (_, i) => `\u0120w${i}`)];
    const { records, vectors } = one('d', sparseOf([1, 1]));
    expect(() => exportVectors('vespa', records, vectors, bpe)).toThrow(/tokenizer\.decode/);
    expect(() => exportVectors('vespa', [{ id: 'a\u0001b', text: '' }], vectors, vocab)).toThrow(/U\+0001/);
    expect(exportVectors('vespa', [{ id: 'a:b/c d', text: '' }], vectors, vocab).lines[0]).toMatch(
      /^\{"put":"id:splade:doc::a:b\/c d"/,
    );
  });

  it('qdrant keeps unsigned-integer or UUID record ids, and numbers the points by line otherwise, said', () => {
    const v = [sparseOf([1, 1]), sparseOf([2, 1])];
    const ids = (recordIds: string[]) => {
      const out = exportVectors(
        'qdrant',
        recordIds.map((id) => ({ id, text: '' })),
        v,
        vocab,
      );
      return { ids: out.lines.map((l) => JSON.parse(l).id), warned: out.warnings.length > 0 };
    };
    expect(ids(['12', '7'])).toEqual({ ids: [12, 7], warned: false });
    const uuid = '550e8400-e29b-41d4-a716-446655440000';
    expect(ids([uuid, '3'])).toEqual({ ids: [uuid, 3], warned: false });
    expect(ids(['d1', '7'])).toEqual({ ids: [0, 1], warned: true });
    expect(ids(['07', '7'])).toEqual({ ids: [0, 1], warned: true });
  });

  it('writes each weight as the shortest decimal of its exact float32 value, read back exactly as a double too', () => {
    for (const w of [1, 0.5, 0.1, 1.234, 2.55, 1e-7, 3.4e38, 2 ** -126]) {
      const f = Math.fround(w);
      expect(Number(float32Text(f))).toBe(f);
    }
    expect(float32Text(Math.fround(0.1))).toBe('0.10000000149011612');
    expect(() => float32Text(Number.NaN)).toThrow(/not finite/);
  });

  it('refuses ids beyond the vocabulary', () => {
    expect(() => anseriniDocumentLine('d', sparseOf([99, 1]), vocab)).toThrow(/no token for id 99/);
  });

  it('TREC run: six columns, ranks 1..n in score order, ties by id descending, scores that read back identically', () => {
    const run: Run = new Map([
      [
        'q1',
        new Map([
          ['a', 0.1 + 0.2],
          ['b', 2],
          ['c', 0.1 + 0.2],
        ]),
      ],
    ]);
    const text = formatRun(run, 'tag');
    expect(
      text
        .trim()
        .split('\n')
        .map((l) => l.split(' ').slice(0, 4).join(' ')),
    ).toEqual(['q1 Q0 b 1', 'q1 Q0 c 2', 'q1 Q0 a 3']);
    expect(parseRun(text).run).toEqual(run);
    expect(() => formatRun(run, 'two words')).toThrow(/one word/);
  });
});

describe('efficiency figures', () => {
  it('active dimensions and avg_flops = sum_j P(query uses j) P(document uses j)', () => {
    const queries = [sparseOf([0, 1], [1, 1]), sparseOf([1, 1])];
    const docs = [sparseOf([1, 1], [2, 1], [3, 1]), sparseOf([0, 1]), sparseOf([1, 1]), sparseOf([3, 1])];
    // dim 0: q 1/2, d 1/4; dim 1: q 2/2, d 2/4 -> 1/8 + 1/2
    expect(averageFlops(queries, docs, 4)).toBeCloseTo(1 / 8 + 1 / 2, 12);
    const report = efficiencyReport(queries, docs, 4);
    expect(report.query_active_dims).toBe(1.5);
    expect(report.corpus_active_dims).toBe(1.5);
    expect(report.corpus_sparsity_ratio).toBeCloseTo(1 - 1.5 / 4, 12);
  });
});
