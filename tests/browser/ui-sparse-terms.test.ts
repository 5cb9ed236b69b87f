// <sparse-terms>: top terms with weight bars; expansions marked by a sign and words, not by colour alone.
import '../../src/ui/common/sparse-terms.ts';
import type { SparseTerms } from '../../src/ui/common/sparse-terms.ts';
import { allInside, check, inside, mount } from './ui-fixture.ts';

describe('<sparse-terms>', () => {
  it('lists terms in order, marks expansions for sight and screen readers, counts active dimensions', async () => {
    const summary = {
      text: 'ocean tides',
      tokens: ['ocean', 'tides'],
      activeDims: 57,
      terms: [
        { term: 'tides', id: 1, weight: 2, expansion: false },
        { term: 'moon', id: 2, weight: 1, expansion: true },
      ],
    };
    const el = await mount<SparseTerms>('sparse-terms', { heading: 'Query vector', summary });
    const items = allInside(el, 'li');
    check(items.length === 2 && items[0].getAttribute('data-term') === 'tides', 'two terms, largest first');
    check(!items[0].textContent?.includes('+') && items[1].textContent?.includes('+ moon'), 'expansion carries a + sign');
    check(
      items[1].querySelector('.visually-hidden')?.textContent?.includes('expansion') === true,
      'screen readers hear "expansion"',
    );
    check(/57 active dimensions · 2 tokens/.test(inside(el, '#active').textContent ?? ''), 'active dimensions shown');
    const widths = allInside(el, '.bar').map((b) => (b as HTMLElement).style.width);
    check(widths[0] === '100%' && widths[1] === '50%', `bar widths ${widths}`);
  });
});
