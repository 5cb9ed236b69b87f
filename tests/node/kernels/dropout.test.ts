// Dropout on the GPU against its float64 reference (the same counter-based mask, bit for bit), in place and copying,
// on odd sizes; the mask's rate, its independence across keys, and the key's dependence on every part.
import { describe, expect, it } from 'vitest';
import { dropoutFactor, dropoutKey } from '../../../src/kernels/reference/dropout.ts';
import { describeKernelFamily } from '../../helpers/expect-kernel.ts';
import { dropout } from './cases/dropout.ts';

describeKernelFamily(dropout);

describe('dropout', () => {
  it('drops about `rate` of the elements, and two keys draw unrelated masks', () => {
    const n = 200_000;
    for (const rate of [0.1, 0.5]) {
      const kept = (key: number) => Array.from({ length: n }, (_, i) => dropoutFactor(key, i, rate) > 0);
      const a = kept(dropoutKey(1, 0, 0, 0));
      const b = kept(dropoutKey(1, 0, 0, 1));
      const dropped = a.filter((k) => !k).length / n;
      expect(Math.abs(dropped - rate)).toBeLessThan(0.005);
      // independent masks agree on a dropped element with probability rate²
      const both = a.filter((k, i) => !k && !b[i]).length / n;
      expect(Math.abs(both - rate * rate)).toBeLessThan(0.005);
    }
  });

  it('a kept element is scaled by 1 / (1 - rate), so the expectation is unchanged', () => {
    const key = dropoutKey(3, 1, 0, 2);
    const factors = Array.from({ length: 100_000 }, (_, i) => dropoutFactor(key, i, 0.2));
    expect(new Set(factors)).toEqual(new Set([0, 1 / 0.8]));
    expect(Math.abs(factors.reduce((a, b) => a + b, 0) / factors.length - 1)).toBeLessThan(0.01);
  });

  it('the key changes with the seed, the step, the micro-batch and the site', () => {
    const base = dropoutKey(1, 2, 3, 4);
    expect(
      new Set([base, dropoutKey(2, 2, 3, 4), dropoutKey(1, 3, 3, 4), dropoutKey(1, 2, 4, 4), dropoutKey(1, 2, 3, 5)]).size,
    ).toBe(5);
    expect(dropoutKey(1, 2, 3, 4)).toBe(base);
  });
});
