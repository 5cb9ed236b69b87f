// Active-dimension counts on the GPU equal the reference, with rows written at an offset.
import { describe, expect, it } from 'vitest';
import { ActiveDims } from '../../src/kernels/active-dims.ts';
import { activeDimsForward } from '../../src/kernels/reference/active-dims.ts';
import { Random } from '../../src/util/random.ts';
import { gpuContext } from '../helpers/gpu.ts';

describe('active dimensions', () => {
  it.each([
    [1, 1, 0.5],
    [3, 257, 0.3],
    [7, 30522, 0.01],
    [300, 33, 0.9],
  ])('rows=%i V=%i density=%f', async (rows, V, density) => {
    const ctx = await gpuContext();
    const random = new Random(rows + V);
    // zeros, positives and a few negatives (which do not count)
    const x = Float64Array.from({ length: rows * V }, () => (random.next() < density ? 0.01 + random.next() : random.next() < 0.1 ? -1 : 0));
    const offset = 2;
    const counts = ctx.tensor('counts', [offset + rows], 'u32', new Uint32Array(offset + rows).fill(99));
    await ctx.run('active', (enc) => new ActiveDims(ctx, rows, V, offset).forward(enc, { vectors: ctx.tensor('x', [rows, V], 'f32', x), counts }));
    const got = await ctx.read(counts);
    expect([...got.subarray(0, offset)]).toEqual([99, 99]);
    expect([...got.subarray(offset)]).toEqual([...activeDimsForward(x, rows, V)]);
  });
});
