// Number formatting shared by the tables, the chart and the preview.

/** A norm or weight with three decimals (as the paper prints them). */
export function formatStat(value: number): string {
  if (!Number.isFinite(value)) return '–';
  const text = value.toFixed(3);
  return text === '-0.000' ? '0.000' : text;
}

/** k or a target with up to three significant decimals, no trailing zeros. */
export function formatK(value: number): string {
  return Number(value.toFixed(value < 10 ? 2 : 1)).toString();
}

/** A parameter count as 4.4M / 110M / 1.2B. */
export function formatCount(count: number): string {
  if (count >= 1e9) return `${(count / 1e9).toFixed(2)}B`;
  if (count >= 1e6) return `${(count / 1e6).toFixed(count >= 1e8 ? 0 : 1)}M`;
  if (count >= 1e3) return `${(count / 1e3).toFixed(1)}k`;
  return String(count);
}

export { formatBytes } from '../../util/format-bytes.ts';

/** A duration in the unit that reads best: 350 ms, 4.2 s, 12 min, 3.1 h. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/** A lambda as people write it: 5e-2, 3.0e-5, 0.5 (three significant digits, exponent form below 0.01). */
export function formatLambda(value: number): string {
  if (value === 0) return '0';
  return Math.abs(value) < 0.01 ? value.toExponential(2).replace('.00e', 'e') : String(Number(value.toPrecision(3)));
}

/**
 * A share of a total as a percentage with the precision it needs: 12.3% and 0.4% with one decimal, smaller ones with
 * two significant digits (0.016%: a term of a nearly dense vector's score, which one decimal would print as 0.0%),
 * "< 0.001%" below that, and 0 as 0%.
 */
export function formatShare(share: number): string {
  if (!Number.isFinite(share)) return '–';
  const percent = 100 * share;
  if (percent === 0) return '0%';
  if (Math.abs(percent) >= 0.1) return `${percent.toFixed(1)}%`;
  if (Math.abs(percent) < 0.001) return '< 0.001%';
  return `${Number(percent.toPrecision(2))}%`;
}
