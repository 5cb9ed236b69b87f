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

/**
 * What the tall bar of the demo's head-norm histogram is (the head-norm panel shows it under the histogram): how
 * scripts/demo/pretrain-demo-backbone.ts's warm start treats the ids it has no co-occurrence vector for. A node test
 * (tests/node/ui/norm-spike.test.ts) checks it against the committed demo and the pretraining's settings.
 */
export const DEMO_SPIKE_NOTE =
  'In the demo backbone these are the ids its warm start had no co-occurrence vector for: the ids its pretraining text ' +
  "(WordNet's glosses and the lesson world) holds fewer than 5 times, among them [PAD] and every [unusedN] piece, and " +
  'its 300 most frequent ones (punctuation, "the", "a", "of"), left out of the vectors on purpose. The warm start gave ' +
  'them all one length, the shortest of the others, and its short masked-LM pretraining moved rows little, so they ' +
  'still share it.';
