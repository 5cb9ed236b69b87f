// <lesson-head-growth>: the recorded masked-LM run of step 2: a chart with a table of its numbers, a caption computed
// from the first and last points, the sentence before and after; a note instead when the recording is missing.
import '../../src/ui/lesson/lesson-head-growth.ts';
import type { LessonHeadGrowth } from '../../src/ui/lesson/lesson-head-growth.ts';
import { checkHeadGrowthTrace, HEAD_GROWTH_FORMAT, type HeadGrowthTrace } from '../../src/contract/lesson/head-growth-trace.ts';
import { allInside, inside, mount } from './ui-fixture.ts';
import { expect } from './expect.ts';

const TRACE: HeadGrowthTrace = {
  format: HEAD_GROWTH_FORMAT,
  version: 1,
  model: 'a test backbone',
  recipe: '20 steps of 4 sequences',
  points: [
    { step: 0, loss: null, meanRowNorm: 1, p99RowNorm: 1.5, logitScale: null },
    { step: 10, loss: 9, meanRowNorm: 1.2, p99RowNorm: 1.7, logitScale: 5 },
    { step: 20, loss: 6, meanRowNorm: 1.5, p99RowNorm: 2, logitScale: 8 },
  ],
  sentence: 'the doctor came',
  before: [{ term: 'the', weight: 1, expansion: false }],
  after: [
    { term: 'doctor', weight: 2, expansion: false },
    { term: 'nurse', weight: 1.5, expansion: true },
  ],
  note: 'frequent words first',
};

describe('<lesson-head-growth>', () => {
  it('charts the run, says what grew from its numbers, and shows the sentence before and after', async () => {
    const el = await mount<LessonHeadGrowth>('lesson-head-growth', { trace: TRACE });
    const caption = inside(el, '#growth-caption').textContent ?? '';
    expect(caption, caption).toMatch(
      /Over 20 steps .* from 1\.000 to 1\.500 \(x1\.500\) while the loss fell from 9\.00 to 6\.00/,
    );
    expect(caption, caption).toMatch(/largest logit of a predicted token went from 5\.0 to 8\.0/);
    expect(allInside(el, '#growth-table tbody tr'), 'one table row per point').toHaveLength(3);
    expect(allInside(el, 'polyline'), 'two series: row norm and loss').toHaveLength(2);
    const lists = allInside(el, 'sparse-terms');
    expect(lists, 'the sentence before and after').toHaveLength(2);
    expect(lists[1].getAttribute('data-when'), 'the sentence before and after').toBe('after');
    expect(inside(el, '#growth-note').textContent, "the recorder's note").toBe('frequent words first');
  });

  it('says why when there is no recording', async () => {
    const el = await mount<LessonHeadGrowth>('lesson-head-growth', { trace: null, problem: 'not at hand' });
    expect(inside(el, '#no-growth').textContent, 'the note').toBe('not at hand');
  });

  it('refuses a recording that is not one, naming the field', () => {
    let message = '';
    try {
      checkHeadGrowthTrace({ ...TRACE, points: [{ step: 0 }] }, 'x.json');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message, message).toMatch(/x\.json .* "points"/);
    let note = '';
    try {
      checkHeadGrowthTrace({ ...TRACE, note: 3 }, 'y.json');
    } catch (error) {
      note = (error as Error).message;
    }
    expect(note, note).toMatch(/y\.json .* "note"/);
  });
});
