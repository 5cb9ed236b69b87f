// <preview-panel>: edits report both texts; a result shows the score and two vectors; an error replaces them.
import '../../src/ui/model/preview-panel.ts';
import type { PreviewPanel } from '../../src/ui/model/preview-panel.ts';
import type { PreviewResult } from '../../src/worker/api.ts';
import { auditPair } from '../../src/contract/model/pair-audit.ts';
import { allInside, events, inside, mount } from './ui-fixture.ts';
import { expect } from './expect.ts';

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
    expect(seen, JSON.stringify(seen)).toHaveLength(1);
    expect(seen[0].query, JSON.stringify(seen)).toBe('why is the sky blue');
    expect(seen[0].doc, JSON.stringify(seen)).toBe('b');
  });

  it('shows the score under k and both vectors', async () => {
    const el = await mount<PreviewPanel>('preview-panel', { result, k: 4 });
    expect(inside(el, '#score').textContent, 'score with three decimals').toBe('12.346');
    expect(inside(el, '.score').textContent ?? '', 'the score names k').toMatch(/at k = 4/);
    expect(allInside(el, 'sparse-terms'), 'query and document vectors').toHaveLength(2);
  });

  it('names the input token that caused each term, grouped by token, and of each shared term on both sides', async () => {
    const origins = {
      text: 'moon tide',
      k: 4,
      tokens: ['[CLS]', 'moon', 'tide', '[SEP]'],
      terms: [
        { id: 7, term: 'sea', weight: 2.5, expansion: true, position: 2, piece: 'tide' },
        { id: 5, term: 'moon', weight: 2, expansion: false, position: 1, piece: 'moon' },
        { id: 8, term: 'wave', weight: 1, expansion: true, position: 2, piece: 'tide' },
      ],
      expansionShare: 3.5 / 5.5,
    };
    const query = {
      text: 'ocean',
      k: 4,
      tokens: ['[CLS]', 'ocean', '[SEP]'],
      terms: [
        { id: 9, term: 'ocean', weight: 3, expansion: false, position: 1, piece: 'ocean' },
        { id: 7, term: 'sea', weight: 1, expansion: true, position: 1, piece: 'ocean' },
        { id: 8, term: 'wave', weight: 0.5, expansion: true, position: 0, piece: '[CLS]' },
      ],
      expansionShare: 1.5 / 4.5,
    };
    const el = await mount<PreviewPanel>('preview-panel', {
      result: { ...result, origins: auditPair(query, origins) },
      k: 4,
    });
    const audit = inside(el, '#doc-origins');
    const tokens = [...audit.shadowRoot!.querySelectorAll('#by-token li')];
    expect(tokens, 'only tokens that caused a term are listed').toHaveLength(2);
    const tide = tokens.find((li) => li.getAttribute('data-piece') === 'tide')!;
    expect(tide.getAttribute('data-terms'), tide.textContent ?? '').toBe('2');
    expect(tide.textContent!.replace(/\s+/g, ' '), tide.textContent ?? '').toMatch(/caused 2: sea 2\.50 wave 1\.00/);
    expect(audit.shadowRoot!.querySelector('#origins-summary')!.textContent!, 'the expansion share').toMatch(
      /63\.6% of the weight on expansions/,
    );
    const rows = [...audit.shadowRoot!.querySelectorAll('#origin-table tbody tr')];
    expect(rows.map((r) => r.getAttribute('data-term')).join(','), 'heaviest first').toBe('sea,moon,wave');
    // the shared terms: largest product first, each side's weight and causing token, the score split
    const shared = inside(el, '#shared-origins').shadowRoot!;
    const pairRows = [...shared.querySelectorAll('#shared-table tbody tr')];
    expect(pairRows.map((r) => r.getAttribute('data-term')).join(','), 'shared terms, largest product first').toBe('sea,wave');
    const sea = pairRows[0].textContent!.replace(/\s+/g, ' ');
    expect(sea, sea).toMatch(/sea 2\.500 1\.000 expansion from ocean \(token 1\) 2\.500 expansion from tide \(token 2\)/);
    const summary = shared.querySelector('#pair-summary')!.textContent!.replace(/\s+/g, ' ');
    expect(summary, summary).toMatch(
      /Score 3\.0000 at k = 4 over 2 shared terms: 100\.0% of it from terms the query expanded to/,
    );
  });

  it('shows an error in place of the vectors', async () => {
    const el = await mount<PreviewPanel>('preview-panel', { result, error: 'No model is loaded yet' });
    expect(inside(el, '#preview-error').getAttribute('role'), 'the error is announced').toBe('alert');
    expect(allInside(el, 'sparse-terms'), 'no stale vectors next to an error').toHaveLength(0);
  });
});
