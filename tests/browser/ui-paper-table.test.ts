// <paper-table1>: the paper's seven Table 1 rows, with the loaded backbone's row highlighted.
import '../../src/ui/model/paper-table1.ts';
import type { PaperTable1 } from '../../src/ui/model/paper-table1.ts';
import { PAPER_TABLE1 } from '../../src/ui/model/paper-table1-data.ts';
import { allInside, check, mount } from './ui-fixture.ts';

describe('<paper-table1>', () => {
  it('lists the seven backbones with their mean and max row norms and highlights one', async () => {
    const el = await mount<PaperTable1>('paper-table1', { highlight: 'roberta-base' });
    const rows = allInside(el, 'tbody tr');
    check(rows.length === 7 && PAPER_TABLE1.length === 7, `${rows.length} rows`);
    const roberta = rows.find((r) => r.textContent?.includes('roberta-base'));
    check(roberta?.textContent?.includes('3.645') && roberta.textContent.includes('4.480'), 'roberta-base: 3.645 / 4.480');
    const marked = allInside(el, 'tbody tr.match');
    check(
      marked.length === 1 && marked[0] === roberta && roberta.getAttribute('aria-current') === 'true',
      'only roberta-base is highlighted',
    );
  });
});
