// A run's head three ways, on one set of bins: as the backbone was loaded (k = 1), divided by the run's k (what
// training started from) and after training; the page's head-norm view overlays them when a run's model is in use.
import type { HeadStatistics } from '../../contract/model/head-statistics.ts';
import { summarizeNorms } from '../../kernels/host/head-norms.ts';
import { histogramCounts, sharedHistogramRange } from '../../util/histogram-range.ts';
import { hostRowNorms } from './head-report.ts';
import type { OpenedModel } from './open-model.ts';
import { headOf } from './model-session.ts';
import type { RunRecord } from '../../contract/experiments/runs.ts';
import { RunHeadStats } from '../../contract/model/model-results.ts';

const BINS = 60;

/** The three heads of `record`'s run, whose trained model is `trainedModel`. */
export function runHeadStats(record: RunRecord, trainedModel: OpenedModel, options: { logNorm: boolean }): RunHeadStats | null {
  return runHeadStatsFromNorms(record, hostRowNorms(headOf(trainedModel)), options);
}

/** Null when the run did not keep its starting norms (runs recorded before they were kept) or the vocabularies differ. */
export function runHeadStatsFromNorms(
  record: Pick<RunRecord, 'k' | 'model'>,
  trained: Float64Array,
  options: { logNorm: boolean },
): RunHeadStats | null {
  const startNorms = record.model.rowNorms;
  if (!startNorms || startNorms.length === 0 || startNorms.length !== trained.length) return null;
  const k = record.k;
  const loaded = Float64Array.from(startNorms);
  const divided = loaded.map((n) => n / k);
  const [loadedSummary, trainedSummary] = [summarizeNorms(loaded), summarizeNorms(trained)];
  // Spans every series: the range over loaded and trained norms, widened to cover loaded / k as well.
  const span = {
    min: Math.min(loadedSummary.min, finiteOr(trainedSummary.min, loadedSummary.min)),
    max: Math.max(loadedSummary.max, finiteOr(trainedSummary.max, loadedSummary.max)),
  };
  const range = sharedHistogramRange(span, k, BINS, options.logNorm);
  const statistics = (norms: Float64Array, divisor: number): HeadStatistics => ({
    k: divisor,
    summary: summarizeNorms(norms),
    anisotropy: NaN,
    histogram: { range, counts: histogramCounts(norms, range) },
  });
  return { k, loaded: statistics(loaded, 1), divided: statistics(divided, k), trained: statistics(trained, k) };
}

function finiteOr(value: number, fallback: number): number {
  return Number.isFinite(value) ? value : fallback;
}
