// Embedding lookups (word + RoBERTa positions + token types) and their gather backward against
// src/kernels/reference/embedding.ts, with repeated ids and padding rows that receive no gradient.
import { describe, expect, it } from 'vitest';
import { buildGatherPlan, NO_ROW } from '../../../src/kernels/embedding.ts';
import { describeKernelFamily } from '../../helpers/expect-kernel.ts';
import { layerKernelsEmbedding } from './cases/layer-kernels-embedding.ts';

describeKernelFamily(layerKernelsEmbedding);

describe('embedding kernels', () => {
  it('builds a gather plan: rows ascending, positions ascending per row, padding left out', () => {
    const plan = buildGatherPlan([3, 1, 3, 0, 1, 3], 5, 0);
    expect([...plan.rows]).toEqual([1, 3, NO_ROW, NO_ROW, NO_ROW, NO_ROW]);
    expect([...plan.offsets]).toEqual([0, 2, 5, 5, 5, 5, 5]);
    expect([...plan.positions.slice(0, 5)]).toEqual([1, 4, 0, 2, 5]);
    expect(() => buildGatherPlan([0, 5], 5)).toThrow(/id 5 at flat position 1/);
  });
});
