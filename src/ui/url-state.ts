// The page's shareable state (model, k, target norm, texts, open panel, teaching-demo and lesson settings) in the URL query.
import {
  K_DEMO_LIMITS,
  K_RANGE,
  LESSON_DEFAULTS,
  LESSON_LIMITS,
  TRAIN_LIMITS,
  describeRange,
  inRange,
  type NumberRange,
} from '../worker/api.ts';
import { DEMO_MODEL } from './model/presets.ts';

export const PANELS = ['norms', 'preview', 'audit', 'training', 'evaluate', 'runs', 'lesson'] as const;
export type PanelName = (typeof PANELS)[number];

export interface PageState {
  /** "demo", a preset key, or any Hub id. */
  model: string;
  k: number;
  /** Mean row norm the suggested k aims for. */
  target: number;
  query: string;
  doc: string;
  panel: PanelName;
  /** Histogram bins spaced in log(norm). */
  logNorm: boolean;
  /** Hub base URL override (a mirror, or a local server in tests); null = huggingface.co. */
  hub: string | null;
  /** The teaching demo's k values and steps. */
  demoKs: number[];
  demoSteps: number;
  lesson: LessonState;
}

/** The lesson's steps, in order (the URL names them by number, 1 to 4). */
export const LESSON_STEPS = ['vector', 'long-rows', 'training', 'trade'] as const;
export const LESSON_SPEEDS = ['slow', 'normal', 'fast'] as const;
export type LessonSpeed = (typeof LESSON_SPEEDS)[number];

export interface LessonState {
  /** 1-based step of LESSON_STEPS. */
  step: number;
  ks: number[];
  seed: number;
  /** Training steps of each k (a shorter lesson for a short class, shared by its link). */
  steps: number;
  speed: LessonSpeed;
  /** 'live' on this GPU, 'recorded' from the bundled trace; null: live when WebGPU is there. */
  mode: 'live' | 'recorded' | null;
  /** Large type and high contrast, the lesson alone (a projector): `present=1`, or a bare `present` in a link. */
  present: boolean;
}

export const DEFAULT_STATE: Readonly<PageState> = {
  model: DEMO_MODEL,
  k: 1,
  target: 1.4,
  query: 'what causes ocean tides',
  doc: 'Tides are the rise and fall of sea levels caused by the gravity of the moon and the sun.',
  panel: 'norms',
  logNorm: false,
  hub: null,
  demoKs: [1, 16],
  demoSteps: 60,
  lesson: {
    step: 1,
    ks: [...LESSON_DEFAULTS.ks],
    seed: LESSON_DEFAULTS.seed,
    steps: LESSON_DEFAULTS.steps,
    speed: 'normal',
    mode: null,
    present: false,
  },
};

/** The range of k the whole application accepts (one set of limits: app/limits.ts). */
export const K_MIN = K_RANGE.min;
export const K_MAX = K_RANGE.max;
/** The teaching demo draws at most this many k values, each for at most DEMO_MAX_STEPS steps. */
export const DEMO_MAX_KS = K_DEMO_LIMITS.ks.max;
export const DEMO_MAX_STEPS = K_DEMO_LIMITS.steps.max;
/** "k must be a number from 0.25 to 64", as every field says it. */
export const K_RANGE_MESSAGE = `k must be ${describeRange(K_RANGE)}`;

/** A typed or linked list of ks ("1, 16" or "2 8"): numbers in [K_MIN, K_MAX], `count` of them, all different if asked; else null. */
function parseKs(text: string, count: NumberRange, distinct: boolean): number[] | null {
  const ks = text
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(Number);
  const ok = inRange(ks.length, count) && ks.every((k) => inRange(k, K_RANGE)) && (!distinct || new Set(ks).size === ks.length);
  return ok ? ks : null;
}

/** The teaching demo's ks: 1 to DEMO_MAX_KS of them. */
export function parseKList(text: string): number[] | null {
  return parseKs(text, K_DEMO_LIMITS.ks, false);
}

