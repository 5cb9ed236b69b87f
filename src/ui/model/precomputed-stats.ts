// Head statistics of the demo backbone without a GPU: the figures the generator computed (float64 reference, when
// the site was built) shipped beside the page; dividing by k scales every norm figure by 1/k (anisotropy is a cosine
// and does not change), and the histogram bins the shipped norms / k on the same bins the GPU path uses.
import type { HeadStatistics, HeadStatsPair } from '../../worker/api.ts';
import { histogramCounts, sharedHistogramRange } from '../../util/histogram-range.ts';
import { DEMO_STATS_FILE, type DemoHeadNorms } from './demo-backbone.ts';

const BINS = 60;

/** Reads the shipped figures from the demo folder (absolute URL ending in "/"). */
export async function fetchDemoNorms(demoUrl: string): Promise<DemoHeadNorms> {
  const url = new URL(DEMO_STATS_FILE, demoUrl);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status} (run npm run build, which generates the demo)`);
  return (await response.json()) as DemoHeadNorms;
}

/** The same figures the GPU path shows, from the shipped ones: k = 1 and k, on shared bins. */
export function precomputedPair(demo: DemoHeadNorms, k: number, logNorm: boolean): HeadStatsPair {
  const range = sharedHistogramRange(demo.summary, k, BINS, logNorm);
  const at = (divisor: number): HeadStatistics => {
    const s = demo.summary;
    const summary = {
      mean: s.mean / divisor,
      std: s.std / divisor,
      min: s.min / divisor,
      max: s.max / divisor,
      p50: s.p50 / divisor,
      p90: s.p90 / divisor,
      p99: s.p99 / divisor,
      nonFiniteRows: s.nonFiniteRows,
    };
    return {
      k: divisor,
      summary,
      anisotropy: demo.anisotropy,
      histogram: {
        range,
        counts: histogramCounts(
          demo.norms.map((n) => n / divisor),
          range,
        ),
      },
    };
  };
  return { before: at(1), after: at(k), origin: 'precomputed', provenance: demo.provenance };
}
