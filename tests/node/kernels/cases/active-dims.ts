// Active-dimension counts and row sums of squares against the reference, with rows written at an offset.
import { ActiveDims } from '../../../../src/kernels/active-dims.ts';
import { activeDimsForward, rowSquares } from '../../../../src/kernels/reference/active-dims.ts';
import { Random } from '../../../../src/util/random.ts';
import type { KernelCase, KernelFamily } from './kernel-case.ts';

function activeDimsCase(rows: number, V: number, density: number): KernelCase {
  return {
    name: `rows=${rows} V=${V} density=${density}`,
    make: () => {
      const random = new Random(rows + V);
      // zeros, positives and a few negatives (which do not count)
      const x = Float64Array.from({ length: rows * V }, () =>
        random.next() < density ? 0.01 + random.next() : random.next() < 0.1 ? -1 : 0,
      );
      const offset = 2;
      return {
        name: `active dims rows=${rows} V=${V}`,
        tensors: {
          vectors: { shape: [rows, V], data: x },
          counts: { shape: [offset + rows], dtype: 'u32', data: new Uint32Array(offset + rows).fill(99) },
          squares: { shape: [offset + rows], data: new Float64Array(offset + rows).fill(-7) },
        },
        build: (ctx, t) => {
          const kernel = new ActiveDims(ctx, rows, V, offset);
          return { record: (enc) => kernel.forward(enc, { vectors: t.vectors, counts: t.counts, squares: t.squares }) };
        },
        // the words before the offset are left alone
        reference: (h) => ({
          counts: [99, 99, ...activeDimsForward(h.vectors, rows, V)],
          squares: [-7, -7, ...rowSquares(h.vectors, rows, V)],
        }),
        checks: { counts: {}, squares: { tol: { rtol: 1e-5, atol: 1e-6 } } },
      };
    },
  };
}

export const activeDims: KernelFamily = {
  family: 'active-dims',
  groups: [
    {
      describe: 'active dimensions',
      cases: [
        activeDimsCase(1, 1, 0.5),
        activeDimsCase(3, 257, 0.3),
        activeDimsCase(7, 30522, 0.01),
        activeDimsCase(300, 33, 0.9),
      ],
    },
  ],
};
