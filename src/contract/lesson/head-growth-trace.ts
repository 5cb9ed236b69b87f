// The recording the lesson's "where long rows come from" panel plays: a masked-LM run's loss, head row norms and logit
// scale at each report, and one sentence's SPLADE vector before and after it; with the checker the page reads it by.

export const HEAD_GROWTH_FORMAT = 'splade-lab head growth';

export interface HeadGrowthPoint {
  /** Steps taken (0: before training). */
  step: number;
  /** Mean masked cross-entropy of the step's batch (null before training). */
  loss: number | null;
  /** Mean L2 norm of the head's rows, and their 99th percentile. */
  meanRowNorm: number;
  p99RowNorm: number;
  /** Mean over the predicted positions of their largest logit (null before training). */
  logitScale: number | null;
}

export interface GrowthTerm {
  term: string;
  weight: number;
  /** Not a token of the sentence itself. */
  expansion: boolean;
}

export interface HeadGrowthTrace {
  format: typeof HEAD_GROWTH_FORMAT;
  version: 1;
  /** What was trained, in words. */
  model: string;
  /** The run's settings, in words. */
  recipe: string;
  points: HeadGrowthPoint[];
  sentence: string;
  /** The sentence's heaviest terms (k = 1) before and after the run, heaviest first. */
  before: GrowthTerm[];
  after: GrowthTerm[];
  /** What the recorder wants a class to notice (optional). */
  note?: string;
}

/** The trace, or an error naming `where` and the first field that is wrong. */
export function checkHeadGrowthTrace(value: unknown, where: string): HeadGrowthTrace {
  const fail = (field: string, expected: string): never => {
    throw new Error(`${where} is not a splade-lab head growth recording: "${field}" is not ${expected}`);
  };
  const object = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
  const finite = (x: unknown) => typeof x === 'number' && Number.isFinite(x);
  if (!object(value)) return fail('(the whole file)', 'an object');
  if (value.format !== HEAD_GROWTH_FORMAT) fail('format', JSON.stringify(HEAD_GROWTH_FORMAT));
  if (value.version !== 1) fail('version', '1');
  for (const key of ['model', 'recipe', 'sentence']) if (typeof value[key] !== 'string') fail(key, 'a string');
  if (value.note !== undefined && typeof value.note !== 'string') fail('note', 'a string');
  if (!Array.isArray(value.points) || value.points.length < 2) fail('points', 'a list of at least two points');
  (value.points as unknown[]).forEach((point, i) => {
    if (!object(point)) return fail(`points[${i}]`, 'an object');
    for (const key of ['step', 'meanRowNorm', 'p99RowNorm']) if (!finite(point[key])) fail(`points[${i}].${key}`, 'a number');
    for (const key of ['loss', 'logitScale'])
      if (point[key] !== null && !finite(point[key])) fail(`points[${i}].${key}`, 'a number or null');
  });
  for (const key of ['before', 'after']) {
    const terms = value[key];
    if (!Array.isArray(terms)) return fail(key, 'a list of terms');
    terms.forEach((t: unknown, i) => {
      if (!object(t) || typeof t.term !== 'string' || !finite(t.weight) || typeof t.expansion !== 'boolean')
        fail(`${key}[${i}]`, 'a {term, weight, expansion} object');
    });
  }
  return value as unknown as HeadGrowthTrace;
}
