// The lesson's figures in docs/page-guide.md, written from the bundled recording (public/lesson/trace.json) by the same
// sentences the page shows (src/contract/lesson/lesson-claims.ts), never typed: `npm run lesson-guide` rewrites the marked
// part of the guide (`npm run lesson-trace` runs it after recording), and a repository test fails when they differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { lessonOutcomes, lessonTakeaway } from '../src/contract/lesson/lesson-claims.ts';
import { parseLessonTrace, type LessonTrace } from '../src/contract/lesson/lesson-trace.ts';

export const GUIDE_FILE = fileURLToPath(new URL('../docs/page-guide.md', import.meta.url));
export const TRACE_FILE = fileURLToPath(new URL('../public/lesson/trace.json', import.meta.url));

/** The marks around the generated part of the guide. */
export const GUIDE_START = '<!-- lesson figures: written from public/lesson/trace.json by `npm run lesson-guide` -->';
export const GUIDE_END = '<!-- end of the lesson figures -->';

/** "6 min 12 s", "48 s". */
function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** The guide's paragraph about the recording: its settings, how long it took, and the page's own take-away of it. */
export function lessonGuideText(trace: LessonTrace): string {
  const { ks, seed, steps } = trace.facts.settings;
  const takeaway = lessonTakeaway(lessonOutcomes(trace.frames)!);
  const time = trace.timing
    ? ` \`npm run lesson-trace\` took ${duration(trace.timing.beginMs + trace.timing.stepsMs)} to compute it on ${trace.adapter} ` +
      `(in Node${trace.timing.cores ? ` on ${trace.timing.cores} CPU cores` : ''}, ${(trace.timing.stepsMs / steps / 1000).toFixed(1)} s a step); ` +
      "a live lesson's time depends on the GPU (and on what else the machine runs), and the page estimates it from its own " +
      'mean step time as it plays.'
    : '';
  return (
    `The recording plays ${trace.model} at k = ${ks.join(' and ')}, seed ${seed}, over ${steps} steps.${time} ` +
    `Its take-away, as the page computes it: “${takeaway.headline}” ${takeaway.losses ?? ''}`
  ).trim();
}

/** The guide with its marked part written from `trace` (the marks must be there, once each). */
export function guideWithFigures(guide: string, trace: LessonTrace): string {
  const start = guide.indexOf(GUIDE_START);
  const end = guide.indexOf(GUIDE_END);
  if (start < 0 || end < start) throw new Error(`${GUIDE_FILE} lacks the marks ${GUIDE_START} … ${GUIDE_END}`);
  // indented as the guide's list item the marks sit in
  const indent = guide.slice(guide.lastIndexOf('\n', start) + 1, start);
  return `${guide.slice(0, start + GUIDE_START.length)}\n${indent}${lessonGuideText(trace)}\n${indent}${guide.slice(end)}`;
}

export function readTrace(): LessonTrace {
  return parseLessonTrace(JSON.parse(readFileSync(TRACE_FILE, 'utf8')), TRACE_FILE);
}

function main(): void {
  const guide = readFileSync(GUIDE_FILE, 'utf8');
  const updated = guideWithFigures(guide, readTrace());
  if (updated !== guide) writeFileSync(GUIDE_FILE, updated);
  console.log(
    updated === guide ? 'docs/page-guide.md: the lesson figures are up to date' : 'docs/page-guide.md: lesson figures written',
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
