// Export formats: Anserini JsonVectorCollection and impact queries, Qdrant, rank_features, TREC runs; efficiency figures.
import { describe, expect, it } from 'vitest';
import { formatRun, parseRun } from '../../../src/io/trec.ts';
import { averageFlops, efficiencyReport } from '../../../src/retrieval/efficiency.ts';
import { anseriniDocumentLine, anseriniQueryLine, qdrantSparseVector, rankFeatures } from '../../../src/retrieval/exports.ts';
import type { Run } from '../../../src/contract/run-types.ts';
import { sparseFromEntries } from '../../../src/util/sparse-vector.ts';

const vocab = ['[PAD]', 'cat', 'dog', 'a.b', '##s', 'tiny'];

const vector = sparseFromEntries([
  [1, 1.234],
  [2, 0.5],
  [3, 2],
  [4, 0.026],
  [5, 0.004],
]);

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
    const line = anseriniQueryLine(
      'q1',
      sparseFromEntries([
        [1, 0.02],
        [2, 0.011],
      ]),
      vocab,
    );
    const [id, words] = line.split('\t');
    expect(id).toBe('q1');
    expect(words.split(' ').sort()).toEqual(['cat', 'cat', 'dog']);
  });

  it('Qdrant gets parallel indices and values arrays', () => {
    const q = qdrantSparseVector(vector);
    expect(q.indices).toEqual([1, 2, 3, 4, 5]);
    expect(q.values).toEqual(Array.from(vector.values));
    expect(JSON.parse(JSON.stringify(q))).toEqual(q);
  });

  it('rank_features drops dotted tokens and non-positive weights, counting them, or renames dots on request', () => {
    const withNegative = sparseFromEntries([
      [1, 1],
      [2, -1],
      [3, 2],
    ]);
    const dropped = rankFeatures(withNegative, vocab);
    expect(dropped).toEqual({ features: { cat: 1 }, droppedNonPositive: 1, droppedDotted: 1 });
    expect(rankFeatures(withNegative, vocab, { dotReplacement: '_' }).features).toEqual({ cat: 1, a_b: 2 });
  });

  it('refuses ids beyond the vocabulary', () => {
    expect(() => anseriniDocumentLine('d', sparseFromEntries([[99, 1]]), vocab)).toThrow(/no token for id 99/);
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
    const queries = [
      sparseFromEntries([
        [0, 1],
        [1, 1],
      ]),
      sparseFromEntries([[1, 1]]),
    ];
    const docs = [
      sparseFromEntries([
        [1, 1],
        [2, 1],
        [3, 1],
      ]),
      sparseFromEntries([[0, 1]]),
      sparseFromEntries([[1, 1]]),
      sparseFromEntries([[3, 1]]),
    ];
    // dim 0: q 1/2, d 1/4; dim 1: q 2/2, d 2/4 -> 1/8 + 1/2
    expect(averageFlops(queries, docs, 4)).toBeCloseTo(1 / 8 + 1 / 2, 12);
    const report = efficiencyReport(queries, docs, 4);
    expect(report.query_active_dims).toBe(1.5);
    expect(report.corpus_active_dims).toBe(1.5);
    expect(report.corpus_sparsity_ratio).toBeCloseTo(1 - 1.5 / 4, 12);
  });
});
