// docs/page-guide.md's lesson figures are the bundled recording's (public/lesson/trace.json), written by the page's own
// sentences: the guide's marked part equals what `npm run lesson-guide` writes from the trace, and holds no hand-typed
// nDCG or time; a changed trace changes the text.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  GUIDE_END,
  GUIDE_FILE,
  GUIDE_START,
  guideWithFigures,
  lessonGuideText,
  readTrace,
} from '../../../scripts/lesson-guide.ts';

describe("docs/page-guide.md's lesson figures", () => {
  const guide = readFileSync(GUIDE_FILE, 'utf8');
  const trace = readTrace();

  it('are what `npm run lesson-guide` writes from public/lesson/trace.json (run it after recording a trace)', () => {
    expect(guide.split(GUIDE_START)).toHaveLength(2);
    expect(guide.split(GUIDE_END)).toHaveLength(2);
    expect(guideWithFigures(guide, trace), 'run `npm run lesson-guide`').toBe(guide);
  });

  it("quote the recording's own final nDCG@10 and steps, and change with them", () => {
    const text = lessonGuideText(trace);
    for (const run of trace.frames.at(-1)!.runs) expect(text).toContain(run.heldOut!.ndcg10.toFixed(3));
    expect(text).toContain(`over ${trace.facts.settings.steps} steps`);
    const other = structuredClone(trace);
    for (const run of other.frames.at(-1)!.runs) run.heldOut!.ndcg10 = run.k === 1 ? 0.99 : 0.1;
    expect(lessonGuideText(other)).toMatch(/ranks the held-out queries best \(nDCG@10 0\.990 against 0\.100 for k = 8\)/);
  });

  it('the rest of the lesson section types no figure of the recording', () => {
    const outside = guide.replace(guide.slice(guide.indexOf(GUIDE_START), guide.indexOf(GUIDE_END)), '');
    const lesson = outside.slice(outside.indexOf('- **Lesson**'), outside.indexOf('- **Sweeps**'));
    expect(lesson).not.toMatch(/nDCG@10 0\.\d/);
    expect(lesson).not.toMatch(/about \d+ minutes/);
  });
});
