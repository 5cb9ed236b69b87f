// A recorded lesson (the bundled page plays it without a GPU): its format, and the reader that checks one.
import type { LessonFacts, LessonVector, LessonFrame } from './lesson-frames.ts';

export const LESSON_TRACE_FORMAT = 'splade-lab lesson trace';

/** A file that is not a lesson trace this page can play. */
export class LessonTraceError extends Error {
  override name = 'LessonTraceError';
}

export interface LessonTrace {
  format: typeof LESSON_TRACE_FORMAT;
  version: 1;
  /** The backbone it was recorded with, and on what GPU adapter. */
  model: string;
  adapter: string;
  facts: LessonFacts;
  /** The lesson's sentence under each k (steps 1 and 2). */
  sentence: LessonVector[];
  /** Frame 0 (before training) to the last step, one per step. */
  frames: LessonFrame[];
}

/** Reads a trace (the bundled one, or any file), refusing one that is not a whole, consistent lesson. */
export function parseLessonTrace(json: unknown, where: string): LessonTrace {
  const fail = (what: string): never => {
    throw new LessonTraceError(`${where} is not a splade-lab lesson trace: ${what}`);
  };
  if (typeof json !== 'object' || json === null) fail('not a JSON object');
  const trace = json as Partial<LessonTrace>;
  if (trace.format !== LESSON_TRACE_FORMAT) fail(`its "format" is ${JSON.stringify(trace.format)}`);
  if (trace.version !== 1) fail(`version ${JSON.stringify(trace.version)} (this page reads version 1)`);
  const facts = trace.facts;
  if (!facts || !Array.isArray(facts.settings?.ks) || typeof facts.probe !== 'string')
    fail('its "facts" lack the ks or the watched query');
  const ks = facts!.settings.ks;
  if (!Array.isArray(trace.sentence) || trace.sentence.length !== ks.length)
    fail(`it has ${trace.sentence?.length ?? 0} sentence vectors for ${ks.length} ks`);
  const frames = trace.frames;
  if (!Array.isArray(frames) || frames.length !== facts!.settings.steps + 1)
    fail(`it has ${frames?.length ?? 0} frames for ${facts!.settings.steps} steps (one more expected)`);
  frames!.forEach((frame, i) => {
    if (frame?.step !== i) fail(`frame ${i} is step ${frame?.step}`);
    if (!Array.isArray(frame.runs) || frame.runs.map((r) => r.k).join() !== ks.join())
      fail(`frame ${i} does not hold the ks ${ks.join(', ')}`);
    for (const run of frame.runs) {
      if (!run.probe || !Array.isArray(run.probe.terms)) fail(`frame ${i} has no watched vector for k = ${run.k}`);
      if (i > 0 && !(run.losses && Number.isFinite(run.losses.total))) fail(`frame ${i} has no finite losses for k = ${run.k}`);
    }
  });
  if (typeof trace.model !== 'string' || typeof trace.adapter !== 'string')
    fail('it does not say what model and adapter recorded it');
  return trace as LessonTrace;
}
