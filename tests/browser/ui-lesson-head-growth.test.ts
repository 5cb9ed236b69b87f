// <lesson-head-growth>: the recorded masked-LM run of step 2: a chart with a table of its numbers, a caption computed
// from the first and last points, the sentence before and after; a note instead when the recording is missing.
import '../../src/ui/lesson/lesson-head-growth.ts';
import type { LessonHeadGrowth } from '../../src/ui/lesson/lesson-head-growth.ts';
import { checkHeadGrowthTrace, HEAD_GROWTH_FORMAT, type HeadGrowthTrace } from '../../src/contract/lesson/head-growth-trace.ts';
import { allInside, check, inside, mount } from './ui-fixture.ts';

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
    check(/Over 20 steps .* from 1\.000 to 1\.500 \(x1\.500\) while the loss fell from 9\.00 to 6\.00/.test(caption), caption);
    check(/largest logit of a predicted token went from 5\.0 to 8\.0/.test(caption), caption);
    check(allInside(el, '#growth-table tbody tr').length === 3, 'one table row per point');
    check(allInside(el, 'polyline').length === 2, 'two series: row norm and loss');
    const lists = allInside(el, 'sparse-terms');
    check(lists.length === 2 && lists[1].getAttribute('data-when') === 'after', 'the sentence before and after');
    check(inside(el, '#growth-note').textContent === 'frequent words first', "the recorder's note");
  });

  it('says why when there is no recording', async () => {
    const el = await mount<LessonHeadGrowth>('lesson-head-growth', { trace: null, problem: 'not at hand' });
    check(inside(el, '#no-growth').textContent === 'not at hand', 'the note');
  });

  it('refuses a recording that is not one, naming the field', () => {
    let message = '';
    try {
      checkHeadGrowthTrace({ ...TRACE, points: [{ step: 0 }] }, 'x.json');
    } catch (error) {
      message = (error as Error).message;
    }
    check(/x\.json .* "points"/.test(message), message);
    let note = '';
    try {
      checkHeadGrowthTrace({ ...TRACE, note: 3 }, 'y.json');
    } catch (error) {
      note = (error as Error).message;
    }
    check(/y\.json .* "note"/.test(note), note);
  });
});
