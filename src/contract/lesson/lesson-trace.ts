// A recorded lesson (the bundled page plays it without a GPU): its format, and the reader that checks one.
import { describeJsonValue } from '../../util/json-value.ts';
import type { LessonFacts, LessonVector, LessonFrame } from './lesson-frames.ts';

export const LESSON_TRACE_FORMAT = 'splade-lab lesson trace';

/** A file that is not a lesson trace this page can play. */
export class LessonTraceError extends Error {
  override name = 'LessonTraceError';
}

/** How long recording took (the CLI's wall clock; loading the model and preparing the heads left out). */
export interface LessonTraceTiming {
  /** Frame 0: the held-out set measured under each k before training. */
  beginMs: number;
  /** The training steps together, held-out measures included. */
  stepsMs: number;
  /** CPU cores of the recording machine (SwiftShader's speed depends on them), when known. */
  cores?: number;
}

export interface LessonTrace {
  format: typeof LESSON_TRACE_FORMAT;
  version: 1;
  /** The backbone it was recorded with, and on what GPU adapter. */
  model: string;
  adapter: string;
  /** Absent in traces recorded before it was kept. */
  timing?: LessonTraceTiming;
  facts: LessonFacts;
  /** The lesson's sentence under each k (steps 1 and 2). */
  sentence: LessonVector[];
  /** Frame 0 (before training) to the last step, one per step. */
  frames: LessonFrame[];
}

const RECORD_AGAIN = 'record it again with `splade-lab lesson --trace <file>`';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** A vector as the lesson shows it: an object with its k, its length, its terms and its special pieces apart. */
const isVector = (v: unknown, k: number): boolean =>
  isObject(v) &&
  v.k === k &&
  Array.isArray(v.terms) &&
  Array.isArray(v.special) &&
  isNumber(v.vocabSize) &&
  isNumber(v.activeDims) &&
  isNumber(v.specialDims);

/** Null or an object whose `keys` are all finite numbers. */
const numbersOrNull = (v: unknown, keys: readonly string[]): boolean =>
  v === null || (isObject(v) && keys.every((key) => isNumber(v[key])));

const LOSSES = ['rank', 'flopsQueries', 'flopsDocuments', 'total'] as const;

const HELD_OUT = ['ndcg10', 'recall10', 'queryActiveDims', 'documentActiveDims', 'flops'] as const;

/**
 * Reads a trace (the bundled one, or any file), refusing one that is not a whole, consistent lesson: every value the
 * page reads is checked for its type first, so a hostile or damaged file gets a message naming what is wrong.
 */
export function parseLessonTrace(json: unknown, where: string): LessonTrace {
  const fail = (what: string): never => {
    throw new LessonTraceError(`${where} is not a splade-lab lesson trace: ${what}; ${RECORD_AGAIN}`);
  };
  if (typeof json !== 'object' || json === null) return fail('not a JSON object');
  const trace = json as Partial<LessonTrace>;
  if (trace.format !== LESSON_TRACE_FORMAT) fail(`its "format" is ${describeJsonValue(trace.format)}`);
  if (trace.version !== 1) fail(`version ${describeJsonValue(trace.version)} (this page reads version 1)`);
  const facts = trace.facts as unknown;
  if (!isObject(facts) || !isObject(facts.settings) || !Array.isArray(facts.settings.ks) || typeof facts.probe !== 'string')
    return fail('its "facts" lack the ks or the watched query');
  const ks: unknown[] = facts.settings.ks;
  const bad = ks.find((k) => !isNumber(k) || k <= 0);
  if (bad !== undefined || ks.length === 0) fail(`its ks must be numbers above 0, got ${describeJsonValue(bad ?? ks)}`);
  const steps = facts.settings.steps;
  if (!Number.isInteger(steps) || (steps as number) < 0)
    fail(`its steps must be a whole number, got ${describeJsonValue(steps)}`);
  const sentence = trace.sentence as unknown;
  if (!Array.isArray(sentence) || sentence.length !== ks.length)
    fail(`it has ${Array.isArray(sentence) ? sentence.length : 0} sentence vectors for ${ks.length} ks`);
  (sentence as unknown[]).forEach((vector, i) => {
    if (!isVector(vector, ks[i] as number))
      fail(`sentence vector ${i} is not the vector of k = ${ks[i]} with its length, its terms and its special pieces`);
  });
  const frames = trace.frames as unknown;
  if (!Array.isArray(frames) || frames.length !== (steps as number) + 1)
    fail(`it has ${Array.isArray(frames) ? frames.length : 0} frames for ${steps} steps (one more expected)`);
  (frames as unknown[]).forEach((frame, i) => {
    if (!isObject(frame) || frame.step !== i)
      return fail(`frame ${i} is step ${describeJsonValue(isObject(frame) ? frame.step : frame)}`);
    const runs = frame.runs;
    if (!Array.isArray(runs) || runs.length !== ks.length || runs.some((run, j) => !isObject(run) || run.k !== ks[j]))
      fail(`frame ${i} does not hold the ks ${ks.join(', ')}`);
    for (const run of runs as Record<string, unknown>[]) {
      if (!isVector(run.probe, run.k as number)) fail(`frame ${i} has no watched vector for k = ${run.k}`);
      const losses = run.losses as Record<string, unknown> | null;
      if (i > 0 && !(isObject(losses) && isNumber(losses.total))) fail(`frame ${i} has no finite losses for k = ${run.k}`);
      if (!numbersOrNull(losses ?? null, LOSSES)) fail(`frame ${i} has losses that are not all numbers for k = ${run.k}`);
      if (!numbersOrNull(run.active ?? null, ['queries', 'documents']))
        fail(`frame ${i} has active counts that are not numbers for k = ${run.k}`);
      if (!numbersOrNull(run.heldOut ?? null, HELD_OUT))
        fail(`frame ${i} has held-out measures that are not all numbers for k = ${run.k}`);
    }
  });
  if (typeof trace.model !== 'string' || typeof trace.adapter !== 'string')
    fail('it does not say what model and adapter recorded it');
  const timing = trace.timing as unknown;
  if (
    timing !== undefined &&
    (!isObject(timing) ||
      !numbersOrNull(timing, ['beginMs', 'stepsMs']) ||
      !(timing.cores === undefined || isNumber(timing.cores)))
  )
    fail('its "timing" is not the milliseconds of its start and its steps');
  return trace as LessonTrace;
}
