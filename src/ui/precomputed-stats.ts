// Head statistics of the demo backbone without a GPU: the row norms shipped with the site, summarised by the
// float64 reference (used only when the browser has no WebGPU; live figures always come from the GPU kernels).
import type { HeadStatistics } from '../kernels/head-stats.ts';
import { normHistogram, summarizeNorms } from '../kernels/reference/head-stats.ts';
import type { HeadStatsPair } from '../worker/api.ts';
import { sharedHistogramRange } from '../worker/histogram-range.ts';
import { DEMO_STATS_FILE, type DemoHeadNorms } from './demo-backbone.ts';

const BINS = 60;

/** Reads the shipped row norms from the demo folder (absolute URL ending in "/"). */
export async function fetchDemoNorms(demoUrl: string): Promise<DemoHeadNorms> {
  const url = new URL(DEMO_STATS_FILE, demoUrl);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status} (run npm run build, which generates the demo)`);
  return (await response.json()) as DemoHeadNorms;
}

/** The same figures the GPU path shows, from the shipped norms: k = 1 and k, on shared bins. */
export function precomputedPair(demo: DemoHeadNorms, k: number, logNorm: boolean): HeadStatsPair {
  const norms = Float64Array.from(demo.norms);
  const base = summarizeNorms(norms);
  const range = sharedHistogramRange(base, k, BINS, logNorm);
  const at = (divisor: number): HeadStatistics => {
    const scaled = norms.map((n) => n / divisor);
    return { k: divisor, summary: summarizeNorms(scaled), anisotropy: demo.anisotropy, histogram: { range, counts: [...normHistogram(scaled, range)] } };
  };
  return { before: at(1), after: at(k), origin: 'precomputed', provenance: demo.provenance };
}
