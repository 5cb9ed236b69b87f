// What the synthetic k demo (the paper's first finding on a head alone) hands back: its shape, and each k's losses.
import type { StepLosses } from './training-report.ts';

/** Sizes of the synthetic k demo: queries, their and the documents' tokens, hidden size and head rows. */
export const K_DEMO_SHAPE = { B: 8, Tq: 8, Td: 16, d: 64, V: 2000 };

/** One k's losses (read back every few steps, always at the first and the last). */
export interface KDemoSeries {
  k: number;
  losses: StepLosses[];
}

export interface KDemoResult {
  runs: KDemoSeries[];
  shape: typeof K_DEMO_SHAPE;
  /** What the figures come from, for captions. */
  provenance: string;
}
