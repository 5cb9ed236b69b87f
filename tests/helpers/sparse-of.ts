// Sparse vectors written inline in tests: one [dimension, weight] pair per argument, so that each stays on one line.
import { sparseFromEntries, type SparseVector } from '../../src/util/sparse-vector.ts';

/** sparseFromEntries of the pairs given (a repeated dimension summed, as there). */
export const sparseOf = (...entries: (readonly [number, number])[]): SparseVector => sparseFromEntries(entries);
