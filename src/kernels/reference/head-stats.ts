// Float64 reference of the head-statistics family (src/kernels/head-stats.ts): the host's own statistics, which the
// page and the CLI use where a head does not fit one binding (src/kernels/host/head-norms.ts).
export {
  anisotropy,
  headRowNorms,
  normHistogram,
  sampleRowPairs,
  summarizeNorms,
  type HistogramRange,
} from '../host/head-norms.ts';
