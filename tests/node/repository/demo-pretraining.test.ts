// The demo backbone's pretraining pieces: WordNet data lines as documents, document frequencies and the stripping of
// frequent ids, and the randomized SVD of the warm start against the exact eigenvalues of a small symmetric matrix.
import { describe, expect, it } from 'vitest';
import { synsetDocument } from '../../../scripts/demo/wordnet-corpus.ts';
import {
  documentFrequencies,
  jacobiEigen,
  symmetricTopVectors,
  withoutMostFrequent,
  type Csr,
} from '../../../scripts/demo/cooccurrence-embeddings.ts';
import { backgroundDirection, centredRows, scaleForMeanNorm } from '../../../scripts/demo/pretrain-demo-backbone.ts';
import { Random } from '../../../src/util/random.ts';

describe('demo pretraining', () => {
  it('turns a WordNet data line into its words and gloss; licence lines are skipped', () => {
    const line =
      '10038620 18 n 03 doctor 0 doc 0 physician 0 002 @ 10600308 n 0000 | a licensed medical practitioner; "I felt so bad I went to see the doctor!"  ';
    expect(synsetDocument(line)).toBe(
      'doctor, doc, physician: a licensed medical practitioner; I felt so bad I went to see the doctor!',
    );
    expect(synsetDocument("00001740 03 a 01 able(a) 0 000 | (usually followed by `to') having the necessary means")).toMatch(
      /^able: \(usually/,
    );
    expect(synsetDocument('  1 This software and database is being provided to you')).toBeNull();
    expect(() => synsetDocument('not a data line')).toThrow(/not a WordNet data line/);
  });

  it('counts document frequencies once per document and strips the most frequent ids (ties by the smaller id)', () => {
    const documents = [[1, 1, 2, 3], [2, 3, 4], [3, 0], [5]];
    const df = documentFrequencies(documents, 6);
    expect([...df]).toEqual([1, 1, 2, 3, 1, 1]);
    const { documents: stripped, dropped } = withoutMostFrequent(documents, df, 2);
    expect(dropped).toEqual([3, 2]);
    expect(stripped.map((ids) => [...ids])).toEqual([[1, 1], [4], [0], [5]]);
    expect(withoutMostFrequent(documents, df, 3).dropped).toEqual([3, 2, 0]);
  });

  it('the randomized SVD finds the leading eigenvalues of a symmetric matrix', () => {
    const n = 30;
    const random = new Random(2);
    // A = Q diag(10, 6, 3, small...) Qᵀ, dense, stored as CSR
    const values = Array.from({ length: n }, (_, i) => (i < 3 ? [10, 6, 3][i] : 0.01 * random.next()));
    const Q = new Float64Array(n * n);
    for (let i = 0; i < n * n; i++) Q[i] = random.normal();
    for (let k = 0; k < n; k++) {
      for (let p = 0; p < k; p++) {
        let dot = 0;
        for (let i = 0; i < n; i++) dot += Q[i * n + k] * Q[i * n + p];
        for (let i = 0; i < n; i++) Q[i * n + k] -= dot * Q[i * n + p];
      }
      const norm = Math.hypot(...Array.from({ length: n }, (_, i) => Q[i * n + k]));
      for (let i = 0; i < n; i++) Q[i * n + k] /= norm;
    }
    const A = new Float64Array(n * n);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) for (let k = 0; k < n; k++) A[i * n + j] += Q[i * n + k] * values[k] * Q[j * n + k];
    const csr: Csr = {
      rowStart: Uint32Array.from({ length: n + 1 }, (_, i) => i * n),
      columns: Uint32Array.from({ length: n * n }, (_, e) => e % n),
      values: A,
    };
    const U = symmetricTopVectors(csr, n, 3, new Random(1));
    // the columns' squared norms are the eigenvalues (U = V sqrt(lambda))
    const found = [0, 1, 2].map((k) => Array.from({ length: n }, (_, i) => U[i * 3 + k] ** 2).reduce((a, b) => a + b, 0));
    found.forEach((value, k) => expect(value).toBeCloseTo([10, 6, 3][k], 6));
    const exact = jacobiEigen(A, n).values.sort((a, b) => b - a);
    expect(exact[0]).toBeCloseTo(10, 9);
    expect(exact[2]).toBeCloseTo(3, 9);
  });

  it("the warm start's background: unit rows centred and orthogonal to a zero-mean shared direction, scaled to the mean norm", () => {
    const dim = 8;
    const vocabSize = 6;
    const random = new Random(4);
    const vectors = Float32Array.from({ length: vocabSize * dim }, (_, i) => (i < 4 * dim ? 1 + random.next() : 0));
    const others = Float32Array.from({ length: vocabSize * dim }, () => random.normal());
    const shared = backgroundDirection(dim);
    expect(shared.reduce((a, b) => a + b, 0)).toBeCloseTo(0, 12); // LayerNorm keeps it
    expect(Math.hypot(...shared)).toBeCloseTo(1, 12);
    const hasVector = (id: number) => id < 4;
    const rows = centredRows(vectors, others, vocabSize, dim, hasVector, shared);
    const row = (id: number) => rows.subarray(id * dim, (id + 1) * dim);
    for (let id = 0; id < vocabSize; id++) {
      expect(Math.hypot(...row(id))).toBeCloseTo(1, 12);
      expect(row(id).reduce((sum, x, k) => sum + x * shared[k], 0)).toBeCloseTo(0, 12);
    }
    // the rows with vectors had their mean taken out before normalising: far from one shared direction
    const cosine = row(0).reduce((sum, x, k) => sum + x * row(1)[k], 0);
    expect(cosine).toBeLessThan(0.9);
    const length = Float64Array.from([1, 2, 3, 4, 1, 1]);
    const c = scaleForMeanNorm(length, 1, 2.5);
    const mean = length.reduce((sum, l) => sum + Math.hypot(c * l, 1), 0) / length.length;
    expect(mean).toBeCloseTo(2.5, 9);
  });
});
