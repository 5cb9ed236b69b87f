// <paper-table1>: the paper's seven Table 1 rows, with the loaded backbone's row highlighted.
import '../../src/ui/model/paper-table1.ts';
import type { PaperTable1 } from '../../src/ui/model/paper-table1.ts';
import { PAPER_TABLE1 } from '../../src/ui/model/paper-table1-data.ts';
import { allInside, mount } from './ui-fixture.ts';
import { expect } from './expect.ts';

describe('<paper-table1>', () => {
  it('lists the seven backbones with their mean and max row norms and highlights one', async () => {
    const el = await mount<PaperTable1>('paper-table1', { highlight: 'roberta-base' });
    const rows = allInside(el, 'tbody tr');
    expect(rows, `${rows.length} rows`).toHaveLength(7);
    expect(PAPER_TABLE1, `${rows.length} rows`).toHaveLength(7);
    const roberta = rows.find((r) => r.textContent?.includes('roberta-base'));
    expect(roberta?.textContent?.includes('3.645'), 'roberta-base: 3.645 / 4.480').toBeTruthy();
    expect(roberta!.textContent, 'roberta-base: 3.645 / 4.480').toContain('4.480');
    const marked = allInside(el, 'tbody tr.match');
    expect(marked, 'only roberta-base is highlighted').toHaveLength(1);
    expect(marked[0], 'only roberta-base is highlighted').toBe(roberta);
    expect(roberta!.getAttribute('aria-current'), 'only roberta-base is highlighted').toBe('true');
  });
});
