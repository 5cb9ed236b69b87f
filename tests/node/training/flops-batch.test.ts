// The FLOPS term at another batch size, estimated from one batch's FLOPS and squared norms, matches the mean FLOPS of
// batches of that size drawn from the same vectors.
import { describe, expect, it } from 'vitest';
import { flopsLossForward } from '../../../src/kernels/reference/flops-loss.ts';
import { rowSquares } from '../../../src/kernels/reference/active-dims.ts';
import { flopsAtBatch } from '../../../src/contract/training/flops-batch.ts';
import { Random } from '../../../src/util/random.ts';

const V = 40;

/** A sparse non-negative vector: dimension j is active with its own probability, weights exponential. */
function draw(random: Random, rate: Float64Array): number[] {
  return Array.from({ length: V }, (_, j) => (random.next() < rate[j] ? -Math.log(1 - random.next()) * (1 + j / V) : 0));
}

function meanOver<T>(items: T[], f: (item: T) => number): number {
  return items.reduce((sum, item) => sum + f(item), 0) / items.length;
}

describe('FLOPS at another batch size', () => {
  const random = new Random(7);
  const rate = Float64Array.from({ length: V }, (_, j) => 0.02 + (0.4 * ((j * 7) % V)) / V);
  const batch = (rows: number) => Float64Array.from(Array.from({ length: rows }, () => draw(random, rate)).flat());
  const flops = (data: Float64Array, rows: number) => flopsLossForward(data, rows, V);

  it.each([
    [4, 64],
    [16, 64],
    [128, 8],
  ])('batches of %i estimate the mean FLOPS of batches of %i', (rows, target) => {
    const trials = 1200;
    const direct = meanOver(
      Array.from({ length: trials }, () => batch(target)),
      (b) => flops(b, target),
    );
    const estimated = meanOver(
      Array.from({ length: trials }, () => batch(rows)),
      (b) => {
        const meanSquare = rowSquares(b, rows, V).reduce((a, x) => a + x, 0) / rows;
        return flopsAtBatch(flops(b, rows), meanSquare, rows, target);
      },
    );
    const plain = meanOver(
      Array.from({ length: trials }, () => batch(rows)),
      (b) => flops(b, rows),
    );
    // the batch-size effect is real here (the plain FLOPS of the small batch is off by more than 5%) ...
    expect(Math.abs(plain - direct) / direct).toBeGreaterThan(0.05);
    // ... and the estimate removes it
    expect(Math.abs(estimated - direct) / direct).toBeLessThan(0.02);
  });

  it('is the batch FLOPS itself at the same size, and NaN from one row', () => {
    const b = batch(5);
    const meanSquare = rowSquares(b, 5, V).reduce((a, x) => a + x, 0) / 5;
    expect(flopsAtBatch(flops(b, 5), meanSquare, 5, 5)).toBeCloseTo(flops(b, 5), 12);
    expect(flopsAtBatch(1, 2, 1, 64)).toBeNaN();
  });
});
