// <sparse-terms>: top terms with weight bars; expansions marked by a sign and words, not by colour alone; special pieces
// ([CLS], [SEP], [unusedN]) said apart under the list, never among the top terms.
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

  it('lists special pieces apart, with their weights, never among the top terms (the bars scale to the top term)', async () => {
    const summary = {
      text: 'ocean tides',
      tokens: ['ocean', 'tides'],
      activeDims: 1800,
      terms: [
        { term: '[CLS]', id: 101, weight: 3, expansion: false, special: true },
        { term: 'tides', id: 1, weight: 2, expansion: false },
        { term: '[unused7]', id: 8, weight: 1.5, expansion: true, special: true },
        { term: 'moon', id: 2, weight: 1, expansion: true },
      ],
    };
    const el = await mount<SparseTerms>('sparse-terms', { heading: 'Query vector', summary });
    const listed = allInside(el, 'li').map((li) => li.getAttribute('data-term'));
    check(JSON.stringify(listed) === JSON.stringify(['tides', 'moon']), `top terms: ${listed}`);
    const apart = inside(el, '.special-apart').textContent ?? '';
    check(/kept apart/.test(apart) && /\[CLS\] 3/.test(apart) && /\[unused7\] 1\.5/.test(apart), apart);
    check((allInside(el, '.bar')[0] as HTMLElement).style.width === '100%', 'the heaviest ordinary term has the full bar');
  });

  it('says why an empty vector is empty, and only for an empty one', async () => {
    const empty = { text: 'gravity', tokens: ['gravity'], activeDims: 0, terms: [] };
    const el = await mount<SparseTerms>('sparse-terms', { heading: 'Query vector', summary: empty });
    check(/0 active dimensions · 1 tokens/.test(inside(el, '#active').textContent ?? ''), 'the count says 0');
    check(/No term is active: every logit of this text is 0 or below/.test(inside(el, '#empty').textContent ?? ''), 'why');
    check(allInside(el, 'li').length === 0, 'no term listed');
    const one = { ...empty, activeDims: 1, terms: [{ term: 'gravity', id: 3, weight: 0.1, expansion: false }] };
    const other = await mount<SparseTerms>('sparse-terms', { heading: 'Query vector', summary: one });
    check(other.shadowRoot?.querySelector('#empty') === null, 'a vector with a term has no such line');
    const recorded = await mount<SparseTerms>('sparse-terms', { heading: 'Recorded', summary: empty, caption: 'top terms kept' });
    check(recorded.shadowRoot?.querySelector('#empty') === null, 'a recording kept as its top terms is not called empty');
  });
});