/** A lesson's ks: 2 or 3 different ones. */
export function parseLessonKs(text: string): number[] | null {
  return parseKs(text, LESSON_LIMITS.ks, true);
}

/** Reads the state from a query string; anything missing or malformed falls back to its default. */
export function readState(search: string): PageState {
  const params = new URLSearchParams(search);
  const number = (key: string, fallback: number, lo: number, hi: number) => {
    const value = Number(params.get(key));
    return params.has(key) && Number.isFinite(value) && value >= lo && value <= hi ? value : fallback;
  };
  const panel = params.get('panel');
  return {
    model: params.get('model')?.trim() || DEFAULT_STATE.model,
    k: number('k', DEFAULT_STATE.k, K_MIN, K_MAX),
    target: number('target', DEFAULT_STATE.target, 0.01, 100),
    query: params.get('q') ?? DEFAULT_STATE.query,
    doc: params.get('d') ?? DEFAULT_STATE.doc,
    panel: (PANELS as readonly string[]).includes(panel ?? '') ? (panel as PanelName) : DEFAULT_STATE.panel,
    logNorm: params.get('log') === '1',
    hub: params.get('hub') || null,
    demoKs: parseKList(params.get('dks') ?? '') ?? [...DEFAULT_STATE.demoKs],
    demoSteps: Math.round(number('dsteps', DEFAULT_STATE.demoSteps, 1, DEMO_MAX_STEPS)),
    lesson: readLesson(params, number),
  };
}

function readLesson(
  params: URLSearchParams,
  number: (key: string, fallback: number, lo: number, hi: number) => number,
): LessonState {
  const fallback = DEFAULT_STATE.lesson;
  const speed = params.get('lspeed');
  const mode = params.get('lmode');
  const seed = number('lseed', fallback.seed, TRAIN_LIMITS.seed.min, TRAIN_LIMITS.seed.max);
  const steps = number('lsteps', fallback.steps, LESSON_LIMITS.steps.min, LESSON_LIMITS.steps.max);
  return {
    step: Math.round(number('lstep', fallback.step, 1, LESSON_STEPS.length)),
    ks: parseLessonKs(params.get('lks') ?? '') ?? [...fallback.ks],
    seed: Number.isInteger(seed) ? seed : fallback.seed,
    steps: Number.isInteger(steps) ? steps : fallback.steps,
    speed: (LESSON_SPEEDS as readonly string[]).includes(speed ?? '') ? (speed as LessonSpeed) : fallback.speed,
    mode: mode === 'live' || mode === 'recorded' ? mode : null,
    present: params.get('present') === '1' || params.get('present') === '',
  };
}

/** The query string of a state; values equal to the defaults are left out, except model and k. */
export function writeState(state: PageState): string {
  const params = new URLSearchParams();
  params.set('model', state.model);
  params.set('k', String(roundForUrl(state.k)));
  if (state.target !== DEFAULT_STATE.target) params.set('target', String(roundForUrl(state.target)));
  if (state.query !== DEFAULT_STATE.query) params.set('q', state.query);
  if (state.doc !== DEFAULT_STATE.doc) params.set('d', state.doc);
  if (state.panel !== DEFAULT_STATE.panel) params.set('panel', state.panel);
  if (state.logNorm) params.set('log', '1');
  if (state.hub) params.set('hub', state.hub);
  if (state.demoKs.join(',') !== DEFAULT_STATE.demoKs.join(',')) params.set('dks', state.demoKs.map(roundForUrl).join(','));
  if (state.demoSteps !== DEFAULT_STATE.demoSteps) params.set('dsteps', String(state.demoSteps));
  const lesson = state.lesson;
  const lessonDefaults = DEFAULT_STATE.lesson;
  if (lesson.step !== lessonDefaults.step) params.set('lstep', String(lesson.step));
  if (lesson.ks.join(',') !== lessonDefaults.ks.join(',')) params.set('lks', lesson.ks.map(roundForUrl).join(','));
  if (lesson.seed !== lessonDefaults.seed) params.set('lseed', String(lesson.seed));
  if (lesson.steps !== lessonDefaults.steps) params.set('lsteps', String(lesson.steps));
  if (lesson.speed !== lessonDefaults.speed) params.set('lspeed', lesson.speed);
  if (lesson.mode) params.set('lmode', lesson.mode);
  if (lesson.present) params.set('present', '1');
  return `?${params.toString()}`;
}

