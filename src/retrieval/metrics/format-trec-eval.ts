// Prints measures the way trec_eval does: "%-22s\t%s\t%.4f" rows, counts as integers, rounding half to even.
import { countMeasures } from './measures.ts';
import type { RunEvaluation } from '../../contract/evaluation/results.ts';

/**
 * `value` with `digits` decimals, rounded like C's printf: on the exact binary value, ties to even
 * (so 1/32 prints as 0.0312, where Number.prototype.toFixed would give 0.0313).
 */
export function formatFixed(value: number, digits: number): string {
  if (Number.isNaN(value)) return '-nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  const exact = Math.abs(value).toFixed(Math.max(40, digits + 30)); // exact enough to see a tie
  const [whole, fraction] = exact.split('.');
  const kept = fraction.slice(0, digits);
  const rest = fraction.slice(digits);
  let scaled = BigInt(whole + kept);
  const firstDropped = rest.charCodeAt(0) - 48;
  const restIsExactHalf = firstDropped === 5 && /^0*$/.test(rest.slice(1));
  if (firstDropped > 5 || (firstDropped === 5 && (!restIsExactHalf || scaled % 2n === 1n))) scaled += 1n;
  const text = scaled.toString().padStart(digits + 1, '0');
  const sign = value < 0 || Object.is(value, -0) ? '-' : ''; // C keeps the sign of -0.00001 -> -0.0000
  return digits === 0 ? sign + text : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

export function formatMeasureValue(name: string, value: number): string {
  return countMeasures.has(name) || name === 'num_q' ? String(Math.round(value)) : formatFixed(value, 4);
}

function formatMeasureLine(name: string, queryId: string, value: number): string {
  return `${name.padEnd(22)}\t${queryId}\t${formatMeasureValue(name, value)}`;
}

/** The text trec_eval prints: per-query rows first when `perQuery`, then the "all" rows led by runid. */
export function formatTrecEval(evaluation: RunEvaluation, options: { perQuery?: boolean; runId?: string } = {}): string {
  const lines: string[] = [];
  if (options.perQuery) {
    for (const [queryId, measures] of evaluation.perQuery) {
      for (const [name, value] of measures) lines.push(formatMeasureLine(name, queryId, value));
    }
  }
  if (options.runId !== undefined) lines.push(`${'runid'.padEnd(22)}\tall\t${options.runId}`);
  for (const [name, value] of evaluation.summary) lines.push(formatMeasureLine(name, 'all', value));
  return lines.join('\n') + '\n';
}
