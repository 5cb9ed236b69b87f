// What `splade-lab mine` reads and writes, without a GPU: BEIR qrels and query-positive pairs joined into a mining set
// (unknown ids and queries without a positive skipped and counted, repeated texts merged as sentence-transformers
// merges them), and the mined rows as TSV and JSONL that train's own readers take back (the labeled pair refused).
import { describe, expect, it } from 'vitest';
import { readMiningSet } from '../../../src/app/training/mining-input.ts';
import { formatMinedRows, minedFileKind } from '../../../src/io/triplets/mined-rows-text.ts';
import type { MinedRow, OutputFormat } from '../../../src/contract/training/mined-rows.ts';
import { miningSetFromPairs, miningSetFromQrels } from '../../../src/contract/training/mining-set.ts';
import { parseTripletsJsonl } from '../../../src/io/triplets/triplets-jsonl.ts';
import { parseTriplets } from '../../../src/io/triplets/triplets.ts';

const doc = (id: string, text: string) => ({ id, text });
const judged = (...rows: [string, string, number][]) => {
  const qrels = new Map<string, Map<string, number>>();
  for (const [q, d, score] of rows) qrels.set(q, (qrels.get(q) ?? new Map()).set(d, score));
  return qrels;
};

const CORPUS = [doc('d1', 'the cat sat'), doc('d2', 'a dog ran'), doc('d3', 'the cat sat'), doc('d4', '  '), doc('d5', 'sea')];

describe('the mining set from qrels', () => {
  it('skips and counts unknown documents and queries and queries with no positive, and merges repeated texts', () => {
    const queries = [doc('q1', 'cats'), doc('q2', 'dogs'), doc('q3', 'fish'), doc('q4', 'cats'), doc('q5', 'other split')];
    const qrels = judged(
      ['q1', 'd1', 1],
      ['q1', 'dX', 1],
      ['q2', 'd2', 0],
      ['q3', 'd4', 2],
      ['q4', 'd3', 1],
      ['q4', 'd5', 1],
      ['qZ', 'd1', 1],
    );
    const set = miningSetFromQrels(CORPUS, queries, qrels, 'qrels.tsv');
    expect(set.documents).toEqual(['the cat sat', 'a dog ran', 'sea']);
    expect(set.documentIds).toEqual(['d1', 'd2', 'd5']);
    // q4 shares q1's text: one query; d3 is d1's text: one document, so q4's d3 is q1's d1
    expect(set.queries).toEqual([{ name: 'q1', text: 'cats', positives: [0, 2] }]);
    expect(set.notes).toEqual({
      emptyDocuments: 1,
      duplicateDocuments: 1,
      unjudgedQueries: 1,
      unknownQueries: ['qZ'],
      unknownDocuments: { count: 2, examples: ['dX', 'd4'] },
      withoutPositive: ['q2', 'q3'],
      mergedQueries: 1,
    });
  });

  it('refuses a join that leaves no query, saying what it left out', () => {
    expect(() => miningSetFromQrels(CORPUS, [doc('q1', 'cats')], judged(['q1', 'dX', 1], ['q9', 'd1', 1]), 'qrels.tsv')).toThrow(
      'qrels.tsv: no query with a positive in the corpus is left to mine negatives for: 1 judged query ids are absent from the queries (e.g. "q9"); ' +
        '1 positives name documents absent from the corpus (e.g. "dX"); 1 queries have no positive (e.g. "q1")',
    );
  });
});

