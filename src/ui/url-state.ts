// The page's shareable state (model, k, target norm, texts, open panel, teaching-demo settings) in the URL query.
import { K_DEMO_LIMITS, K_RANGE, describeRange, inRange } from '../worker/api.ts';
import { DEMO_MODEL } from './presets.ts';

export const PANELS = ['norms', 'preview', 'training', 'evaluate', 'runs'] as const;
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
};

/** The range of k the whole application accepts (one set of limits: app/limits.ts). */
export const K_MIN = K_RANGE.min;
export const K_MAX = K_RANGE.max;
/** The teaching demo draws at most this many k values, each for at most DEMO_MAX_STEPS steps. */
export const DEMO_MAX_KS = K_DEMO_LIMITS.ks.max;
export const DEMO_MAX_STEPS = K_DEMO_LIMITS.steps.max;
/** "k must be a number from 0.25 to 64", as every field says it. */
export const K_RANGE_MESSAGE = `k must be ${describeRange(K_RANGE)}`;

/** "1, 16" → [1, 16]; null unless it is 1 to DEMO_MAX_KS numbers in [K_MIN, K_MAX], separated by commas or spaces. */
export function parseKList(text: string): number[] | null {
  const parts = text.split(/[\s,]+/).filter(Boolean);
  const ks = parts.map(Number);
  const ok = ks.length >= 1 && ks.length <= DEMO_MAX_KS && ks.every((k) => inRange(k, K_RANGE));
  return ok ? ks : null;
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
  return `?${params.toString()}`;
}

/** k and targets keep four significant digits in links. */
function roundForUrl(value: number): number {
  return Number(value.toPrecision(4));
}