/** What each link parameter the page checks accepts, said when a link's value is not used. */
const LINK_RULES: Record<string, string> = {
  k: K_RANGE_MESSAGE,
  target: 'the target mean row norm must be a number from 0.01 to 100',
  panel: `the panel must be one of ${PANELS.join(', ')}`,
  log: 'log=1 draws the histogram on log(norm)',
  dks: `the teaching demo takes 1 to ${DEMO_MAX_KS} ks, each ${describeRange(K_RANGE)}`,
  dsteps: `the teaching demo's steps must be a whole number from 1 to ${DEMO_MAX_STEPS}`,
  lstep: `the lesson step must be 1 to ${LESSON_STEPS.length}`,
  lks: `a lesson takes 2 or 3 different ks, each ${describeRange(K_RANGE)}`,
  lseed: `the lesson seed must be ${describeRange(TRAIN_LIMITS.seed)}`,
  lsteps: `a lesson's training steps must be ${describeRange(LESSON_LIMITS.steps)}`,
  lspeed: `the lesson speed must be one of ${LESSON_SPEEDS.join(', ')}`,
  lmode: 'the lesson mode must be live or recorded',
  present: 'present=1 (or a bare present) opens the presenter view',
};

/** How the defaults read in a link (a link may name a default; the page's own links leave it out). */
const DEFAULT_TEXT: Record<string, string> = {
  target: String(DEFAULT_STATE.target),
  panel: DEFAULT_STATE.panel,
  log: '0',
  dks: DEFAULT_STATE.demoKs.join(','),
  dsteps: String(DEFAULT_STATE.demoSteps),
  lstep: String(DEFAULT_STATE.lesson.step),
  lks: DEFAULT_STATE.lesson.ks.join(','),
  lseed: String(DEFAULT_STATE.lesson.seed),
  lsteps: String(DEFAULT_STATE.lesson.steps),
  lspeed: DEFAULT_STATE.lesson.speed,
  present: '0',
};

/** Two link values that mean the same: equal text, or the same numbers to four digits ("1.40" and "1.4", "1 8" and "1,8"). */
function sameValue(a: string, b: string): boolean {
  const numbers = (text: string) =>
    text
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((v) => roundForUrl(Number(v)));
  const [x, y] = [numbers(a), numbers(b)];
  return a === b || (x.length > 0 && x.length === y.length && x.every((v, i) => Number.isFinite(v) && v === y[i]));
}

/**
 * What the page did not take from a link, one sentence each: a value out of range or malformed, with what it accepts
 * and what the page uses instead (the value the rewritten URL holds, or the default). Empty when the link is all used.
 */
export function linkCorrections(search: string): string[] {
  const given = new URLSearchParams(search);
  const used = new URLSearchParams(writeState(readState(search)));
  const same = (key: string, value: string) =>
    used.get(key) === value || (key === 'present' && value === '' && used.get(key) === '1');
  return Object.entries(LINK_RULES).flatMap(([key, rule]) => {
    const value = given.get(key);
    if (value === null || same(key, value) || sameValue(value, used.get(key) ?? '')) return [];
    const instead = used.get(key);
    // a value equal to the default is left out of links: the page uses it all the same
    if (instead === null && key in DEFAULT_TEXT && sameValue(value, DEFAULT_TEXT[key])) return [];
    return [`${key}=${value} was not used (${rule}): the page uses ${instead === null ? 'its default' : `${key}=${instead}`}.`];
  });
}

/** k and targets keep four significant digits in links. */
function roundForUrl(value: number): number {
  return Number(value.toPrecision(4));
}
