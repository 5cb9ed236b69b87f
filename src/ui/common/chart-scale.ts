// Axis arithmetic for the hand-drawn SVG charts: linear and logarithmic scales with readable tick values.

export interface Scale {
  /** Value to a fraction of the axis, 0..1. */
  fraction(value: number): number;
  ticks: number[];
}

/** A linear scale over [lo, hi] with about `count` ticks at 1, 2 or 5 times a power of ten. */
export function linearScale(lo: number, hi: number, count = 6): Scale {
  // a non-finite end (a diverged value that slipped through) gives a unit axis rather than a loop that never ends
  if (!Number.isFinite(lo)) lo = Number.isFinite(hi) ? hi - 1 : 0;
  if (!Number.isFinite(hi)) hi = lo + 1;
  const span = hi - lo > 1e-300 ? hi - lo : 1;
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power;
  const first = Math.ceil(lo / step);
  const ticks: number[] = [];
  // ticks by index, so that a step below the ends' floating-point spacing cannot stall the walk
  for (let i = 0; i <= Math.max(1, count) * 3 + 2; i++) {
    const t = (first + i) * step;
    if (t > hi + step * 1e-9) break;
    ticks.push(Number(t.toPrecision(12)));
  }
  return { fraction: (v) => (v - lo) / span, ticks };
}

/** Positive, finite ends for a log axis: 1e-300 to 1e300 at most. */
const LOG_FLOOR = 1e-300;
const LOG_CEILING = 1e300;

/** A logarithmic scale over [lo, hi] (both > 0; others are clamped), ticks at 1, 2 and 5 times powers of ten inside it. */
export function logScale(lo: number, hi: number): Scale {
  lo = lo > LOG_FLOOR ? Math.min(lo, LOG_CEILING) : LOG_FLOOR;
  hi = hi > lo ? Math.min(hi, LOG_CEILING) : Math.min(lo * 10, LOG_CEILING);
  const a = Math.log(lo);
  const b = Math.log(hi > lo ? hi : lo * 10);
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of [1, 2, 5]) {
      const t = Number((m * 10 ** e).toPrecision(6));
      if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9)) ticks.push(t);
    }
  }
  return { fraction: (v) => (Math.log(v) - a) / (b - a), ticks };
}

/** Counts on a log axis: log10(1 + c), so that empty bins sit at zero. */
export function logCountScale(max: number): Scale {
  const top = Math.log10(1 + Math.max(1, max));
  const ticks: number[] = [0];
  for (let t = 1; t <= max; t *= 10) ticks.push(t);
  return { fraction: (c) => Math.log10(1 + c) / top, ticks };
}

/** Edges (bins + 1) of a histogram range, evenly spaced in value or in log value. */
export function binEdges(range: { lo: number; hi: number; bins: number; log: boolean }): number[] {
  const { lo, hi, bins, log } = range;
  return Array.from({ length: bins + 1 }, (_, i) =>
    log ? Math.exp(Math.log(lo) + ((Math.log(hi) - Math.log(lo)) * i) / bins) : lo + ((hi - lo) * i) / bins,
  );
}

/** Short tick label: 0.5, 2, 1k, 10k. */
export function tickLabel(value: number): string {
  if (value >= 1000) return `${Number((value / 1000).toPrecision(3))}k`;
  return String(Number(value.toPrecision(3)));
}
