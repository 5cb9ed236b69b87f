// Axis arithmetic of the SVG charts: readable ticks, and a finite tick list (no endless loop) for any ends a chart may
// be handed, zero and infinite ones included.
import { describe, expect, it } from 'vitest';
import { linearScale, logCountScale, logScale } from '../../../src/ui/common/chart-scale.ts';

describe('chart scales', () => {
  it('puts linear ticks at 1, 2 or 5 times a power of ten inside the range', () => {
    expect(linearScale(0, 10, 5).ticks).toEqual([0, 2, 4, 6, 8, 10]);
    expect(linearScale(-0.3, 0.7, 5).ticks).toEqual([-0.2, 0, 0.2, 0.4, 0.6]);
    expect(linearScale(3, 3).ticks).toEqual([3]); // an empty range: its one value
    expect(linearScale(0, 10, 5).fraction(5)).toBe(0.5);
  });

  it('puts log ticks at 1, 2 and 5 times powers of ten', () => {
    expect(logScale(1, 100).ticks).toEqual([1, 2, 5, 10, 20, 50, 100]);
    expect(logScale(1, 100).fraction(10)).toBeCloseTo(0.5, 12);
  });

  it('ends with a short tick list whatever the ends', () => {
    const ends = [0, -1, 1e-320, 5e-324, 1e20, 1e308, Infinity, -Infinity, NaN];
    for (const lo of ends)
      for (const hi of ends) {
        for (const scale of [linearScale(lo, hi, 5), logScale(lo, hi)]) {
          expect(scale.ticks.length, `${lo}..${hi}`).toBeLessThan(2000);
          for (const t of scale.ticks) expect(Number.isFinite(t), `${lo}..${hi}: tick ${t}`).toBe(true);
        }
      }
    // a range narrower than the floating-point spacing of its ends
    expect(linearScale(1e20, 1e20 + 1000, 5).ticks.length).toBeLessThan(20);
    expect(logCountScale(1e6).ticks).toEqual([0, 1, 10, 100, 1000, 1e4, 1e5, 1e6]);
  });
});
