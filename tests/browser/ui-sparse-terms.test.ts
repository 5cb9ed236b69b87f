// <sparse-terms>: top terms with weight bars; expansions marked by a sign and words, not by colour alone; special pieces
// ([CLS], [SEP], [unusedN]) said apart under the list, never among the top terms.
import '../../src/ui/common/sparse-terms.ts';
import type { SparseTerms } from '../../src/ui/common/sparse-terms.ts';
import { allInside, inside, mount } from './ui-fixture.ts';
import { expect } from './expect.ts';

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
    expect(items, 'two terms, largest first').toHaveLength(2);
    expect(items[0].getAttribute('data-term'), 'two terms, largest first').toBe('tides');
    expect(items[0].textContent?.includes('+'), 'expansion carries a + sign').toBeFalsy();
    expect(items[1].textContent?.includes('+ moon'), 'expansion carries a + sign').toBeTruthy();
    expect(
      items[1].querySelector('.visually-hidden')?.textContent?.includes('expansion'),
      'screen readers hear "expansion"',
    ).toBe(true);
    expect(inside(el, '#active').textContent ?? '', 'active dimensions shown').toMatch(/57 active dimensions · 2 tokens/);
    const widths = allInside(el, '.bar').map((b) => (b as HTMLElement).style.width);
    expect(widths[0], `bar widths ${widths}`).toBe('100%');
    expect(widths[1], `bar widths ${widths}`).toBe('50%');
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
    expect(JSON.stringify(listed), `top terms: ${listed}`).toBe(JSON.stringify(['tides', 'moon']));
    const apart = inside(el, '.special-apart').textContent ?? '';
    expect(apart, apart).toMatch(/kept apart/);
    expect(apart, apart).toMatch(/\[CLS\] 3/);
    expect(apart, apart).toMatch(/\[unused7\] 1\.5/);
    expect((allInside(el, '.bar')[0] as HTMLElement).style.width, 'the heaviest ordinary term has the full bar').toBe('100%');
  });

  it('says why an empty vector is empty, and only for an empty one', async () => {
    const empty = { text: 'gravity', tokens: ['gravity'], activeDims: 0, terms: [] };
    const el = await mount<SparseTerms>('sparse-terms', { heading: 'Query vector', summary: empty });
    expect(inside(el, '#active').textContent ?? '', 'the count says 0').toMatch(/0 active dimensions · 1 tokens/);
    expect(inside(el, '#empty').textContent ?? '', 'why').toMatch(/No term is active: every logit of this text is 0 or below/);
    expect(allInside(el, 'li'), 'no term listed').toHaveLength(0);
    const one = { ...empty, activeDims: 1, terms: [{ term: 'gravity', id: 3, weight: 0.1, expansion: false }] };
    const other = await mount<SparseTerms>('sparse-terms', { heading: 'Query vector', summary: one });
    expect(other.shadowRoot?.querySelector('#empty'), 'a vector with a term has no such line').toBeNull();
    const recorded = await mount<SparseTerms>('sparse-terms', { heading: 'Recorded', summary: empty, caption: 'top terms kept' });
    expect(recorded.shadowRoot?.querySelector('#empty'), 'a recording kept as its top terms is not called empty').toBeNull();
  });
});
