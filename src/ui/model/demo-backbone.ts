// The bundled demo backbone (a tiny BERT pretrained by splade-lab on WordNet 3.1 glosses): the files the page reads
// next to index.html.

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
