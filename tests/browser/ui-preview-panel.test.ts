// <preview-panel>: edits report both texts; a result shows the score and two vectors; an error replaces them.
import '../../src/ui/model/preview-panel.ts';
import type { PreviewPanel } from '../../src/ui/model/preview-panel.ts';
import type { PreviewResult } from '../../src/worker/api.ts';
import { allInside, check, events, inside, mount } from './ui-fixture.ts';

const vector = (text: string) => ({
  text,
  tokens: [text],
  activeDims: 3,
  terms: [{ term: text, id: 5, weight: 1.5, expansion: false }],
});
const result: PreviewResult = { k: 4, query: vector('tide'), doc: vector('moon'), score: 12.3456 };

describe('<preview-panel>', () => {
  it('reports the query and the document as they are typed', async () => {
    const el = await mount<PreviewPanel>('preview-panel', { query: 'a', doc: 'b' });
    const seen = events<{ query: string; doc: string }>(el, 'texts-change');
    const query = inside<HTMLTextAreaElement>(el, '#query');
    query.value = 'why is the sky blue';
    query.dispatchEvent(new Event('input'));
    check(seen.length === 1 && seen[0].query === 'why is the sky blue' && seen[0].doc === 'b', JSON.stringify(seen));
  });

  it('shows the score under k and both vectors', async () => {
    const el = await mount<PreviewPanel>('preview-panel', { result, k: 4 });
    check(inside(el, '#score').textContent === '12.346', 'score with three decimals');
    check(/at k = 4/.test(inside(el, '.score').textContent ?? ''), 'the score names k');
    check(allInside(el, 'sparse-terms').length === 2, 'query and document vectors');
  });

  it('shows an error in place of the vectors', async () => {
    const el = await mount<PreviewPanel>('preview-panel', { result, error: 'No model is loaded yet' });
    check(inside(el, '#preview-error').getAttribute('role') === 'alert', 'the error is announced');
    check(allInside(el, 'sparse-terms').length === 0, 'no stale vectors next to an error');
  });
});
