// The MLM head's row statistics on the host, in float64: per-row L2 norms, their summary, histogram and anisotropy.
// A row is non-finite when it holds an Inf or a NaN or when its squared norm passes the f32 range (the GPU sums in
// f32): its norm is NaN or Inf, the summary leaves it out and counts it, and anisotropy skips pairs that hold one.
import { NormSummary } from '../../contract/model/head-statistics.ts';
import { histogramCounts, type HistogramRange } from '../../util/histogram-range.ts';
import { Random } from '../../util/random.ts';

/** The largest finite f32. */
const F32_MAX = 3.4028234663852886e38;

export type { HistogramRange };

/** norms (V) of the rows of W (V, d): NaN for a row holding a NaN, Inf for one holding an Inf or out of f32 range. */
export function headRowNorms(W: ArrayLike<number>, V: number, d: number): Float64Array {
  const norms = new Float64Array(V);
  for (let v = 0; v < V; v++) {
    let s = 0;
    for (let c = 0; c < d; c++) s += W[v * d + c] ** 2;
    norms[v] = s > F32_MAX ? Infinity : Math.sqrt(s); // NaN stays NaN
  }
  return norms;
}

/** Percentile by linear interpolation between closest ranks (numpy's default), q in [0, 1]. */
function percentile(sorted: ArrayLike<number>, q: number): number {
  const position = q * (sorted.length - 1);
  const lower = Math.floor(position);
  const upper = Math.min(lower + 1, sorted.length - 1);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - lower);
}

/** Summary of the finite norms; the others are only counted (nonFiniteRows). */
export function summarizeNorms(norms: Float64Array): NormSummary {
  const finite = norms.filter(Number.isFinite);
  const nonFiniteRows = norms.length - finite.length;
  if (finite.length === 0) return { mean: NaN, std: NaN, min: NaN, max: NaN, p50: NaN, p90: NaN, p99: NaN, nonFiniteRows };
  const sorted = finite.sort();
  let sum = 0;
  for (const n of finite) sum += n;
  const mean = sum / finite.length;
  let squares = 0;
  for (const n of finite) squares += (n - mean) ** 2;
  return {
    mean,
    std: Math.sqrt(squares / finite.length),
    min: sorted[0],
    max: sorted[sorted.length - 1],
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    nonFiniteRows,
  };
}

/** Counts per bin, binned as util/histogram-range.ts does for the page (the last bin holds `hi`; outside: left out). */
export function normHistogram(norms: Float64Array, range: HistogramRange): Uint32Array {
  return Uint32Array.from(histogramCounts(norms, range));
}

/** `count` seeded pairs (i, j), i ≠ j, of row indices in [0, V), flattened. */
export function sampleRowPairs(V: number, count: number, seed: number): Uint32Array {
  if (V < 2) throw new Error(`anisotropy needs at least 2 rows, the head has ${V}`);
  const random = new Random(seed);
  const pairs = new Uint32Array(2 * count);
  for (let p = 0; p < count; p++) {
    const i = random.int(V);
    let j = random.int(V - 1);
    if (j >= i) j++;
    pairs[2 * p] = i;
    pairs[2 * p + 1] = j;
  }
  return pairs;
}

/**
 * Mean cosine similarity of the sampled row pairs whose two rows are finite with squared norms in f32 range (zero
 * rows count as cosine 0); NaN when no sampled pair qualifies.
 */
export function anisotropy(W: ArrayLike<number>, d: number, pairs: Uint32Array): number {
  const count = pairs.length / 2;
  let total = 0;
  let counted = 0;
  for (let p = 0; p < count; p++) {
    const i = pairs[2 * p];
    const j = pairs[2 * p + 1];
    let dot = 0;
    let ni = 0;
    let nj = 0;
    for (let c = 0; c < d; c++) {
      dot += W[i * d + c] * W[j * d + c];
      ni += W[i * d + c] ** 2;
      nj += W[j * d + c] ** 2;
    }
    if (!(ni <= F32_MAX && nj <= F32_MAX)) continue; // NaN, Inf, or out of f32 range
    counted++;
    total += ni > 0 && nj > 0 ? dot / Math.sqrt(ni * nj) : 0;
  }
  return counted === 0 ? NaN : total / counted;
}
