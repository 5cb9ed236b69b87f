// A spike in the head-norm histogram: one bin that holds a large share of the rows, far above its neighbours. Rows
// of one shared length are rows that training left where they started, so the page says what they are.
import type { HeadStatistics } from '../../worker/api.ts';
import { binEdges } from '../common/chart-scale.ts';

/** One bin's rows: its norm range [lo, hi), how many rows, and their share of the finite rows. */
export interface NormSpike {
  lo: number;
  hi: number;
  rows: number;
  share: number;
}

/**
 * A spike holds at least this share of the rows and this many times as many as any other bin. A spike that straddles
 * a bin edge fills two bins: the fullest bin is taken with its fuller neighbour when that holds over half as many.
 */
export const SPIKE_RULE = { share: 0.15, overOthers: 3 } as const;

/** The histogram's spike, or null when no bin stands out so (a smooth distribution, however peaked). */
export function normSpike(stats: HeadStatistics): NormSpike | null {
  const { counts, range } = stats.histogram;
  const total = counts.reduce((sum, c) => sum + c, 0);
  if (total === 0) return null;
  const top = counts.indexOf(Math.max(...counts));
  const side = (counts[top - 1] ?? 0) >= (counts[top + 1] ?? 0) ? top - 1 : top + 1;
  const [first, last] = (counts[side] ?? 0) > counts[top] / 2 ? [Math.min(top, side), Math.max(top, side)] : [top, top];
  const rows = counts.slice(first, last + 1).reduce((sum, c) => sum + c, 0);
  const others = Math.max(0, ...counts.filter((_, i) => i < first || i > last));
  if (rows < SPIKE_RULE.share * total || rows < SPIKE_RULE.overOthers * others) return null;
  const edges = binEdges(range);
  return { lo: edges[first], hi: edges[last + 1], rows, share: rows / total };
}
