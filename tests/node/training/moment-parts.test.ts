// Optimiser moments saved under one row split of a vocabulary matrix re-sliced to another (resume on another device).
import { describe, expect, it } from 'vitest';
import { momentsForParts } from '../../../src/train/moment-parts.ts';

/** m = rows 0..4 of width 2 (values 0..9), v = the same + 100. */
const whole = { m: Float32Array.from({ length: 10 }, (_, i) => i), v: Float32Array.from({ length: 10 }, (_, i) => 100 + i) };

const rows = (from: number, to: number) => ({ m: whole.m.slice(2 * from, 2 * to), v: whole.v.slice(2 * from, 2 * to) });

const other = { m: Float32Array.of(7), v: Float32Array.of(8) };

describe('optimiser moments across row splits', () => {
  it('whole -> parts, parts -> whole, and parts -> other parts; other parameters untouched', () => {
    const saved = new Map([
      ['W', whole],
      ['b', other],
    ]);
    const split = momentsForParts(saved, ['W[rows 0+3]', 'W[rows 3+2]', 'b']);
    expect([...split.keys()].sort()).toEqual(['W[rows 0+3]', 'W[rows 3+2]', 'b']);
    expect(split.get('W[rows 0+3]')).toEqual(rows(0, 3));
    expect(split.get('W[rows 3+2]')).toEqual(rows(3, 5));
    expect(split.get('b')).toBe(other);

    const back = momentsForParts(split, ['W', 'b']);
    expect([...back.keys()].sort()).toEqual(['W', 'b']);
    expect(back.get('W')).toEqual(whole);

    const resplit = momentsForParts(split, ['W[rows 0+1]', 'W[rows 1+4]', 'b']);
    expect(resplit.get('W[rows 0+1]')).toEqual(rows(0, 1));
    expect(resplit.get('W[rows 1+4]')).toEqual(rows(1, 5));
    expect(resplit.has('W[rows 0+3]')).toBe(false);
  });

  it('leaves what does not assemble for the caller to name (a gap in the saved parts, an unknown parameter)', () => {
    const gap = new Map([
      ['W[rows 0+2]', rows(0, 2)],
      ['W[rows 3+2]', rows(3, 5)],
    ]);
    expect([...momentsForParts(gap, ['W']).keys()]).toEqual(['W[rows 0+2]', 'W[rows 3+2]']);
    expect([...momentsForParts(new Map([['X', whole]]), ['W']).keys()]).toEqual(['X']);
  });
});