describe('the mining set from pairs', () => {
  it('makes the positives the corpus when there is none, and finds them by text in a corpus', () => {
    const pairs = [
      { query: doc('p:1', 'cats'), positive: 'the cat sat' },
      { query: doc('p:2', 'cats'), positive: 'a cat' },
      { query: doc('p:3', 'dogs'), positive: 'a dog ran' },
    ];
    const alone = miningSetFromPairs(pairs, [], 'p');
    expect(alone.documents).toEqual(['the cat sat', 'a cat', 'a dog ran']);
    expect(alone.queries.map((q) => [q.name, q.positives])).toEqual([
      ['p:1', [0, 1]],
      ['p:3', [2]],
    ]);
    const joined = miningSetFromPairs(pairs, CORPUS, 'p');
    expect(joined.documents).toEqual(['the cat sat', 'a dog ran', 'sea', 'a cat']);
    expect(joined.queries.map((q) => q.positives)).toEqual([[0, 3], [1]]);
  });

  it('reads TSV and JSONL pairs, naming the file and line of a bad one', () => {
    const bytes = (text: string) => new TextEncoder().encode(text);
    const tsv = readMiningSet({ pairs: { bytes: bytes('query\tpositive\ncats\tthe cat sat\n'), name: 'pairs.tsv' } });
    expect(tsv.set.queries).toEqual([{ name: 'pairs.tsv:2', text: 'cats', positives: [0] }]);
    const jsonl = readMiningSet({ pairs: { bytes: bytes('{"anchor": "cats", "positive": "the cat sat"}\n'), name: 'p.jsonl' } });
    expect(jsonl.set.queries[0].text).toBe('cats');
    expect(() => readMiningSet({ pairs: { bytes: bytes('cats\tthe cat\textra\n'), name: 'bad.tsv' } })).toThrow(
      'bad.tsv line 1: 3 tab-separated fields, expected 2 (query, positive)',
    );
    expect(() => readMiningSet({ pairs: { bytes: bytes('{"query": "cats"}\n'), name: 'bad.jsonl' } })).toThrow(
      'bad.jsonl line 1: "positive" must be a string, got nothing',
    );
  });
});

describe('mined rows as files train reads', () => {
  const texts = { queries: ['cats', 'dogs'], documents: ['the cat sat', 'a dog ran', 'sea', 'a tree'] };
  const tuple = (query: number, positive: number, negatives: number[], labels?: number[]): MinedRow => ({
    kind: 'tuple',
    query,
    positive,
    negatives,
    ...(labels ? { labels } : {}),
  });
  const text = (rows: MinedRow[], format: OutputFormat, path: string) =>
    formatMinedRows(rows, format, minedFileKind(path) === 'tsv' ? 'tsv' : 'jsonl', texts, 2);

  it.each(['out.tsv', 'out.jsonl'])('%s: train reads a triplet file and an n-tuple file back row for row', (path) => {
    const parse = path.endsWith('.tsv') ? parseTriplets : parseTripletsJsonl;
    const triplets = parse(text([tuple(0, 0, [2]), tuple(0, 0, [3]), tuple(1, 1, [2])], 'triplet', path), path).triplets;
    expect(triplets).toEqual([
      { query: 'cats', positive: 'the cat sat', negative: 'sea' },
      { query: 'cats', positive: 'the cat sat', negative: 'a tree' },
      { query: 'dogs', positive: 'a dog ran', negative: 'sea' },
    ]);
    const tuples = parse(text([tuple(0, 0, [2, 3])], 'n-tuple', path), path).triplets;
    expect(tuples).toEqual([{ query: 'cats', positive: 'the cat sat', negative: 'sea', extraNegatives: ['a tree'] }]);
  });

  it('writes labeled-list with its labels, which train reads as a row of negatives with labels', () => {
    const jsonl = text([tuple(0, 0, [2, 3], [1, 0, 0])], 'labeled-list', 'out.jsonl');
    expect(JSON.parse(jsonl)).toEqual({
      query: 'cats',
      positive: 'the cat sat',
      negatives: ['sea', 'a tree'],
      labels: [1, 0, 0],
    });
    expect(parseTripletsJsonl(jsonl, 'out.jsonl').triplets[0].label).toEqual([1, 0, 0]);
  });

  it('writes labeled-pair rows that train refuses (one passage per row, no negative)', () => {
    const rows: MinedRow[] = [
      { kind: 'pair', query: 0, passage: 0, label: 1 },
      { kind: 'pair', query: 0, passage: 2, label: 0 },
    ];
    const jsonl = text(rows, 'labeled-pair', 'out.jsonl');
    expect(jsonl.split('\n')[1]).toBe('{"query":"cats","passage":"sea","label":0}');
    expect(() => parseTripletsJsonl(jsonl, 'out.jsonl')).toThrow('out.jsonl line 1: "positive" must be a string, got nothing');
    expect(() => text(rows, 'labeled-pair', 'out.tsv')).toThrow(/as triplets \(the label as the negative\)/);
  });
});
