// The Node test files the portable run (WebGPU's default limits, the smallest per-dispatch budget) repeats: the ones
// whose results those settings can change. Everything else (parsers, retrieval, CLI plumbing) runs once.
export const PORTABLE_TEST_FILES: readonly string[] = [
  // kernels, each against its float64 reference (every file that calls expectKernel or checkKernel must be here)
  'kernels/active-dims',
  'kernels/adamw',
  'kernels/check-kernel',
  'kernels/dropout',
  'kernels/finite-check',
  'kernels/flops-step',
  'kernels/grad-norm',
  'kernels/head-stats',
  'kernels/head-division',
  'kernels/layer-kernels-activations',
  'kernels/layer-kernels-attention',
  'kernels/layer-kernels-embedding',
  'kernels/layer-kernels-layernorm',
  'kernels/losses',
  'kernels/masked-lm-loss',
  'kernels/matmul',
  'kernels/splade-head',
  'kernels/static-query-table',
  // the device's limits as the runtime reads them
  'kernels/gpu-runtime',
  // matrices in row parts
  'kernels/large-vocabulary',
  // the composed encoder and trainer steps, split into pieces under the budget
  'model/gpu-encoder',
  'model/splade-objective',
  'model/splade-pipeline',
  'training/train-checkpoint',
  'training/device-loss-resume',
  'training/train-sgd-step',
].map((name) => `tests/node/${name}.test.ts`);
