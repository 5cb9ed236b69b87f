// The one set of limits every request is checked against (page, worker and CLI alike), and the one checker that
// words the messages. Pure: the page imports these through worker/api.ts to bound its own fields.

export interface NumberRange {
  min: number;
  max: number;
  /** Whole numbers only. */
  integer?: boolean;
  /** The minimum itself is not allowed (a learning rate of exactly 0). */
  exclusiveMin?: boolean;
}

/** k divides the MLM head: the page's slider spans this range, and nothing outside it is accepted anywhere. */
export const K_RANGE: NumberRange = { min: 0.25, max: 64 };

export const K_DEMO_LIMITS = {
  /** k values drawn at once (one colour and dash pattern each). */
  ks: { min: 1, max: 6, integer: true },
  steps: { min: 1, max: 2000, integer: true },
} as const satisfies Record<string, NumberRange>;

export const TRAIN_LIMITS = {
  steps: { min: 0, max: 10_000_000, integer: true },
  epochs: { min: 0, max: 1000, exclusiveMin: true },
  batchSize: { min: 1, max: 4096, integer: true },
  queryLength: { min: 2, max: 8192, integer: true },
  documentLength: { min: 2, max: 8192, integer: true },
  peakLr: { min: 0, max: Number.MAX_VALUE, exclusiveMin: true },
  lambda: { min: 0, max: Number.MAX_VALUE },
  weightDecay: { min: 0, max: 1 },
  /** Fractions of the run: the learning rate's warm-up, the FLOPS weights' ramp. */
  ratio: { min: 0, max: 1 },
  temperature: { min: 0, max: Number.MAX_VALUE, exclusiveMin: true },
  /** Global gradient norm clipped to (0: no clipping). */
  maxGradNorm: { min: 0, max: Number.MAX_VALUE },
  dropout: { min: 0, max: 0.99 },
  /** Micro-batches per step. */
  gradAccum: { min: 1, max: 4096, integer: true },
  /** Seeds are 32-bit. */
  seed: { min: 0, max: 2 ** 32 - 1, integer: true },
  checkpointEvery: { min: 1, max: 10_000_000, integer: true },
  reportEvery: { min: 1, max: 10_000_000, integer: true },
} as const satisfies Record<string, NumberRange>;

export const CALIBRATE_LIMITS = {
  trials: { min: 1, max: 20, integer: true },
  /** Target mean active dimensions. */
  target: { min: 1, max: 10_000_000, exclusiveMin: false },
  tolerance: { min: 0, max: 1, exclusiveMin: true },
  /** Batch sizes measured at the suggested lambdas. */
  batchSizes: { min: 0, max: 8, integer: true },
} as const satisfies Record<string, NumberRange>;

export const EVAL_LIMITS = {
  topK: { min: 1, max: 100_000, integer: true },
  queryLength: { min: 2, max: 8192, integer: true },
  documentLength: { min: 2, max: 8192, integer: true },
  batchSize: { min: 1, max: 4096, integer: true },
  /** Keep only this many largest weights per vector (0: keep all). */
  prune: { min: 0, max: 1_000_000, integer: true },
} as const satisfies Record<string, NumberRange>;

/** The settings an evaluation uses unless asked otherwise (the CLI's defaults and the page's fields). */
export const EVAL_DEFAULTS = { k: 1, queryLength: 64, documentLength: 256, topK: 1000, prune: 0, search: 'exhaustive' } as const;

/** A request with a value out of range: names the field, the allowed range and what was given. */
export class InvalidRequestError extends RangeError {
  override name = 'InvalidRequestError';
}

function formatNumber(value: number): string {
  return value === Number.MAX_VALUE ? 'any size' : String(value);
}

/** What `range` allows, in words: "a whole number from 1 to 4096", "a number above 0". */
export function describeRange(range: NumberRange): string {
  const kind = range.integer ? 'a whole number' : 'a number';
  if (range.max === Number.MAX_VALUE) return `${kind} ${range.exclusiveMin ? 'above' : 'of at least'} ${range.min}`;
  return `${kind} from ${range.exclusiveMin ? 'above ' : ''}${range.min} to ${formatNumber(range.max)}`;
}

export function inRange(value: number, range: NumberRange): boolean {
  if (typeof value !== 'number' || !Number.isFinite(value)) return false;
  if (range.integer && !Number.isInteger(value)) return false;
  if (range.exclusiveMin ? value <= range.min : value < range.min) return false;
  return value <= range.max;
}

/** `value` when it lies in `range`; otherwise an InvalidRequestError: "<what> must be <range>, got <value>". */
export function checkRange(value: number, range: NumberRange, what: string): number {
  if (!inRange(value, range)) throw new InvalidRequestError(`${what} must be ${describeRange(range)}, got ${String(value)}`);
  return value;
}

/** The k check, written once. */
export function checkK(k: number, what = 'k'): number {
  return checkRange(k, K_RANGE, what);
}
