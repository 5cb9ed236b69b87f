// The bundled synthetic demo backbone: its generator's settings and the files the page reads next to index.html.

/** Shape of the generated BERT-style model (vocabulary size comes from the bundled vocab.txt). */
export const DEMO_SHAPE = {
  seed: 2026,
  hidden: 32,
  layers: 2,
  heads: 2,
  intermediate: 64,
  maxPositions: 128,
  /** Mean row norm of the (tied) head, close to ModernBERT-base's 2.553. */
  headNormScale: 2.5,
} as const;

/** Folder of the demo files, relative to the page (works under any sub-path). */
const DEMO_FOLDER = 'demo/';

/** Row norms written by scripts/make-demo-backbone.ts, shown when the browser has no WebGPU. */
export const DEMO_STATS_FILE = 'head-norms.json';

export interface DemoHeadNorms {
  provenance: string;
  /** Row-norm statistics at k = 1 (float64 reference, computed by the generator). */
  summary: { mean: number; std: number; min: number; max: number; p50: number; p90: number; p99: number; nonFiniteRows: number };
  anisotropy: number;
  /** Per-row L2 norm of W_head at k = 1. */
  norms: number[];
}

/** The absolute URL of the demo folder for a page at `pageUrl`. */
export function demoFolderUrl(pageUrl: string): string {
  return new URL(DEMO_FOLDER, pageUrl).href;
}
