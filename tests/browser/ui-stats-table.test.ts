// <head-stats-table>: statistics at k = 1 and at k side by side; norms divide by k, anisotropy does not change; at
// k = 1, which divides nothing, one column and a line saying so.
import '../../src/ui/model/head-stats-table.ts';
import type { HeadStatsTable } from '../../src/ui/model/head-stats-table.ts';
import { precomputedPair } from '../../src/ui/model/precomputed-stats.ts';
import { demoNorms, inside, mount } from './ui-fixture.ts';
import { expect } from './expect.ts';

describe('<head-stats-table>', () => {
  it('shows every statistic at k = 1 and divided by k', async () => {
    const pair = precomputedPair(demoNorms('t', 0.25, [1, 2, 3, 4, 8]), 8, false);
    const el = await mount<HeadStatsTable>('head-stats-table', { original: pair.before, rescaled: pair.after });
    expect(inside(el, 'thead th[data-k="after"]').textContent?.trim(), 'column header names k').toBe('k = 8');
    const cell = (key: string, column: string) => Number(inside(el, `tr[data-stat="${key}"] td[data-k="${column}"]`).textContent);
    expect(Math.abs(cell('mean', '1') - 3.6), 'mean at k = 1').toBeLessThanOrEqual(5e-4);
    expect(Math.abs(cell('max', 'after') - 1), 'max at k = 8').toBeLessThanOrEqual(5e-4);
    expect(Math.abs(cell('p50', 'after') - 3 / 8), 'median at k = 8').toBeLessThanOrEqual(5e-4);
    expect(cell('anisotropy', '1'), 'anisotropy unchanged by k').toBe(0.25);
    expect(cell('anisotropy', 'after'), 'anisotropy unchanged by k').toBe(0.25);
    expect(el.shadowRoot!.querySelector('tr[data-stat="non-finite"]'), 'no non-finite row for a finite head').toBeNull();
  });

  it('at k = 1 shows one column, not two identical ones, and says that k = 1 divides nothing', async () => {
    const pair = precomputedPair(demoNorms('t', 0.25, [1, 2, 3, 4, 8]), 1, false);
    const el = await mount<HeadStatsTable>('head-stats-table', { original: pair.before, rescaled: pair.after });
    expect(el.shadowRoot!.querySelectorAll('thead th'), 'the statistic names and one column of figures').toHaveLength(2);
    expect(el.shadowRoot!.querySelector('[data-k="after"]'), 'no divided column').toBeNull();
    expect(inside(el, 'table').getAttribute('data-k'), 'the table says which k it shows').toBe('1');
    expect(
      Math.abs(Number(inside(el, 'tr[data-stat="mean"] td[data-k="1"]').textContent) - 3.6),
      'mean at k = 1',
    ).toBeLessThanOrEqual(5e-4);
    expect(inside(el, '#k1-note').textContent ?? '', 'the note says why one column').toMatch(/dividing by 1 changes nothing/);
    const divided = await mount<HeadStatsTable>('head-stats-table', {
      original: pair.before,
      rescaled: precomputedPair(demoNorms('t', 0.25, [1, 2]), 2, false).after,
    });
    expect(divided.shadowRoot!.querySelector('#k1-note'), 'no note at k = 2').toBeNull();
  });

  it('names the rows that hold NaN or Inf, and leaves them out of the figures', async () => {
    const pair = precomputedPair(demoNorms('t', 0.25, [1, 2, NaN, 3, Infinity]), 2, false);
    const el = await mount<HeadStatsTable>('head-stats-table', { original: pair.before, rescaled: pair.after });
    const cell = (key: string, column: string) => Number(inside(el, `tr[data-stat="${key}"] td[data-k="${column}"]`).textContent);
    expect(cell('non-finite', '1'), 'two broken rows counted').toBe(2);
    expect(cell('non-finite', 'after'), 'two broken rows counted').toBe(2);
    expect(Math.abs(cell('max', '1') - 3), 'max over the finite rows only').toBeLessThanOrEqual(5e-4);
  });
});
