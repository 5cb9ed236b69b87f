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
  /** Large type and high contrast, the lesson alone (a projector). */
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
    present: params.get('present') === '1',
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

/** k and targets keep four significant digits in links. */
function roundForUrl(value: number): number {
  return Number(value.toPrecision(4));
}
