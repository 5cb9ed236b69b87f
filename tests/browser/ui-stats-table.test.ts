// <head-stats-table>: statistics at k = 1 and at k side by side; norms divide by k, anisotropy does not change; at
// k = 1, which divides nothing, one column and a line saying so.
import '../../src/ui/model/head-stats-table.ts';
import type { HeadStatsTable } from '../../src/ui/model/head-stats-table.ts';
import { precomputedPair } from '../../src/ui/model/precomputed-stats.ts';
import { check, demoNorms, inside, mount, near } from './ui-fixture.ts';

describe('<head-stats-table>', () => {
  it('shows every statistic at k = 1 and divided by k', async () => {
    const pair = precomputedPair(demoNorms('t', 0.25, [1, 2, 3, 4, 8]), 8, false);
    const el = await mount<HeadStatsTable>('head-stats-table', { original: pair.before, rescaled: pair.after });
    check(inside(el, 'thead th[data-k="after"]').textContent?.trim() === 'k = 8', 'column header names k');
    const cell = (key: string, column: string) => Number(inside(el, `tr[data-stat="${key}"] td[data-k="${column}"]`).textContent);
    near(cell('mean', '1'), 3.6, 5e-4, 'mean at k = 1');
    near(cell('max', 'after'), 1, 5e-4, 'max at k = 8');
    near(cell('p50', 'after'), 3 / 8, 5e-4, 'median at k = 8');
    check(cell('anisotropy', '1') === 0.25 && cell('anisotropy', 'after') === 0.25, 'anisotropy unchanged by k');
    check(el.shadowRoot!.querySelector('tr[data-stat="non-finite"]') === null, 'no non-finite row for a finite head');
  });

  it('at k = 1 shows one column, not two identical ones, and says that k = 1 divides nothing', async () => {
    const pair = precomputedPair(demoNorms('t', 0.25, [1, 2, 3, 4, 8]), 1, false);
    const el = await mount<HeadStatsTable>('head-stats-table', { original: pair.before, rescaled: pair.after });
    check(el.shadowRoot!.querySelectorAll('thead th').length === 2, 'the statistic names and one column of figures');
    check(el.shadowRoot!.querySelector('[data-k="after"]') === null, 'no divided column');
    check(inside(el, 'table').getAttribute('data-k') === '1', 'the table says which k it shows');
    near(Number(inside(el, 'tr[data-stat="mean"] td[data-k="1"]').textContent), 3.6, 5e-4, 'mean at k = 1');
    check(/dividing by 1 changes nothing/.test(inside(el, '#k1-note').textContent ?? ''), 'the note says why one column');
    const divided = await mount<HeadStatsTable>('head-stats-table', {
      original: pair.before,
      rescaled: precomputedPair(demoNorms('t', 0.25, [1, 2]), 2, false).after,
    });
    check(divided.shadowRoot!.querySelector('#k1-note') === null, 'no note at k = 2');
  });

  it('names the rows that hold NaN or Inf, and leaves them out of the figures', async () => {
    const pair = precomputedPair(demoNorms('t', 0.25, [1, 2, NaN, 3, Infinity]), 2, false);
    const el = await mount<HeadStatsTable>('head-stats-table', { original: pair.before, rescaled: pair.after });
    const cell = (key: string, column: string) => Number(inside(el, `tr[data-stat="${key}"] td[data-k="${column}"]`).textContent);
    check(cell('non-finite', '1') === 2 && cell('non-finite', 'after') === 2, 'two broken rows counted');
    near(cell('max', '1'), 3, 5e-4, 'max over the finite rows only');
  });
});
